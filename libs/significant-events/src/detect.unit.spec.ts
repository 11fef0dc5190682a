import type { LedgerEvent, LedgerEventType } from '@ledger/events';
import { causeMayRaise, clockSkewProblems, detectAgain, detectSignificantEvents, detectionThresholds } from './detect';

const T = detectionThresholds({ SIGNIFICANT_WIN_MULTIPLE: '100/1', SIGNIFICANT_WIN_AMOUNT_MINOR: '1000000', OCCURRED_AT_MAX_SKEW_MS: 5000 });
const AT = '2026-12-07T12:00:00.000Z';

/** A stored event of `type` with `data` (the envelope's other fields fixed). */
function ev(type: LedgerEventType, data: Record<string, unknown>, over: Partial<{ role: string; occurredAt: string }> = {}): LedgerEvent {
  return {
    eventId: '00000000-0000-4000-8000-000000000001',
    type,
    schemaVersion: 1,
    streamId: 'shoe-S1',
    streamVersion: 7,
    globalPosition: '42',
    tableId: 'T1',
    occurredAt: over.occurredAt ?? AT,
    recordedAt: AT,
    actor: { id: 'who', role: over.role ?? 'system' },
    correlationId: 'c',
    causationId: 'c',
    prevHash: '0'.repeat(64),
    hash: '1'.repeat(64),
    data,
  } as unknown as LedgerEvent;
}
const codes = (e: LedgerEvent) => detectSignificantEvents(e, T).map((d) => d.code);
const settled = (stake: string, winnings: string, result = 'WIN') => ev('BetSettled', { betId: 'b', roundId: 'r', accountId: 'a', currency: 'EUR', result, stake, winnings });
const decision = { reason: 'why', actingManagerId: 'm1', approverId: 'm2', compensates: 'x' };
const outcome = { winner: 'PLAYER' };

