import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClientRole, LedgerClient } from './ledger-client';
import { approvalRoute, DEFAULT_RUNNER_ACTORS, route, runShoeScript } from './shoe-runner';
import { generateShoeScript, type ShoeScript, type SimTable } from './shoe-script';

const tables: SimTable[] = JSON.parse(readFileSync(resolve(__dirname, '../../../config/tables.json'), 'utf8')).tables;
const table = (id: string) => tables.find((t) => t.tableId === id)!;

const BUSY = { shoeId: 'S-fp', dealerId: 'dealer-1', exposedCardChance: 0.05, droppedCardChance: 0.05, unneededCardChance: 0.1, managementVoidChance: 0.05, correctionChance: 0.05 };

interface Call {
  role: ClientRole;
  sub: string;
  path: string;
  body: unknown;
  key: string;
}

/**
 * A stand-in for the ledger's HTTP port, as the two-step API answers: a management request 202
 * with a pending decision (one `DecisionRequested`), its approval 201 (`DecisionApproved` and a
 * compensating event), any other write 201 with one event.
 */
class FakeLedger {
  readonly calls: Call[] = [];
  private n = 0;
  constructor(private readonly pending = true) {}

  async post(role: ClientRole, sub: string, path: string, body: unknown, headers: Record<string, string>) {
    this.calls.push({ role, sub, path, body, key: headers['idempotency-key'] });
    const ev = (type: string) => ({ eventId: `e${++this.n}`, type, streamVersion: this.n });
    if (/\/(void|result-corrections)$/.test(path) && this.pending) return { decisionId: `d-${this.n}`, status: 'PENDING_APPROVAL', expiresAt: '2026-11-29T12:30:00Z', events: [ev('DecisionRequested')] };
    if (path.endsWith('/approve')) return { decisionId: path.split('/')[2], status: 'APPROVED', events: [ev('DecisionApproved'), ev('RoundVoided')] };
    return { events: [ev('Recorded')] };
  }

  asClient(): LedgerClient {
    return this as unknown as LedgerClient;
  }
}

describe('runShoeScript (a generated shoe through the two-step API)', () => {
  const script: ShoeScript = generateShoeScript(table('T-CLASSIC-01'), 'runner-1', BUSY);
  const decisions = script.actions.filter((a) => a.kind === 'voidRound' || a.kind === 'correctResult').length;

  it('Given a shoe with voids and corrections, Then each is requested by the manager and approved by a second pit manager with the decision id of the answer', async () => {
    expect(decisions).toBeGreaterThan(0);
    const api = new FakeLedger();
    const stats = await runShoeScript(script, api.asClient());
    expect(stats).toMatchObject({ requests: script.actions.length + decisions, approvals: decisions, events: script.actions.length + 2 * decisions });
    const approvals = api.calls.filter((c) => c.path.startsWith('/decisions/'));
    expect(approvals).toHaveLength(decisions);
    for (const a of approvals) {
      const i = api.calls.indexOf(a);
      const request = api.calls[i - 1];
      expect(request).toMatchObject({ role: 'pit-manager', sub: 'pm-1' });
      expect(request.body).not.toHaveProperty('approverId');
      expect(a).toMatchObject({ role: 'pit-manager', sub: 'pm-2', body: {}, key: `${request.key}:approve` });
      expect(a.path).toMatch(/^\/decisions\/d-\d+\/approve$/);
    }
    // every other write: its action's route and key, in order
    const s = `/shoes/${script.shoeId}`;
    expect(api.calls.filter((c) => !c.path.startsWith('/decisions/')).map((c) => [c.role, c.sub, c.path, c.body, c.key])).toEqual(script.actions.map((a, i) => [...route(a, s, DEFAULT_RUNNER_ACTORS), `${script.shoeId}:${i}`]));
  });

  it('Given a ledger that answers a management command at once (no pending decision), Then nothing is approved', async () => {
    const api = new FakeLedger(false);
    const stats = await runShoeScript(script, api.asClient());
    expect(stats).toMatchObject({ requests: script.actions.length, approvals: 0 });
    expect(api.calls.some((c) => c.path.startsWith('/decisions/'))).toBe(false);
  });

  it('Given the same pit manager as requester and approver, Then nothing is sent', async () => {
    const api = new FakeLedger();
    await expect(runShoeScript(script, api.asClient(), { ...DEFAULT_RUNNER_ACTORS, approver: 'pm-1' })).rejects.toThrow(/must differ/);
    expect(api.calls).toEqual([]);
  });

  it('approvalRoute: the approver, with their own pit-manager token, on the decision (id encoded)', () => {
    const [role, sub, path, body, req] = approvalRoute('d/1', { approver: 'pm-9' });
    expect([role, sub, path, body]).toEqual(['pit-manager', 'pm-9', '/decisions/d%2F1/approve', {}]);
    expect(req).toMatchObject({ kind: 'approveDecision', method: 'POST', path });
  });
});

describe('generateShoeScript keeps its randomness', () => {
  it.each([
    ['T-CLASSIC-01', '4eab02deb223d1ee'],
    ['T-TIGER-01', '567910d38d884506'],
    ['T-FAB4-01', 'f0c98748ea11f291'],
    ['T-TIGER-V01', '5032e4f98fb78081'],
  ])('Given seed fingerprint-1 on %s, Then the shoe is the one it always was (574 actions, 73 rounds, 1 void, 2 corrections)', (tableId, fingerprint) => {
    const s = generateShoeScript(table(tableId), 'fingerprint-1', BUSY);
    expect([s.actions.length, s.rounds, s.cutCardIndex]).toEqual([574, 73, 353]);
    expect([s.actions.filter((a) => a.kind === 'voidRound').length, s.actions.filter((a) => a.kind === 'correctResult').length]).toEqual([1, 2]);
    expect(createHash('sha256').update(JSON.stringify(s.actions)).digest('hex').slice(0, 16)).toBe(fingerprint);
    expect(generateShoeScript(table(tableId), 'fingerprint-1', BUSY)).toEqual(s);
  });
});
