import { gamingDay } from '@ledger/projections';
import { gamingDayWindow, ownEvents } from './close-clock-skew';

describe('gamingDayWindow: the instants whose gaming day is the day (the events the close reads the clock skew of)', () => {
  it.each([
    ['2026-12-07', { timeZone: 'UTC', cutoffHour: 6 }, '2026-12-07T06:00:00.000Z', '2026-12-08T06:00:00.000Z'],
    ['2026-03-29', { timeZone: 'Europe/Malta', cutoffHour: 6 }, '2026-03-29T04:00:00.000Z', '2026-03-30T04:00:00.000Z'],
    ['2026-11-01', { timeZone: 'America/Chicago', cutoffHour: 0 }, '2026-11-01T05:00:00.000Z', '2026-11-02T06:00:00.000Z'],
  ])('%s in %j: [%s, %s)', (day, rule, from, to) => {
    expect(gamingDayWindow(day, rule)).toEqual({ from, to });
    const before = new Date(Date.parse(from) - 1).toISOString();
    const last = new Date(Date.parse(to) - 1).toISOString();
    expect([gamingDay(before, rule) < day, gamingDay(from, rule), gamingDay(last, rule), gamingDay(to, rule) > day]).toEqual([true, day, day, true]);
  });

  it("keeps the ledger's own events by their outbox topic only where several ledgers share the database", () => {
    expect(ownEvents(null, 6)).toBe('');
    expect(ownEvents('test.topic', 6)).toContain('o.topic = $6');
  });
});
