import type { LedgerEvent } from '@ledger/events';
import { analyticsRecordsOfEvents } from '@ledger/read-model';
import { assertGamingDayConfig, gamingDay, gamingDayConfigFromEnv, gamingDayEnd } from './gaming-day';
import { smallShoe } from './testing/small-shoe.fixture';

describe('gaming day', () => {
  const utc6 = { timeZone: 'UTC', cutoffHour: 6 };

  it('before the cut-off hour a round belongs to the previous date', () => {
    expect(gamingDay('2025-03-01T05:59:59.999Z', utc6)).toBe('2025-02-28');
    expect(gamingDay('2025-03-01T06:00:00.000Z', utc6)).toBe('2025-03-01');
    expect(gamingDay('2025-03-01T23:59:59Z', utc6)).toBe('2025-03-01');
  });

  it('crosses month and year ends', () => {
    expect(gamingDay('2025-01-01T02:00:00Z', utc6)).toBe('2024-12-31');
    expect(gamingDay('2024-03-01T05:00:00Z', utc6)).toBe('2024-02-29'); // leap year
  });

  it('uses the local wall clock of the configured time zone', () => {
    const bkk = { timeZone: 'Asia/Bangkok', cutoffHour: 6 }; // UTC+7
    expect(gamingDay('2025-03-01T22:30:00Z', bkk)).toBe('2025-03-01'); // 05:30 on the 2nd, Bangkok
    expect(gamingDay('2025-03-01T23:00:00Z', bkk)).toBe('2025-03-02'); // 06:00 on the 2nd
    expect(gamingDay('2025-03-01T12:00:00+07:00', bkk)).toBe('2025-03-01');
  });

  it('is right on a DST change day (local clock, not "instant minus N hours")', () => {
    // Malta: 2025-03-30 02:00 CET → 03:00 CEST. 06:30 local (04:30Z) is after the cut-off.
    const mt = { timeZone: 'Europe/Malta', cutoffHour: 6 };
    expect(gamingDay('2025-03-30T04:30:00Z', mt)).toBe('2025-03-30');
    expect(gamingDay('2025-03-30T03:30:00Z', mt)).toBe('2025-03-29'); // 05:30 local
  });

  it('cut-off 0 means calendar days', () => {
    expect(gamingDay('2025-03-01T00:00:00Z', { timeZone: 'UTC', cutoffHour: 0 })).toBe('2025-03-01');
  });

  it('reads GAMING_DAY_TZ and GAMING_DAY_CUTOFF_HOUR with defaults UTC and 6, refusing bad values', () => {
    expect(gamingDayConfigFromEnv({})).toEqual({ timeZone: 'UTC', cutoffHour: 6 });
    expect(gamingDayConfigFromEnv({ GAMING_DAY_TZ: 'Asia/Bangkok', GAMING_DAY_CUTOFF_HOUR: '5' })).toEqual({ timeZone: 'Asia/Bangkok', cutoffHour: 5 });
    expect(() => gamingDayConfigFromEnv({ GAMING_DAY_TZ: 'Mars/Olympus' })).toThrow(expect.objectContaining({ code: 'PROJECTION.BAD_CONFIG' }));
    expect(() => gamingDayConfigFromEnv({ GAMING_DAY_CUTOFF_HOUR: '24' })).toThrow(expect.objectContaining({ code: 'PROJECTION.BAD_CONFIG' }));
    expect(() => assertGamingDayConfig({ timeZone: 'UTC', cutoffHour: 1.5 })).toThrow(/cut-off/);
  });

  it('refuses a recordedAt that is not an instant', () => {
    expect(() => gamingDay('yesterday', utc6)).toThrow(expect.objectContaining({ code: 'PROJECTION.MALFORMED_EVENT' }));
  });

  describe("a round's gaming day follows the ledger's recordedAt, never the client's occurredAt (docs/domain-rules.md §7)", () => {
    /** The gaming days of the round-outcome records of R1 when its RoundOpened says `times`. */
    async function r1Days(times: Partial<Pick<LedgerEvent, 'occurredAt' | 'recordedAt'>>): Promise<string[]> {
      const fx = smallShoe({ shoeId: 'gd-1' });
      const events = fx.events.map((e) => (e.type === 'RoundOpened' && (e.data as { roundId: string }).roundId === 'gd-1-R1' ? ({ ...e, ...times } as LedgerEvent) : e));
      const records = await analyticsRecordsOfEvents(events);
      return records
        .filter((r) => r.kind === 'round-outcome')
        .map((r) => JSON.parse(r.value) as { roundId: string; gamingDay: string })
        .filter((v) => v.roundId === 'gd-1-R1')
        .map((v) => v.gamingDay);
    }

    it('R1 was recorded at 05:50:00.250 on 2025-03-01: gaming day 2025-02-28, whatever occurredAt a device claims', async () => {
      expect(await r1Days({})).toEqual(['2025-02-28']);
      // a device claiming the round happened days earlier (a day already reconciled), or later the same day
      expect(await r1Days({ occurredAt: '2025-02-20T12:00:00.000Z' })).toEqual(['2025-02-28']);
      expect(await r1Days({ occurredAt: '2025-03-01T12:00:00.000Z' })).toEqual(['2025-02-28']);
    });

    it('the same round recorded after the cut-off belongs to 2025-03-01', async () => {
      expect(await r1Days({ recordedAt: '2025-03-01T06:00:00.000Z' })).toEqual(['2025-03-01']);
    });
  });
});

describe('gamingDayEnd: the first instant of the next gaming day', () => {
  it('is the cut-off of the next local date, across a DST change too, and agrees with gamingDay', () => {
    expect(gamingDayEnd('2025-02-28', { timeZone: 'UTC', cutoffHour: 6 })).toBe('2025-03-01T06:00:00.000Z');
    // Europe/Malta leaves winter time on 2025-03-30 at 02:00 local: the 06:00 cut-off of 03-30 is 04:00Z
    expect(gamingDayEnd('2025-03-29', { timeZone: 'Europe/Malta', cutoffHour: 6 })).toBe('2025-03-30T04:00:00.000Z');
    expect(gamingDayEnd('2025-03-30', { timeZone: 'Europe/Malta', cutoffHour: 6 })).toBe('2025-03-31T04:00:00.000Z');
    for (const [day, cfg] of [
      ['2025-10-26', { timeZone: 'Europe/Malta', cutoffHour: 6 }],
      ['2025-06-01', { timeZone: 'Asia/Macau', cutoffHour: 0 }],
    ] as const) {
      const end = Date.parse(gamingDayEnd(day, cfg));
      expect(gamingDay(new Date(end - 1).toISOString(), cfg)).toBe(day);
      expect(gamingDay(new Date(end).toISOString(), cfg) > day).toBe(true);
    }
  });
});
