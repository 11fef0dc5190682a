import type { NewEvent } from '@ledger/events';
import { DomainError } from '../errors';
import { fold } from '../evolve';
import { betSettlement } from '../state';
import { bet, counterIds, readyTable, Table } from '../shoe-fixtures.spec';
import { decideDecision, decisionStatusAt, findDecision, type DecisionCommand } from './decisions';

const T0 = '2026-12-01T10:00:00.000Z';
const LATER = '2026-12-01T10:10:00.000Z';
const EXPIRY = '2026-12-01T10:30:00.000Z';
const AFTER_EXPIRY = '2026-12-01T10:31:00.000Z';

/** Round R1 (dealer D1) with a PLAYER and a BANKER bet, resulted: Player 9 (natural) against Banker 5. */
function resulted(): Table {
  const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n, 'A1'), bet('B2', 'BANKER', 1000n, 'A2')]);
  t.deal('R1', '9S 2H KD 3C');
  return t;
}

/** Runs a decision command on the table (appending its events), like a handler would. */
function run(t: Table, cmd: DecisionCommand): NewEvent[] {
  const out = decideDecision(t.state, cmd, t.ctx);
  t.events.push(...out);
  t.state = fold(out, t.state);
  return out;
}

function refused(t: Table, cmd: DecisionCommand): string {
  try {
    decideDecision(t.state, cmd, counterIds('x'));
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  throw new Error(`expected ${cmd.type} to be refused`);
}

const requestVoid = (decisionId = 'DEC1', requestedBy = 'PM1', roundId = 'R1'): DecisionCommand => ({
  type: 'RequestDecision',
  decisionId,
  request: { kind: 'VOID_ROUND', roundId },
  reason: 'card exposed on camera',
  requestedBy,
  expiresAt: EXPIRY,
});
const approve = (approvedBy: string, now = LATER, decisionId = 'DEC1'): DecisionCommand => ({ type: 'ApproveDecision', decisionId, approvedBy, reason: null, now });

describe('four-eyes decisions (docs/domain-rules.md §6)', () => {
  it('Given a resulted round, When PM1 requests a void, Then only DecisionRequested is recorded with the bets it would refund, and nothing is voided', () => {
    const t = resulted();
    const events = run(t, requestVoid());
    expect(events.map((e) => e.type)).toEqual(['DecisionRequested']);
    expect(events[0].data).toMatchObject({
      decisionId: 'DEC1',
      proposal: { kind: 'VOID_ROUND', roundId: 'R1', cards: null, card: null },
      requestedBy: 'PM1',
      expiresAt: EXPIRY,
      roundIds: ['R1'],
      dealerIds: ['D1'],
    });
    const affected = (events[0].data as unknown as { affectedBets: { betId: string; effect: string; payoutAfter: string }[] }).affectedBets;
    expect(affected.map((b) => [b.betId, b.effect, b.payoutAfter])).toEqual([
      ['B1', 'REFUND', '1000'],
      ['B2', 'REFUND', '1000'],
    ]);
    expect(t.state.rounds[0].phase).toBe('RESULTED');
    expect(findDecision(t.state, 'DEC1')?.status).toBe('PENDING_APPROVAL');
  });

  it("evidence (docs/reports.md §7): the request's evidence is recorded on DecisionRequested and carried onto the void; the approver's on DecisionApproved; none given, no key", () => {
    const evidence = { cameraId: 'CAM-07', timecode: '21:04:10:12' };
    const t = resulted();
    const [requested] = run(t, { ...(requestVoid() as Extract<DecisionCommand, { type: 'RequestDecision' }>), evidence });
    expect(requested.data).toMatchObject({ evidence });
    const approverEvidence = { segmentRef: 'vms://cam-07/clip-42' };
    const events = run(t, { ...(approve('PM2') as Extract<DecisionCommand, { type: 'ApproveDecision' }>), evidence: approverEvidence });
    expect(events[0].data).toEqual({ decisionId: 'DEC1', approvedBy: 'PM2', requestedBy: 'PM1', reason: null, evidence: approverEvidence });
    expect((events[1].data as { decision: unknown }).decision).toEqual({ reason: 'card exposed on camera', actingManagerId: 'PM1', approverId: 'PM2', compensates: expect.any(String), decisionId: 'DEC1', evidence });
    // without evidence: no `evidence` key anywhere (the bytes, and so the hashes, of events as before)
    const u = resulted();
    const [plain] = run(u, requestVoid());
    const after = run(u, approve('PM2'));
    expect(Object.keys(plain.data)).not.toContain('evidence');
    expect(Object.keys(after[0].data)).not.toContain('evidence');
    expect(Object.keys((after[1].data as { decision: object }).decision)).not.toContain('evidence');
  });

  it('When a second manager approves, Then DecisionApproved is followed by the void naming the decision and both managers', () => {
    const t = resulted();
    run(t, requestVoid());
    const events = run(t, approve('PM2'));
    expect(events.map((e) => e.type)).toEqual(['DecisionApproved', 'RoundVoided', 'BetRefunded', 'BetRefunded']);
    expect(events[0].data).toEqual({ decisionId: 'DEC1', approvedBy: 'PM2', requestedBy: 'PM1', reason: null });
    expect(events[1].data).toMatchObject({
      roundId: 'R1',
      cause: 'MANAGEMENT',
      decision: { reason: 'card exposed on camera', actingManagerId: 'PM1', approverId: 'PM2', decisionId: 'DEC1' },
    });
    expect(t.state.rounds[0].phase).toBe('VOIDED');
    expect(betSettlement(t.state.rounds[0], 'B1')?.kind).toBe('REFUNDED');
    expect(findDecision(t.state, 'DEC1')?.status).toBe('APPROVED');
  });

  it('When the requester approves their own request, Then it is refused and nothing changes', () => {
    const t = resulted();
    run(t, requestVoid());
    expect(refused(t, approve('PM1'))).toBe('MANAGEMENT.SAME_APPROVER');
    expect(t.state.rounds[0].phase).toBe('RESULTED');
  });

  it('When the dealer of the round requests or approves, Then it is refused', () => {
    const t = resulted();
    expect(refused(t, requestVoid('DEC1', 'D1'))).toBe('MANAGEMENT.DEALER_CANNOT_DECIDE');
    run(t, requestVoid());
    expect(refused(t, approve('D1'))).toBe('MANAGEMENT.DEALER_CANNOT_DECIDE');
  });

  it('Given R1 dealt by D1 and the dealer changed to D2, When D1 requests or approves a shoe void, Then it is refused (every round of the shoe counts)', () => {
    const t = resulted();
    t.run({ type: 'ChangeDealer', dealerId: 'D2' });
    const voidShoe = (decisionId: string, requestedBy: string): DecisionCommand => ({
      type: 'RequestDecision',
      decisionId,
      request: { kind: 'VOID_SHOE' },
      reason: 'shoe compromised',
      requestedBy,
      expiresAt: EXPIRY,
    });
    expect(refused(t, voidShoe('DEC2', 'D1'))).toBe('MANAGEMENT.DEALER_CANNOT_DECIDE');
    expect(refused(t, voidShoe('DEC2', 'D2'))).toBe('MANAGEMENT.DEALER_CANNOT_DECIDE');
    run(t, voidShoe('DEC2', 'PM1'));
    expect(refused(t, approve('D1', LATER, 'DEC2'))).toBe('MANAGEMENT.DEALER_CANNOT_DECIDE');
    const events = run(t, approve('PM2', LATER, 'DEC2'));
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(['DecisionApproved', 'ShoeVoided', 'RoundVoided']);
  });

  it('When the request is past its expiry, Then it cannot be approved, ExpireDecision records it, and it counts as EXPIRED', () => {
    const t = resulted();
    run(t, requestVoid());
    expect(refused(t, approve('PM2', AFTER_EXPIRY))).toBe('DECISION.EXPIRED');
    expect(decisionStatusAt(findDecision(t.state, 'DEC1')!, AFTER_EXPIRY)).toBe('EXPIRED');
    expect(refused(t, { type: 'ExpireDecision', decisionId: 'DEC1', now: LATER })).toBe('DECISION.NOT_EXPIRED');
    const events = run(t, { type: 'ExpireDecision', decisionId: 'DEC1', now: AFTER_EXPIRY });
    expect(events.map((e) => e.type)).toEqual(['DecisionExpired']);
    expect(findDecision(t.state, 'DEC1')?.status).toBe('EXPIRED');
    expect(refused(t, approve('PM2', LATER))).toBe('DECISION.ALREADY_DECIDED');
    expect(t.state.rounds[0].phase).toBe('RESULTED');
  });

  it('When a second manager rejects with a reason, Then nothing changes and the decision is final', () => {
    const t = resulted();
    run(t, requestVoid());
    expect(refused(t, { type: 'RejectDecision', decisionId: 'DEC1', rejectedBy: 'PM2', reason: '', now: LATER })).toBe('MANAGEMENT.REASON_REQUIRED');
    expect(refused(t, { type: 'RejectDecision', decisionId: 'DEC1', rejectedBy: 'PM2', reason: '\u200b\u200c\u200d\u2060', now: LATER })).toBe('MANAGEMENT.REASON_REQUIRED');
    expect(refused(t, { type: 'RejectDecision', decisionId: 'DEC1', rejectedBy: 'PM1', reason: 'changed my mind', now: LATER })).toBe('MANAGEMENT.SAME_APPROVER');
    const events = run(t, { type: 'RejectDecision', decisionId: 'DEC1', rejectedBy: 'PM2', reason: 'the video shows no exposure', now: LATER });
    expect(events.map((e) => e.type)).toEqual(['DecisionRejected']);
    expect(refused(t, approve('PM3'))).toBe('DECISION.ALREADY_DECIDED');
    expect(t.state.rounds[0].phase).toBe('RESULTED');
  });

  it('When a correction is requested, Then the request lists the re-settlements and the approval re-settles every bet', () => {
    const t = resulted();
    const req: DecisionCommand = {
      type: 'RequestDecision',
      decisionId: 'DEC3',
      request: { kind: 'CORRECT_RESULT', roundId: 'R1', cards: ['2S', '9H', '3D', 'KC'] },
      reason: 'cards swapped between hands',
      requestedBy: 'PM1',
      expiresAt: EXPIRY,
    };
    const [requested] = run(t, req);
    const affected = (requested.data as unknown as { affectedBets: { betId: string; effect: string; payoutAfter: string }[] }).affectedBets;
    expect(affected.map((b) => [b.betId, b.effect, b.payoutAfter])).toEqual([
      ['B1', 'RESETTLE', '0'],
      ['B2', 'RESETTLE', '1950'],
    ]);
    expect(run(t, approve('PM2', LATER, 'DEC3')).map((e) => e.type)).toEqual(['DecisionApproved', 'ResultCorrected', 'BetResettled', 'BetResettled']);
  });

  it('When a request could never take effect, or one on the same target is pending, or the id is taken, Then it is refused at once', () => {
    const t = resulted();
    expect(refused(t, { ...(requestVoid() as Extract<DecisionCommand, { type: 'RequestDecision' }>), request: { kind: 'CORRECT_RESULT', roundId: 'R1', cards: ['9S', '2H', 'KD', '3C'] } })).toBe('RESULT.UNCHANGED');
    expect(refused(t, requestVoid('DEC1', 'PM1', 'R9'))).toBe('ROUND.NOT_FOUND');
    run(t, requestVoid());
    expect(refused(t, requestVoid('DEC9'))).toBe('DECISION.ALREADY_PENDING');
    expect(refused(t, requestVoid('DEC1'))).toBe('DECISION.DUPLICATE_ID');
    expect(refused(t, approve('PM2', LATER, 'NOPE'))).toBe('DECISION.NOT_FOUND');
  });

  it('Given a commencement mistake, When a correction is requested and approved, Then CommencementCorrected carries the decision', () => {
    const t = new Table().open();
    t.run({ type: 'DrawCommencementCard', card: 'AS' });
    run(t, { type: 'RequestDecision', decisionId: 'DEC4', request: { kind: 'CORRECT_COMMENCEMENT', card: '2S' }, reason: 'misread the card', requestedBy: 'PM1', expiresAt: EXPIRY });
    const events = run(t, approve('PM2', LATER, 'DEC4'));
    expect(events.map((e) => e.type)).toEqual(['DecisionApproved', 'CommencementCorrected']);
    expect(events[1].data).toMatchObject({ card: '2S', burnCount: 2, decision: { actingManagerId: 'PM1', approverId: 'PM2', decisionId: 'DEC4' } });
  });
});