describe('detectSignificantEvents (docs/significant-events.md)', () => {
  it('raises a round voided, but not a round voided with its shoe', () => {
    expect(detectSignificantEvents(ev('RoundVoided', { roundId: 'r1', cause: 'MANAGEMENT', decision, causedBy: null }), T)).toEqual([
      { code: 'ROUND.VOIDED', severity: 'medium', roundId: 'r1', details: { cause: 'MANAGEMENT', actingManagerId: 'm1', approverId: 'm2' } },
    ]);
    expect(codes(ev('RoundVoided', { roundId: 'r1', cause: 'EXPOSED_CARD', decision: null, causedBy: 'e' }))).toEqual(['ROUND.VOIDED']);
    expect(codes(ev('RoundVoided', { roundId: 'r1', cause: 'SHOE_VOIDED', decision, causedBy: null }))).toEqual([]);
  });

  it('raises a result corrected, a shoe voided and a commencement corrected', () => {
    expect(detectSignificantEvents(ev('ResultCorrected', { roundId: 'r2', previousOutcome: outcome, outcome: { winner: 'BANKER' }, decision }), T)).toEqual([
      { code: 'RESULT.CORRECTED', severity: 'high', roundId: 'r2', details: { from: 'PLAYER', to: 'BANKER', actingManagerId: 'm1', approverId: 'm2' } },
    ]);
    expect(detectSignificantEvents(ev('ShoeVoided', { decision, roundIds: ['a', 'b'] }), T)).toEqual([{ code: 'SHOE.VOIDED_BY_DECISION', severity: 'high', details: { rounds: '2', actingManagerId: 'm1', approverId: 'm2' } }]);
    expect(codes(ev('CommencementCorrected', { card: 'TH', burnCount: 10, reason: 'why', compensates: 'x' }))).toEqual(['COMMENCEMENT.CORRECTED']);
  });

  it('raises an early gaming-day close, never a close at the end of the day', () => {
    const close = { gamingDay: '2026-12-07', tableIds: ['T1'], throughPosition: '9', reportSha256: 'a', signature: 's', keyId: 'k', trigger: 'MANAGER' };
    expect(codes(ev('GamingDayClosed', { ...close, early: { requestId: 'q', reason: 'storm', requestedBy: 'm1', approvedBy: 'm2' } }))).toEqual(['GAMING_DAY.CLOSED_EARLY']);
    expect(codes(ev('GamingDayClosed', close))).toEqual([]);
  });

  it('raises a large win at either threshold exactly, in integers, and not one unit below', () => {
    expect(codes(settled('1000', '100000'))).toEqual(['WIN.LARGE']); // 100:1 exactly
    expect(codes(settled('1000', '99999'))).toEqual([]); // one unit under 100:1, under the amount
    expect(codes(settled('100000', '1000000'))).toEqual(['WIN.LARGE']); // the amount exactly, 10:1
    expect(codes(settled('100000', '999999'))).toEqual([]);
    expect(codes(settled('1000', '100000', 'LOSE'))).toEqual([]);
    expect(detectSignificantEvents(settled('1', '123456789012345678901234567890'), T)[0].details).toEqual({
      betId: 'b',
      accountId: 'a',
      currency: 'EUR',
      stake: '1',
      winnings: '123456789012345678901234567890',
      by: 'multiple,amount',
      multiple: '100/1',
      amountMinor: '1000000',
    });
    const resettled = ev('BetResettled', { betId: 'b', roundId: 'r', accountId: 'a', currency: 'EUR', result: 'WIN', stake: '10', winnings: '1000', compensates: 'x' });
    expect(codes(resettled)).toEqual(['WIN.LARGE']);
    // a resettlement carries out a correction: its large win names the correction's two managers
    expect(detectSignificantEvents(resettled, T, { correction: { actingManagerId: 'm1', approverId: 'm2' } })[0].details).toMatchObject({ actingManagerId: 'm1', approverId: 'm2' });
    expect(detectSignificantEvents(settled('10', '1000'), T, { correction: { actingManagerId: 'm1', approverId: 'm2' } })[0].details).not.toHaveProperty('actingManagerId');
    // verify detects it again under the thresholds in force, never the ones a raise states
    const again = (details: Record<string, string>) => detectAgain({ code: 'WIN.LARGE', details, event: resettled, ctx: {}, inForce: T });
    expect(again(detectSignificantEvents(resettled, T)[0].details)).toMatchObject({ draft: { code: 'WIN.LARGE' } });
    expect(again({ multiple: '1/1', amountMinor: '1' })).toEqual({ problem: expect.stringContaining('the ones in force at its cause are 100/1, 1000000') });
    const ratio = detectionThresholds({ SIGNIFICANT_WIN_MULTIPLE: '201/2', SIGNIFICANT_WIN_AMOUNT_MINOR: '1000000', OCCURRED_AT_MAX_SKEW_MS: 5000 });
    expect(detectSignificantEvents(settled('2', '201'), ratio).length).toBe(1);
    expect(detectSignificantEvents(settled('2', '200'), ratio).length).toBe(0);
  });

  it("raises a table device's clock skew beyond the bound either way, not at it, and not for other roles", () => {
    const dealt = (occurredAt: string, role = 'table-device') => ev('CardDealt', { roundId: 'r', position: 'P1', card: '9S' }, { occurredAt, role });
    expect(detectSignificantEvents(dealt('2026-12-07T11:59:54.999Z'), T)).toEqual([{ code: 'DEVICE.CLOCK_SKEW', severity: 'medium', roundId: 'r', details: { deviceId: 'who', skewMs: '5001', boundMs: '5000' } }]);
    expect(codes(dealt('2026-12-07T11:59:55.000Z'))).toEqual([]);
    expect(codes(dealt('2026-12-07T12:00:05.001Z'))).toEqual(['DEVICE.CLOCK_SKEW']);
    expect(codes(dealt('2026-12-07T11:00:00.000Z', 'betting-platform'))).toEqual([]);
    expect(codes(ev('CardExposed', { roundId: null, card: '9S', phase: 'COMMENCEMENT' }, { occurredAt: '2026-12-07T11:00:00.000Z', role: 'table-device' }))).toEqual(['CARD.EXPOSED', 'DEVICE.CLOCK_SKEW']);
    // verify computes the skew again from the stored cause's clocks
    expect(clockSkewProblems({ deviceId: 'who', skewMs: '5001', boundMs: '5000' }, dealt('2026-12-07T11:59:54.999Z'), T)).toEqual([]);
    expect(clockSkewProblems({ deviceId: 'who', skewMs: '-3600000', boundMs: '5000' }, dealt('2026-12-07T11:59:54.999Z'), T)).toEqual(["its skewMs -3600000 is not its cause's 5001"]);
    expect(clockSkewProblems({ deviceId: 'who', skewMs: '-3600000', boundMs: '5000' }, dealt('2026-12-07T12:00:00.000Z'), T)).toEqual([expect.stringContaining('is 0 ms, within the bound')]);
  });

  it('raises the card kinds and nothing for ordinary facts or its own types', () => {
    expect(codes(ev('CardDropped', { roundId: null, card: null, phase: 'SHUFFLE', exposedBeforeLeavingView: false }))).toEqual(['CARD.DROPPED']);
    expect(codes(ev('UnneededCardDrawn', { roundId: 'r', card: '2C' }))).toEqual(['CARD.UNNEEDED']);
    expect(codes(ev('CardDealt', { roundId: 'r', position: 'P1', card: '9S' }))).toEqual([]);
    expect(codes(ev('SignificantEventRaised', { code: 'ROUND.VOIDED' }, { role: 'table-device', occurredAt: '2020-01-01T00:00:00.000Z' }))).toEqual([]);
    expect(codes(ev('SignificantEventAcknowledged', { code: 'WIN.LARGE' }))).toEqual([]);
  });

  it('refuses malformed thresholds', () => {
    expect(() => detectionThresholds({ SIGNIFICANT_WIN_MULTIPLE: '0.5', SIGNIFICANT_WIN_AMOUNT_MINOR: '1', OCCURRED_AT_MAX_SKEW_MS: 1 })).toThrow('is not a ratio');
    expect(() => detectionThresholds({ SIGNIFICANT_WIN_MULTIPLE: '1', SIGNIFICANT_WIN_AMOUNT_MINOR: '1.5', OCCURRED_AT_MAX_SKEW_MS: 1 })).toThrow('minor units');
  });

  it('says which causes may raise a code (what verify asks of a raise)', () => {
    expect(causeMayRaise('WIN.LARGE', 'BetResettled', 'system')).toBe(true);
    expect(causeMayRaise('WIN.LARGE', 'ResultCorrected', 'pit-manager')).toBe(false);
    expect(causeMayRaise('DEVICE.CLOCK_SKEW', 'CardDealt', 'table-device')).toBe(true);
    expect(causeMayRaise('DEVICE.CLOCK_SKEW', 'BetPlaced', 'betting-platform')).toBe(false);
  });
});
