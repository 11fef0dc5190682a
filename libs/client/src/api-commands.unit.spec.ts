import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { API_COMMAND_KINDS, API_COMMANDS, API_DECISION_COMMAND_KINDS, apiRequestOf, commandFields, commandKindsOf, isApiCommandKind, isDecisionCommandKind, normalizeCommand, type ApiCommand } from './api-commands';
import { API_DECISION_ACT_KINDS, API_DECISION_ACTS, approvalRequestOf, decisionActRequestOf, decisionPathOf, decisionsPathOf, pendingDecisionOf } from './decisions';

/** One command of every kind, every field set (optional ones too), with ids that need encoding. */
const EXAMPLES: ApiCommand[] = [
  { kind: 'openShoe', shoeId: 'S:1', tableId: 'T 1', dealerId: 'd1' },
  { kind: 'commencement', shoeId: 'S:1', card: '2H' },
  { kind: 'burn', shoeId: 'S:1', card: null },
  { kind: 'openRound', shoeId: 'S:1', roundId: 'R/1' },
  { kind: 'closeBetting', shoeId: 'S:1', roundId: 'R/1' },
  { kind: 'deal', shoeId: 'S:1', roundId: 'R/1', position: 'P1', card: '9S' },
  { kind: 'unneeded', shoeId: 'S:1', roundId: 'R/1', card: '9S' },
  { kind: 'expose', shoeId: 'S:1', card: 'KS', phase: 'SHUFFLE' },
  { kind: 'drop', shoeId: 'S:1', card: null, exposedBeforeLeavingView: true, phase: 'SCOOPING' },
  { kind: 'cutCard', shoeId: 'S:1' },
  { kind: 'changeDealer', shoeId: 'S:1', dealerId: 'd2' },
  { kind: 'closeShoe', shoeId: 'S:1' },
  { kind: 'bet', shoeId: 'S:1', roundId: 'R/1', betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' },
  { kind: 'bets', shoeId: 'S:1', roundId: 'R/1', bets: [{ betId: 'b2', accountId: 'a2', betCode: 'BANKER', stake: '2500', currency: 'EUR' }] },
  { kind: 'voidRound', shoeId: 'S:1', roundId: 'R/1', reason: 'camera review' },
  { kind: 'correctResult', shoeId: 'S:1', roundId: 'R/1', cards: ['9S', '7H', 'KD', 'QC'], reason: 'wrong dealing' },
  { kind: 'voidShoe', shoeId: 'S:1', reason: 'tampered shoe' },
  { kind: 'correctCommencement', shoeId: 'S:1', card: '5H', reason: 'scanner misread' },
];

describe('API_COMMANDS (the one definition of the client vocabulary)', () => {
  it('has the kinds in documentation order: table facts, then bets, then decisions', () => {
    expect(API_COMMAND_KINDS).toEqual(EXAMPLES.map((c) => c.kind));
    expect([...commandKindsOf('table-device'), ...commandKindsOf('betting-platform'), ...commandKindsOf('pit-manager')]).toEqual(API_COMMAND_KINDS);
    expect(commandKindsOf('betting-platform')).toEqual(['bet', 'bets']);
    expect(commandKindsOf('pit-manager')).toEqual(['voidRound', 'correctResult', 'voidShoe', 'correctCommencement']);
    expect(isApiCommandKind('deal')).toBe(true);
    expect(isApiCommandKind('constructor')).toBe(false);
  });

  it("names in each path template only the shoe and the command's own fields", () => {
    for (const kind of API_COMMAND_KINDS) {
      const names = [...API_COMMANDS[kind].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const fields = new Set(['shoeId', ...commandFields(kind).map(([f]) => f)]);
      expect({ kind, unknown: names.filter((n) => !fields.has(n)) }).toEqual({ kind, unknown: [] });
    }
  });

  it('is the route table TABLE_LOG_FORMAT.md documents, kind by kind', () => {
    const doc = readFileSync(resolve(__dirname, '../../table-log/TABLE_LOG_FORMAT.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `(\w+)` \|.*?\| `(POST) ([^`]+)`/gm)].map((m) => [m[1], m[2], m[3].replace('…', '/shoes/{shoeId}')]);
    expect(documented).toEqual(API_COMMAND_KINDS.map((k) => [k, API_COMMANDS[k].method, API_COMMANDS[k].path]));
  });

  it('Given a command, Then its request fills and encodes the path, and the body holds the fields the path does not name, occurredAt last', () => {
    expect(apiRequestOf({ kind: 'deal', shoeId: 'S:1', roundId: 'R/1', position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z' })).toEqual({
      kind: 'deal',
      method: 'POST',
      role: 'table-device',
      path: '/shoes/S%3A1/rounds/R%2F1/cards',
      body: { position: 'P1', card: '9S', occurredAt: '2026-11-29T12:00:00Z' },
    });
    expect(apiRequestOf(EXAMPLES[0])).toMatchObject({ path: '/tables/T%201/shoes', body: { shoeId: 'S:1', dealerId: 'd1' } });
    expect(apiRequestOf(EXAMPLES[12]).body).toEqual({ bet: { betId: 'b1', accountId: 'a1', betCode: 'TIE', stake: '500', currency: 'EUR' } });
    expect(apiRequestOf({ kind: 'expose', shoeId: 'S', card: 'KS' }).body).toEqual({ card: 'KS' }); // absent optional field: not sent
    expect(apiRequestOf({ kind: 'cutCard', shoeId: 'S' }).body).toEqual({});
  });

  it('Given a command with extra properties, Then normalizing keeps exactly its fields, in order', () => {
    const extra = { kind: 'bets', shoeId: 'S', roundId: 'R', actor: 'x', bets: [{ betId: 'b', accountId: 'a', betCode: 'TIE', stake: '1', currency: 'EUR', note: 'dropped' }] } as unknown as ApiCommand;
    expect(JSON.stringify(normalizeCommand(extra))).toBe('{"kind":"bets","shoeId":"S","roundId":"R","bets":[{"betId":"b","accountId":"a","betCode":"TIE","stake":"1","currency":"EUR"}]}');
    for (const c of EXAMPLES) expect(normalizeCommand(c)).toEqual(c);
  });

  it('Given a management decision, Then its request names no approver: the requester is the token, the approval a second request', () => {
    expect(API_DECISION_COMMAND_KINDS).toEqual(commandKindsOf('pit-manager'));
    expect(API_COMMAND_KINDS.filter(isDecisionCommandKind)).toEqual(['voidRound', 'correctResult', 'voidShoe', 'correctCommencement']);
    expect(API_DECISION_COMMAND_KINDS.map((k) => API_COMMANDS[k].decision)).toEqual(['VOID_ROUND', 'CORRECT_RESULT', 'VOID_SHOE', 'CORRECT_COMMENCEMENT']);
    for (const kind of API_COMMAND_KINDS) expect({ kind, approverField: commandFields(kind).some(([f]) => /approver/i.test(f)) }).toEqual({ kind, approverField: false });
    expect(apiRequestOf(EXAMPLES[14])).toEqual({ kind: 'voidRound', method: 'POST', role: 'pit-manager', path: '/shoes/S%3A1/rounds/R%2F1/void', body: { reason: 'camera review' } });
    expect(apiRequestOf(EXAMPLES[15]).body).toEqual({ cards: ['9S', '7H', 'KD', 'QC'], reason: 'wrong dealing' });
    expect(apiRequestOf(EXAMPLES[16]).body).toEqual({ reason: 'tampered shoe' });
    // an approverId from an old caller is not a field: it is never sent
    expect(apiRequestOf({ ...EXAMPLES[16], approverId: 'pm-2' } as unknown as ApiCommand).body).toEqual({ reason: 'tampered shoe' });
  });
});

describe('API_DECISION_ACTS (the second pit manager approves or rejects)', () => {
  it('Given a decision id, Then the approval and the rejection go to its routes as a pit manager, the id encoded, the body without any approver', () => {
    expect(API_DECISION_ACT_KINDS).toEqual(['approveDecision', 'rejectDecision']);
    expect(API_DECISION_ACT_KINDS.map((k) => [API_DECISION_ACTS[k].role, API_DECISION_ACTS[k].leadsTo])).toEqual([
      ['pit-manager', 'APPROVED'],
      ['pit-manager', 'REJECTED'],
    ]);
    expect(approvalRequestOf('d/1')).toEqual({ kind: 'approveDecision', method: 'POST', role: 'pit-manager', path: '/decisions/d%2F1/approve', body: {} });
    expect(approvalRequestOf('d-1', 'video reviewed').body).toEqual({ reason: 'video reviewed' });
    expect(decisionActRequestOf({ kind: 'rejectDecision', decisionId: 'd-1', reason: 'no exposure on the video' })).toEqual({
      kind: 'rejectDecision',
      method: 'POST',
      role: 'pit-manager',
      path: '/decisions/d-1/reject',
      body: { reason: 'no exposure on the video' },
    });
  });

  it('Given answers, Then only a pending decision with an id is taken for one', () => {
    const requested = { decisionId: 'd-1', status: 'PENDING_APPROVAL', expiresAt: '2026-11-29T12:30:00.000Z', shoeId: 'S', streamVersion: 9, events: [{ eventId: 'e', type: 'DecisionRequested', streamVersion: 9 }] };
    expect(pendingDecisionOf(requested)).toEqual({ decisionId: 'd-1', expiresAt: '2026-11-29T12:30:00.000Z' });
    expect(pendingDecisionOf({ ...requested, expiresAt: undefined })).toEqual({ decisionId: 'd-1', expiresAt: null });
    expect(pendingDecisionOf({ ...requested, status: 'APPROVED' })).toBeNull();
    expect(pendingDecisionOf({ ...requested, decisionId: '' })).toBeNull();
    expect(pendingDecisionOf({ streamVersion: 3, events: [] })).toBeNull();
    expect(pendingDecisionOf(null)).toBeNull();
    expect(pendingDecisionOf('PENDING_APPROVAL')).toBeNull();
  });

  it('Given filters, Then the list path carries them encoded, in a fixed order', () => {
    expect(decisionsPathOf()).toBe('/decisions');
    expect(decisionsPathOf({ requestedBy: 'pm 1', status: 'PENDING_APPROVAL', shoeId: 'S:1' })).toBe('/decisions?status=PENDING_APPROVAL&shoeId=S%3A1&requestedBy=pm%201');
    expect(decisionPathOf('d/1')).toBe('/decisions/d%2F1');
  });
});
