/**
 * Raises and closes forged with thresholds of the forger's choosing (an adversarial review, where
 * `npm run -s verify` reported "divergences 0" for each): verify used to detect a raise again under
 * the thresholds or confidence the raise (or the close) states itself. It now uses the settings the
 * ledger attested in force at the cause (`ConfigurationAttested.significant`), or the configuration's
 * documented defaults where no attestation covers it (docs/significant-events.md, "What verify checks").
 */
import type { LedgerEvent } from '@ledger/events';
import { DEFAULT_SIGNIFICANT_SETTINGS } from '@ledger/significant-events';
import { closeFairnessMismatch, tableFairness } from './close-fairness';
import { foldDay, lookAtShoeClose, type FairnessEventRow } from './fairness-of-events';
import { outOfBoundsDrafts, outOfBoundsProblems } from './fairness-raise';
import { significantEventIdFor, significantEventIdOf, significantEventProblems, type CauseRecord, type SignificantEventRecord } from './significant-check';
import type { SqlSession } from './sql';
import { storedEvent } from './testing/stored-event';

const AT = '2026-12-07T12:00:00.000Z';

/** A stored cause with its event, on shoe S1 of T1 (occurred and recorded at `AT`: no skew). */
function cause(o: { id: string; type: string; actor: [string, string]; data: Record<string, unknown> }): CauseRecord {
  const event = storedEvent({ ...o, at: AT });
  return { type: o.type, streamId: 'shoe-S1', globalPosition: '40', actorId: o.actor[0], actorRole: o.actor[1], recordedAt: AT, event, dealerId: 'dealer-1', correction: null };
}

/** A raise of `code` with id `id` for cause `c` (named by `causeRef`), as the guarded append takes it from `ledger_app`. */
function raise(id: string, c: CauseRecord, causeRef: Record<string, unknown>, code: string, severity: string, data: Record<string, unknown>): SignificantEventRecord {
  return {
    eventId: id,
    type: 'SignificantEventRaised',
    streamId: `significant-${id}`,
    streamVersion: 1,
    globalPosition: '41',
    actorId: 'significant-event-monitor',
    actorRole: 'system',
    data: { significantEventId: id, code, severity, cause: causeRef, tableId: 'T1', shoeId: 'S1', dealerId: 'dealer-1', actor: c.actorId, ...data },
  };
}

const reasons = (events: SignificantEventRecord[], causes: [string, CauseRecord][]) => significantEventProblems(events, new Map(causes)).map((p) => p.reason);

describe('verify does not take the thresholds a raise states for its own', () => {
  it('reports a WIN.LARGE on a 13 EUR even-money win that states multiple 1/1 and amountMinor 1', () => {
    const WIN = '22222222-2222-4333-8444-555555555555';
    const win = cause({ id: WIN, type: 'BetSettled', actor: ['device-1', 'table-device'], data: { betId: 'B1', roundId: 'S1-R1', accountId: 'acct-1', currency: 'EUR', result: 'WIN', stake: '1300', winnings: '1300' } });
    const details = { betId: 'B1', accountId: 'acct-1', currency: 'EUR', stake: '1300', winnings: '1300', by: 'multiple,amount', multiple: '1/1', amountMinor: '1' };
    const forged = raise(significantEventIdOf(WIN, 'WIN.LARGE'), win, { eventId: WIN, globalPosition: '40', streamId: 'shoe-S1', eventType: 'BetSettled' }, 'WIN.LARGE', 'high', { roundId: 'S1-R1', details });
    expect(reasons([forged], [[WIN, win]])).toEqual(['it states thresholds multiple 1/1, amountMinor 1; the ones in force at its cause are 100/1, 1000000']);
  });

  it('reports a DEVICE.CLOCK_SKEW of -3600000 ms naming a CardDealt recorded when it occurred', () => {
    const CARD = '33333333-2222-4333-8444-555555555555';
    const dealt = cause({ id: CARD, type: 'CardDealt', actor: ['device-1', 'table-device'], data: { roundId: 'S1-R1', card: '9S', position: 'P1' } });
    const causeRef = { kind: 'event', eventId: CARD, globalPosition: '40', streamId: 'shoe-S1', eventType: 'CardDealt', window: { start: AT, seconds: 60, subject: 'table-device:device-1', count: 1 } };
    const details = { deviceId: 'device-1', skewMs: '-3600000', boundMs: '5000', count: '1', windowStart: AT, windowSeconds: '60' };
    const id = significantEventIdFor('DEVICE.CLOCK_SKEW', causeRef as never);
    const forged = raise(id, dealt, causeRef, 'DEVICE.CLOCK_SKEW', 'medium', { roundId: 'S1-R1', details });
    expect(reasons([forged], [[CARD, dealt]])).toEqual(["its cause's skew (recordedAt − occurredAt) is 0 ms, within the bound in force at it (5000 ms)"]);
  });

  it("passes a device's genuine skew and reports one whose window is not the flood window in force", () => {
    const CARD = '55555555-2222-4333-8444-555555555555';
    const late = cause({ id: CARD, type: 'CardDealt', actor: ['device-1', 'table-device'], data: { roundId: 'S1-R1', card: '9S', position: 'P1' } });
    const skewed = { ...late, event: { ...late.event!, occurredAt: '2026-12-07T11:58:00.000Z' } as LedgerEvent };
    const skewRaise = (seconds: number) => {
      const causeRef = { kind: 'event', eventId: CARD, globalPosition: '40', streamId: 'shoe-S1', eventType: 'CardDealt', window: { start: AT, seconds, subject: 'table-device:device-1', count: 1 } };
      const details = { deviceId: 'device-1', skewMs: '120000', boundMs: '5000', count: '1', windowStart: AT, windowSeconds: String(seconds) };
      return raise(significantEventIdFor('DEVICE.CLOCK_SKEW', causeRef as never), skewed, causeRef, 'DEVICE.CLOCK_SKEW', 'medium', { roundId: 'S1-R1', details });
    };
    expect(reasons([skewRaise(60)], [[CARD, skewed]])).toEqual([]);
    expect(reasons([skewRaise(3600)], [[CARD, skewed]])).toEqual(['its window of 3600 s is not the flood window in force at its cause (60 s)']);
  });
});

