import { formatInstant } from '../../apps/console/src/lib/time';

describe('console times in the gaming day zone', () => {
  it('shows an instant in the configured zone, not the machine one', () => {
    expect(formatInstant('2026-12-01T23:30:00Z', 'Europe/Malta')).toBe('2026-12-02 00:30:00 CET');
    expect(formatInstant('2026-12-01T23:30:00Z', 'UTC')).toBe('2026-12-01 23:30:00 UTC');
    expect(formatInstant('2026-07-01T10:00:00.123Z', 'Asia/Bangkok', false)).toBe('17:00:00 GMT+7');
  });
  it('writes the date as the API writes gaming days, whatever the locale', () => {
    expect(formatInstant('2026-03-05T06:07:08Z', 'UTC')).toMatch(/^2026-03-05 06:07:08 UTC$/);
  });
  it('shows a dash for a missing or unreadable time', () => {
    expect(formatInstant(null, 'UTC')).toBe('–');
    expect(formatInstant('yesterday-ish', 'UTC')).toBe('–');
  });
});
