/**
 * Times in the console are shown in the **gaming day's time zone** (`GAMING_DAY_TZ`, given by
 * `GET /me`; docs/domain-rules.md §4 "gaming day"), with the zone's name, never the browser's.
 * Pure functions (no DOM): unit-tested in test/console/time.unit.spec.ts.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, withDate: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withDate}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: withDate ? 'numeric' : undefined,
      month: withDate ? '2-digit' : undefined,
      day: withDate ? '2-digit' : undefined,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * An ISO-8601 instant (as the API sends `occurredAt`, `recordedAt`) in the gaming day's zone, in the
 * console's one date format: the date as the API writes gaming days (`YYYY-MM-DD`), then the time
 * and the zone's name: `formatInstant("2026-12-01T23:30:00Z", "Europe/Malta")` →
 * `"2026-12-02 00:30:00 CET"`; without the date `"00:30:00 CET"`. An empty or unreadable value is
 * shown as `"–"`.
 */
export function formatInstant(iso: string | null | undefined, timeZone: string, withDate = true): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '–';
  const p = Object.fromEntries(
    formatter(timeZone, withDate)
      .formatToParts(new Date(t))
      .map((x) => [x.type, x.value]),
  );
  const time = `${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
  return withDate ? `${p.year}-${p.month}-${p.day} ${time}` : time;
}