describe('CONFIG.SIGNIFICANT_SETTINGS_CHANGED computed again from the two stored attestations', () => {
  const ATT = '44444444-2222-4333-8444-555555555555';
  const base = { host: 'api-1', tables: [], paytables: [], keys: { anchors: [], reports: null, tokens: [] } };
  const previous = { eventId: 'prev-att', data: { ...base, significant: DEFAULT_SIGNIFICANT_SETTINGS } };
  const attestation = (significant: typeof DEFAULT_SIGNIFICANT_SETTINGS): CauseRecord => ({
    type: 'ConfigurationAttested',
    streamId: 'gaming-day-2026-12-07',
    globalPosition: '40',
    actorId: 'configuration-attestor',
    actorRole: 'system',
    configuration: { data: { ...base, significant }, previous },
  });
  const causeRef = { eventId: ATT, globalPosition: '40', streamId: 'gaming-day-2026-12-07', eventType: 'ConfigurationAttested' };
  const raised = (c: CauseRecord, changes: string) => {
    const r = raise(significantEventIdOf(ATT, 'CONFIG.SIGNIFICANT_SETTINGS_CHANGED'), c, causeRef, 'CONFIG.SIGNIFICANT_SETTINGS_CHANGED', 'high', { details: { changes, previousAttestation: 'prev-att' } });
    const { tableId: _t, shoeId: _s, dealerId: _d, ...data } = r.data;
    return { ...r, data };
  };

  it('passes the raise of a lowered threshold and reports one for an attestation that changed no setting', () => {
    const lowered = attestation({ ...DEFAULT_SIGNIFICANT_SETTINGS, winAmountMinor: '1' });
    expect(reasons([raised(lowered, 'winAmountMinor 1000000 → 1')], [[ATT, lowered]])).toEqual([]);
    const same = attestation(DEFAULT_SIGNIFICANT_SETTINGS);
    expect(reasons([raised(same, 'winAmountMinor 1000000 → 1')], [[ATT, same]])).toEqual([expect.stringMatching(/changed no significant since the previous attestation prev-att$/)]);
  });
});

/** A table's day: shoe S2 of dealer d-2 dealing Banker a natural in every round (12 of 12). */
const dayRow = (type: string, data: Record<string, unknown>) => ({ type, stream_id: 'shoe-S2', in_day: true, data, global_position: '1' });
const DAY_ROWS = [
  dayRow('ShoeOpened', { shoeId: 'S2', variant: 'classic', decks: 8, dealerId: 'd-2' }),
  ...Array.from({ length: 12 }, (_, i) => [
    dayRow('RoundOpened', { roundId: `B${i}` }),
    dayRow('BettingClosed', { roundId: `B${i}` }),
    dayRow('RoundResulted', { roundId: `B${i}`, outcome: { player: ['2S', '3H'], banker: ['9D', 'KC'] } }),
  ]).flat(),
];
const AS_FOLDED: FairnessEventRow[] = DAY_ROWS.map((r) => ({ type: r.type, streamId: r.stream_id, inDay: true, data: r.data }));

/** A session over the stored events of that day (no outbox row, no attestation, no alert raised). */
const session: SqlSession = {
  query: async (sql: string) => (sql.includes('e.type = ANY($2::text[])') ? DAY_ROWS : sql.includes('count(*)') ? [{ n: '0' }] : []),
};
const ABSURD = { numerator: 99999999999999999n, denominator: 100000000000000000n };
const dayRule = { timeZone: 'UTC', cutoffHour: 6 };

describe('verify does not take the confidence a close or an alert states for its own', () => {
  it('reports a close of layout 3 whose fairness is computed with confidence 99999999999999999/100000000000000000', async () => {
    const fairness = [tableFairness('T1', foldDay(AS_FOLDED), ABSURD, 0)];
    const body = { gamingDay: '2026-12-07', gamingDayRule: dayRule, tableIds: ['T1'], throughPosition: '100', fairness };
    expect(await closeFairnessMismatch(session, body, null)).toBe('its fairness states confidence 99999999999999999/100000000000000000; the one in force at its position is 95/100');
  });

  it('reports a STATISTICS.OUT_OF_BOUNDS computed with a confidence of 1/2', async () => {
    const half = { numerator: 1n, denominator: 2n };
    const look = lookAtShoeClose(foldDay(AS_FOLDED), { tableId: 'T1', shoeId: 'S2', confidence: half })!;
    const [draft] = outOfBoundsDrafts(look, { day: '2026-12-07', dayRule, confidence: half });
    const data = { code: 'STATISTICS.OUT_OF_BOUNDS', tableId: 'T1', shoeId: 'S2', details: draft.details };
    const close = { type: 'ShoeClosed', streamId: 'shoe-S2', tableId: 'T1', globalPosition: '100', recordedAt: AT };
    expect(await outOfBoundsProblems(session, { data }, close, new Map())).toEqual([
      'it states confidence 1/2; the one in force at its cause is 95/100',
      expect.stringMatching(/^its details are not those the events give for scope shoe:S2/),
    ]);
  });
});
