/**
 * Wall-clock times of the gaming day's zone (`GET /me` `gamingDay.timeZone`) to and from UTC
 * instants, for the audit page's `from` / `to` inputs: a user types a local time of the casino
 * (`2026-12-02T09:30`), the API gets the ISO-8601 instant (`2026-12-02T08:30:00.000Z` in
 * Europe/Malta in winter). Pure (Intl only, no DOM): unit-tested in test/console/zoned.unit.spec.ts.
 */

const parts = new Map<string, Intl.DateTimeFormat>();

function fmt(timeZone: string): Intl.DateTimeFormat {
  let f = parts.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    parts.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (Malta in winter: +3 600 000). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const p = Object.fromEntries(
    fmt(timeZone)
      .formatToParts(new Date(ms))
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour) % 24, Number(p.minute), Number(p.second));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A wall time of `timeZone` (`YYYY-MM-DDTHH:mm[:ss]`, as an `<input type="datetime-local">` gives it)
 * as an ISO-8601 UTC instant. In a spring-forward gap the later side is taken; in a fall-back
 * overlap the earlier instant.
 * @returns null when `local` is empty or not of that form
 */
export function zonedToIso(local: string, timeZone: string): string | null {
  const m = LOCAL.exec(local.trim());
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? '0'));
  // two fixed-point steps settle the offset, also across a DST change
  let t = wall - zoneOffsetMs(wall, timeZone);
  t = wall - zoneOffsetMs(t, timeZone);
  return new Date(t).toISOString();
}

/** An ISO-8601 instant as the zone's wall time `YYYY-MM-DDTHH:mm` (for an input's value); '' when unreadable. */
export function isoToZoned(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  return new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 16);
}

/** The gaming-day rule as the API answers it (`GET /me` `gamingDay`; a close report's `gamingDayRule`). */
export interface GamingDayRule {
  readonly timeZone: string;
  readonly cutoffHour: number;
}

/**
 * The gaming day (`YYYY-MM-DD`) instant `ms` falls in under `rule`, as the ledger cuts days
 * (docs/domain-rules.md §4): the calendar date in the rule's zone, or the previous date before its
 * cut-off hour. `gamingDayOf(Date.parse("2026-12-02T04:00:00Z"), { timeZone: "UTC", cutoffHour: 6 })`
 * → `"2026-12-01"`.
 */
export function gamingDayOf(ms: number, rule: GamingDayRule): string {
  const wall = ms + zoneOffsetMs(ms, rule.timeZone);
  return new Date(wall - rule.cutoffHour * 3_600_000).toISOString().slice(0, 10);
}
