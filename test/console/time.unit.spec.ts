import { formatInstant } from '../../apps/console/src/lib/time';

describe('console times in the gaming day zone', () => {
  it('shows an instant in the configured zone, not the machine one', () => {
    expect(formatInstant('2026-12-01T23:30:00Z', 'Europe/Malta')).toBe('02/12/2026, 00:30:00 CET');
    expect(formatInstant('2026-12-01T23:30:00Z', 'UTC')).toBe('01/12/2026, 23:30:00 UTC');
    expect(formatInstant('2026-07-01T10:00:00.123Z', 'Asia/Bangkok', false)).toBe('17:00:00 GMT+7');
  });
  it('shows a dash for a missing or unreadable time', () => {
    expect(formatInstant(null, 'UTC')).toBe('–');
    expect(formatInstant('yesterday-ish', 'UTC')).toBe('–');
  });
});
