/**
 * Step 7 of `npm run -s verify` against raises an insider with the API's database login appends
 * before the monitor does (or for a cause the monitor never raises): verify detects each raise again
 * from its stored cause, so a raise that leaves out the decision's managers (to let the requesting
 * manager acknowledge it), claims amounts, a dealer or a table its cause does not give, or raises a
 * kind its cause does not raise, is reported. Found by an adversarial review, where verify reported
 * "divergences 0" for each.
 */
import type { LedgerEvent } from '@ledger/events';
import { DEFAULT_SIGNIFICANT_SETTINGS } from '@ledger/significant-events';
import { significantEventIdOf, significantEventProblems, type CauseRecord, type SignificantEventRecord } from './significant-check';
import { settingsInForce } from './significant-settings';
import { storedEvent } from './testing/stored-event';

const AT = '2026-12-07T12:00:00.000Z';
/** The settings the ledger attested before the causes (at position 7): large wins from 1,000 minor units. */
const ATTESTED = settingsInForce([{ eventId: 'attestation-1', globalPosition: '7', topic: null, settings: { ...DEFAULT_SIGNIFICANT_SETTINGS, winAmountMinor: '1000' } }], '40');

/** A stored cause with its event (what verify reads), on shoe S1 of T1, dealt by `dealer-1`. */
function cause(o: { id: string; type: string; actor: [string, string]; data: Record<string, unknown>; correction?: CauseRecord['correction'] }): CauseRecord {
  const event = storedEvent({ ...o, at: AT });
  return { type: o.type, streamId: 'shoe-S1', globalPosition: '40', actorId: o.actor[0], actorRole: o.actor[1], event, dealerId: 'dealer-1', correction: o.correction ?? null, inForce: ATTESTED };
}

/** A raise of `code` for cause `c` (id as the monitor derives it), with `data` over the fields the monitor writes. */
function raise(causeId: string, c: CauseRecord, code: string, data: Record<string, unknown>): SignificantEventRecord {
  const id = significantEventIdOf(causeId, code);
  return {
    eventId: id,
    type: 'SignificantEventRaised',
    streamId: `significant-${id}`,
    streamVersion: 1,
    globalPosition: '41',
    actorId: 'significant-event-monitor',
    actorRole: 'system',
    data: {
      significantEventId: id,
      code,
      severity: code === 'DEVICE.CLOCK_SKEW' ? 'medium' : 'high',
      cause: { eventId: causeId, globalPosition: '40', streamId: 'shoe-S1', eventType: c.type },
      tableId: 'T1',
      shoeId: 'S1',
      dealerId: 'dealer-1',
      actor: c.actorId,
      ...data,
    },
  };
}

const CORRECTION_ID = '11111111-2222-4333-8444-555555555555';
const correction = cause({
  id: CORRECTION_ID,
  type: 'ResultCorrected',
  actor: ['pm-appr', 'pit-manager'],
  data: { roundId: 'S1-R1', previousOutcome: { winner: 'BANKER' }, outcome: { winner: 'PLAYER' }, decision: { actingManagerId: 'pm-req', approverId: 'pm-appr', reason: 'misread', compensates: 'x' } },
});
const WIN_ID = '22222222-2222-4333-8444-555555555555';
const win = (over: Record<string, unknown> = {}) =>
  cause({ id: WIN_ID, type: 'BetSettled', actor: ['device-1', 'table-device'], data: { betId: 'B1', roundId: 'S1-R1', accountId: 'acct-1', currency: 'EUR', result: 'WIN', stake: '1600', winnings: '1600', ...over } });
const WIN_DETAILS = { betId: 'B1', accountId: 'acct-1', currency: 'EUR', stake: '1600', winnings: '1600', by: 'amount', multiple: '100/1', amountMinor: '1000' };
const reasons = (events: SignificantEventRecord[], causes: [string, CauseRecord][]) => significantEventProblems(events, new Map(causes)).map((p) => p.reason);

