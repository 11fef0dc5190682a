import { ProjectionError } from './errors';

/**
 * Gaming day (the accounting day a round belongs to, docs/domain-rules.md §7; reconciliation "by
 * day", docs/domain-rules.md §4).
 *
 * A round's gaming day is the calendar date, in the casino's time zone, of the `recordedAt` of its
 * `RoundOpened` — the ledger's own clock, never the `occurredAt` a client reports, so a device
 * cannot put a round into a day already reconciled — except that a round opened before the
 * cut-off hour belongs to the previous date (a night shift that runs past midnight stays on one
 * day). Every bet of the round, its settlements, refunds and resettlements are attributed to that
 * day, whenever they happen.
 *
 * Pure: no clock, no environment (the configuration is passed in; see {@link gamingDayConfigFromEnv}).
 */

/** How gaming days are cut. */
export interface GamingDayConfig {
  /** IANA time zone (`UTC`, `Asia/Bangkok`, `Europe/Malta`). @default 'UTC' */
  readonly timeZone: string;
  /** Local hour 0..23: a round opened before it belongs to the previous date. @default 6 */
  readonly cutoffHour: number;
}

/** The defaults: UTC, cut-off 06:00. */
export const DEFAULT_GAMING_DAY: GamingDayConfig = { timeZone: 'UTC', cutoffHour: 6 };

const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = FORMATTERS.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
      });
    } catch {
      throw new ProjectionError('PROJECTION.BAD_CONFIG', `unknown time zone ${JSON.stringify(timeZone)} (GAMING_DAY_TZ)`);
    }
    FORMATTERS.set(timeZone, f);
  }
  return f;
}

/**
 * Checks a configuration (time zone known to the runtime, cut-off an integer hour 0..23).
 * @throws ProjectionError `PROJECTION.BAD_CONFIG`
 */
export function assertGamingDayConfig(cfg: GamingDayConfig): void {
  formatterFor(cfg.timeZone);
  if (!Number.isInteger(cfg.cutoffHour) || cfg.cutoffHour < 0 || cfg.cutoffHour > 23) {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `gaming-day cut-off hour must be an integer 0..23, got ${cfg.cutoffHour}`);
  }
}

/**
 * Reads `GAMING_DAY_TZ` (default `UTC`) and `GAMING_DAY_CUTOFF_HOUR` (default 6).
 * Live projector and rebuild must run with the same values, or their checksums differ.
 * @throws ProjectionError `PROJECTION.BAD_CONFIG`
 */
export function gamingDayConfigFromEnv(env: NodeJS.ProcessEnv): GamingDayConfig {
  const raw = env.GAMING_DAY_CUTOFF_HOUR;
  const cutoffHour = raw === undefined || raw === '' ? DEFAULT_GAMING_DAY.cutoffHour : /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  const cfg = { timeZone: env.GAMING_DAY_TZ || DEFAULT_GAMING_DAY.timeZone, cutoffHour };
  assertGamingDayConfig(cfg);
  return cfg;
}

/**
 * The gaming day of an instant.
 * @param recordedAt ISO-8601 instant with an offset or `Z`: the `recordedAt` of a round's
 *   RoundOpened (the ledger's clock; see the module's comment)
 * @returns `YYYY-MM-DD`
 * @throws ProjectionError `PROJECTION.MALFORMED_EVENT` when `recordedAt` does not parse,
 *   `PROJECTION.BAD_CONFIG` for an unknown time zone
 * @example gamingDay('2025-03-01T05:59:59Z', { timeZone: 'UTC', cutoffHour: 6 }) // '2025-02-28'
 */
export function gamingDay(recordedAt: string, cfg: GamingDayConfig = DEFAULT_GAMING_DAY): string {
  const t = Date.parse(recordedAt);
  if (!Number.isFinite(t)) {
    throw new ProjectionError('PROJECTION.MALFORMED_EVENT', `recordedAt ${JSON.stringify(recordedAt)} is not an ISO-8601 instant`);
  }
  const parts: Record<string, string> = {};
  for (const p of formatterFor(cfg.timeZone).formatToParts(new Date(t))) parts[p.type] = p.value;
  // Calendar arithmetic on the LOCAL wall-clock date (not "instant minus N hours", which is wrong
  // on the days a DST change falls between midnight and the cut-off).
  let y = Number(parts.year);
  let m = Number(parts.month);
  let d = Number(parts.day);
  if (Number(parts.hour) < cfg.cutoffHour) {
    const prev = new Date(Date.UTC(y, m - 1, d - 1));
    y = prev.getUTCFullYear();
    m = prev.getUTCMonth() + 1;
    d = prev.getUTCDate();
  }
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * The instant gaming day `day` ends: the first millisecond whose {@link gamingDay} is a later day
 * (the cut-off hour of the next local date, DST included), found by bisection on {@link gamingDay}
 * itself so that the two can never disagree.
 * @param day `YYYY-MM-DD`
 * @returns ISO-8601 UTC instant (`…Z`)
 * @example gamingDayEnd('2025-02-28', { timeZone: 'UTC', cutoffHour: 6 }) // '2025-03-01T06:00:00.000Z'
 */
export function gamingDayEnd(day: string, cfg: GamingDayConfig = DEFAULT_GAMING_DAY): string {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  if (!Number.isFinite(midnight)) throw new ProjectionError('PROJECTION.MALFORMED_EVENT', `gaming day ${JSON.stringify(day)} is not YYYY-MM-DD`);
  let lo = midnight - 48 * 3_600_000; // in the day or before it, whatever the zone
  let hi = midnight + 72 * 3_600_000; // after it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (gamingDay(new Date(mid).toISOString(), cfg) > day) hi = mid;
    else lo = mid;
  }
  return new Date(hi).toISOString();
}
