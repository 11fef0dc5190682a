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
 * An ISO-8601 instant (as the API sends `occurredAt`, `recordedAt`) in the gaming day's zone:
 * `formatInstant("2026-12-01T23:30:00Z", "Europe/Malta")` → `"02/12/2026, 00:30:00 CET"`.
 * An empty or unreadable value is shown as `"–"`.
 */
export function formatInstant(iso: string | null | undefined, timeZone: string, withDate = true): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '–';
  return formatter(timeZone, withDate).format(new Date(t));
}