describe('verify detects each raise again from its stored cause', () => {
  it('passes the raise the monitor writes', () => {
    const genuine = raise(CORRECTION_ID, correction, 'RESULT.CORRECTED', { roundId: 'S1-R1', details: { from: 'BANKER', to: 'PLAYER', actingManagerId: 'pm-req', approverId: 'pm-appr' } });
    expect(reasons([genuine], [[CORRECTION_ID, correction]])).toEqual([]);
    const large = raise(WIN_ID, win(), 'WIN.LARGE', { roundId: 'S1-R1', details: WIN_DETAILS });
    expect(reasons([large], [[WIN_ID, win()]])).toEqual([]);
  });

  it("reports a correction's raise that leaves out its managers (so its requester could acknowledge it)", () => {
    const forged = raise(CORRECTION_ID, correction, 'RESULT.CORRECTED', { roundId: 'S1-R1', details: { from: 'BANKER', to: 'PLAYER' } });
    expect(reasons([forged], [[CORRECTION_ID, correction]])).toEqual([expect.stringMatching(/^its details .* are not what its cause gives/)]);
  });

  it('reports a large win whose amounts, account or dealer are not its cause’s, or that states no thresholds', () => {
    const claims = raise(WIN_ID, win(), 'WIN.LARGE', { roundId: 'S1-R1', details: { ...WIN_DETAILS, winnings: '987654321', accountId: 'acct-framed' } });
    expect(reasons([claims], [[WIN_ID, win()]])).toEqual([expect.stringMatching(/^its details/)]);
    const framed = raise(WIN_ID, win(), 'WIN.LARGE', { roundId: 'S1-R1', dealerId: 'dealer-framed', details: WIN_DETAILS });
    expect(reasons([framed], [[WIN_ID, win()]])).toEqual(["its dealer dealer-framed is not the shoe's dealer at its cause, dealer-1"]);
    const { multiple: _m, amountMinor: _a, ...unstated } = WIN_DETAILS;
    expect(reasons([raise(WIN_ID, win(), 'WIN.LARGE', { roundId: 'S1-R1', details: unstated })], [[WIN_ID, win()]])).toEqual([
      'it states thresholds multiple undefined, amountMinor undefined; the ones in force at its cause are 100/1, 1000',
    ]);
  });

  it('reports a large win stating other thresholds than the attested ones, or its cause does not reach under them', () => {
    const under = raise(WIN_ID, win(), 'WIN.LARGE', { roundId: 'S1-R1', details: { ...WIN_DETAILS, amountMinor: '1000000' } });
    expect(reasons([under], [[WIN_ID, win()]])).toEqual(['it states thresholds multiple 100/1, amountMinor 1000000; the ones in force at its cause are 100/1, 1000']);
    const lost = win({ result: 'LOSE', winnings: '0' });
    expect(reasons([raise(WIN_ID, lost, 'WIN.LARGE', { roundId: 'S1-R1', details: WIN_DETAILS })], [[WIN_ID, lost]])).toEqual(['its cause BetSettled does not raise WIN.LARGE under the thresholds in force at it']);
    // without an attestation covering the cause: the configuration's defaults (1,000,000 minor units)
    const unattested = { ...win(), inForce: undefined };
    expect(reasons([raise(WIN_ID, unattested, 'WIN.LARGE', { roundId: 'S1-R1', details: WIN_DETAILS })], [[WIN_ID, unattested]])).toEqual([
      'it states thresholds multiple 100/1, amountMinor 1000; the ones in force at its cause are 100/1, 1000000',
    ]);
  });

  it("reports a resettlement's large win that leaves out the managers of the correction it carries out", () => {
    const resettled = cause({
      id: WIN_ID,
      type: 'BetResettled',
      actor: ['pm-appr', 'pit-manager'],
      data: { betId: 'B1', roundId: 'S1-R1', accountId: 'acct-1', currency: 'EUR', result: 'WIN', stake: '1600', winnings: '1600', compensates: 'y' },
      correction: { actingManagerId: 'pm-req', approverId: 'pm-appr' },
    });
    const named = raise(WIN_ID, resettled, 'WIN.LARGE', { roundId: 'S1-R1', details: { ...WIN_DETAILS, actingManagerId: 'pm-req', approverId: 'pm-appr' } });
    expect(reasons([named], [[WIN_ID, resettled]])).toEqual([]);
    const unnamed = raise(WIN_ID, resettled, 'WIN.LARGE', { roundId: 'S1-R1', details: WIN_DETAILS });
    expect(reasons([unnamed], [[WIN_ID, resettled]])).toEqual([expect.stringMatching(/^its details/)]);
  });
});
