import { gamingDayOf, isoToZoned, zonedToIso, zoneOffsetMs } from '../../apps/console/src/lib/zoned';

describe('gaming-day zone wall times', () => {
  it('converts a Malta wall time to UTC in winter and summer', () => {
    expect(zonedToIso('2026-12-02T09:30', 'Europe/Malta')).toBe('2026-12-02T08:30:00.000Z');
    expect(zonedToIso('2026-07-01T09:30:15', 'Europe/Malta')).toBe('2026-07-01T07:30:15.000Z');
    expect(zonedToIso('2026-12-02T09:30', 'UTC')).toBe('2026-12-02T09:30:00.000Z');
    expect(zonedToIso('2026-12-02T09:30', 'America/New_York')).toBe('2026-12-02T14:30:00.000Z');
  });

  it('crosses the DST change (Malta, 2026-03-29 02:00 → 03:00)', () => {
    expect(zonedToIso('2026-03-29T01:30', 'Europe/Malta')).toBe('2026-03-29T00:30:00.000Z');
    expect(zonedToIso('2026-03-29T03:30', 'Europe/Malta')).toBe('2026-03-29T01:30:00.000Z');
    expect(zoneOffsetMs(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Malta')).toBe(7_200_000);
  });

  it('round-trips and refuses what is not a wall time', () => {
    expect(isoToZoned('2026-12-02T08:30:00.000Z', 'Europe/Malta')).toBe('2026-12-02T09:30');
    expect(isoToZoned(zonedToIso('2026-07-01T23:59', 'Asia/Tokyo'), 'Asia/Tokyo')).toBe('2026-07-01T23:59');
    expect(zonedToIso('', 'UTC')).toBeNull();
    expect(zonedToIso('2026-12-02 09:30', 'UTC')).toBeNull();
    expect(isoToZoned('nope', 'UTC')).toBe('');
  });
});

describe('the gaming day of an instant', () => {
  it('is the zone date, or the previous one before the cut-off hour', () => {
    const utc6 = { timeZone: 'UTC', cutoffHour: 6 };
    expect(gamingDayOf(Date.parse('2026-12-02T04:00:00Z'), utc6)).toBe('2026-12-01');
    expect(gamingDayOf(Date.parse('2026-12-02T06:00:00Z'), utc6)).toBe('2026-12-02');
    const malta = { timeZone: 'Europe/Malta', cutoffHour: 6 };
    // 05:30 UTC is 06:30 in Malta in winter: past the cut-off
    expect(gamingDayOf(Date.parse('2026-12-02T05:30:00Z'), malta)).toBe('2026-12-02');
    expect(gamingDayOf(Date.parse('2026-12-02T04:30:00Z'), malta)).toBe('2026-12-01');
    // midnight cut-off: the calendar date of the zone
    expect(gamingDayOf(Date.parse('2026-12-01T23:30:00Z'), { timeZone: 'Europe/Malta', cutoffHour: 0 })).toBe('2026-12-02');
  });
});
