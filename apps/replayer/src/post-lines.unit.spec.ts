import { LedgerClient, LedgerHttpError } from '@ledger/simulator';
import type { NumberedTableLogLine, TableLogLine } from '@ledger/table-log';
import { compareRound } from './agreement';
import { postTableLog, ReplayAbortedError } from './post-lines';

/** One call the fake API saw. */
interface Call {
  role: string;
  sub: string;
  path: string;
  key: string;
}

/**
 * A stand-in for the ledger's HTTP port: answers each write with one event, or with the answer a
 * test scripts for a path (a refusal, a 5xx, a transport error), and records the calls.
 */
class FakeApi {
  readonly calls: Call[] = [];
  /** Event id answered per idempotency key. */
  readonly answered = new Map<string, string>();
  private n = 0;
  inFlight = 0;
  maxInFlight = 0;
  constructor(private readonly script: (path: string, attempt: number) => 'ok' | LedgerHttpError | Error = () => 'ok') {}

  async post(role: string, sub: string, path: string, _body: unknown, headers: Record<string, string>) {
    this.calls.push({ role, sub, path, key: headers['idempotency-key'] });
    const attempt = this.calls.filter((c) => c.path === path && c.key === headers['idempotency-key']).length;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, 1));
    this.inFlight--;
    const a = this.script(path, attempt);
    if (a !== 'ok') throw a;
    const type = path.endsWith('/cards') ? 'RoundResulted' : path.endsWith('/approve') ? 'DecisionApproved' : /\/(void|result-corrections|corrections)$/.test(path) ? 'DecisionRequested' : 'Recorded';
    this.answered.set(headers['idempotency-key'], `ev-${this.n + 1}`);
    const answer = { streamVersion: ++this.n, events: [{ eventId: `ev-${this.n}`, type, streamVersion: this.n }] };
    // the two-step API: a management request opens a pending decision (202), its approval decides it
    if (type === 'DecisionRequested' && this.pending) return { decisionId: `dec-${this.n}`, status: 'PENDING_APPROVAL', expiresAt: '2026-11-29T12:30:00Z', ...answer };
    if (type === 'DecisionApproved') return { decisionId: path.split('/')[2], status: 'APPROVED', ...answer };
    return answer;
  }

  /** false: answer management commands at once, as a ledger before the two-step approval did. */
  pending = true;

  asClient(): LedgerClient {
    return this as unknown as LedgerClient;
  }
}

const numbered = (lines: TableLogLine[]): NumberedTableLogLine[] => lines.map((value, i) => ({ line: i + 1, value }));

/** `shoes` shoes of `rounds` rounds each, interleaved line by line as several tables would write them. */
function interleaved(shoes: number, rounds: number): NumberedTableLogLine[] {
  const per: TableLogLine[][] = [];
  for (let s = 1; s <= shoes; s++) {
    const shoeId = `S${s}`;
    const ls: TableLogLine[] = [{ kind: 'openShoe', shoeId, tableId: 'T', dealerId: 'd' }];
    for (let r = 1; r <= rounds; r++) {
      const roundId = `R${r}`;
      ls.push({ kind: 'openRound', shoeId, roundId }, { kind: 'closeBetting', shoeId, roundId }, { kind: 'deal', shoeId, roundId, position: 'P1', card: '9S' });
    }
    ls.push({ kind: 'closeShoe', shoeId });
    per.push(ls);
  }
  const out: TableLogLine[] = [];
  for (let i = 0; i < Math.max(...per.map((p) => p.length)); i++) for (const p of per) if (p[i]) out.push(p[i]);
  return numbered(out);
}

describe('postTableLog (sending a log)', () => {
  it('Given interleaved shoes, When sent with concurrency 2, Then each shoe keeps its file order, at most 2 shoes are in flight, and every line carries <hash>:<line>', async () => {
    const lines = interleaved(5, 4);
    const api = new FakeApi();
    const done: number[] = [];
    const summary = await postTableLog(lines, api.asClient(), { hashPrefix: 'abc123', concurrency: 2, onLine: (n) => done.push(n) });
    expect(api.maxInFlight).toBeLessThanOrEqual(2);
    expect(api.maxInFlight).toBe(2);
    for (let s = 1; s <= 5; s++) {
      const mine = lines.filter((l) => l.value.shoeId === `S${s}`).map((l) => `abc123:${l.line}`);
      expect(api.calls.map((c) => c.key).filter((k) => mine.includes(k))).toEqual(mine);
    }
    expect(new Set(api.calls.map((c) => c.key)).size).toBe(lines.length);
    expect(summary).toMatchObject({ lines: lines.length, requests: lines.length, accepted: lines.length, refused: 0, events: lines.length, roundsResulted: 20 });
    expect(summary.shoes.map((s) => s.shoeId)).toEqual(['S1', 'S2', 'S3', 'S4', 'S5']);
    expect(done).toEqual(lines.map((_, i) => i + 1));
    // the last event of each shoe is the answer to its closeShoe line
    for (const s of summary.shoes) {
      const closeKey = `abc123:${lines.find((l) => l.value.shoeId === s.shoeId && l.value.kind === 'closeShoe')!.line}`;
      expect(s.lastEventId).toBe(api.answered.get(closeKey));
    }
  });

  it('Given refusals, Then they are counted by code with line and shoe, and the shoe goes on', async () => {
    const refuse = new LedgerHttpError(422, 'TABLEAU.VIOLATION', { error: { message: 'tableau forbids P1 here' } }, 'POST x');
    const api = new FakeApi((path) => (path === '/shoes/S2/rounds/R1/cards' ? refuse : 'ok'));
    const lines = interleaved(2, 2);
    const summary = await postTableLog(lines, api.asClient(), { hashPrefix: 'h', concurrency: 1 });
    expect(summary).toMatchObject({ lines: lines.length, accepted: lines.length - 1, refused: 1, refusedByCode: { 'TABLEAU.VIOLATION': 1 } });
    expect(summary.firstRefusals).toEqual([
      { line: lines.find((l) => l.value.shoeId === 'S2' && l.value.kind === 'deal')!.line, shoeId: 'S2', kind: 'deal', status: 422, code: 'TABLEAU.VIOLATION', message: 'tableau forbids P1 here' },
    ]);
    expect(api.calls.filter((c) => c.path.startsWith('/shoes/S2')).length).toBe(lines.filter((l) => l.value.shoeId === 'S2').length - 1);
  });

  it('Given a 5xx or a transport error, Then the same line is retried with the same key', async () => {
    const api = new FakeApi((path, attempt) => (path === '/shoes/S1/close' && attempt < 3 ? (attempt === 1 ? new Error('ECONNRESET') : new LedgerHttpError(503, 'HTTP.503', null, 'x')) : 'ok'));
    const lines = interleaved(1, 1);
    const summary = await postTableLog(lines, api.asClient(), { hashPrefix: 'h', attempts: 3 });
    expect(summary).toMatchObject({ accepted: lines.length, refused: 0, requests: lines.length + 2 });
    const closes = api.calls.filter((c) => c.path === '/shoes/S1/close');
    expect(closes.map((c) => c.key)).toEqual(['h:5', 'h:5', 'h:5']);
  });

  it('Given an API that stays down, Then the run stops naming the line, and no later line of any shoe is sent', async () => {
    const api = new FakeApi((path) => (path === '/shoes/S1/rounds' ? new Error('ECONNREFUSED') : 'ok'));
    const lines = interleaved(3, 2);
    await expect(postTableLog(lines, api.asClient(), { hashPrefix: 'h', attempts: 2, concurrency: 1 })).rejects.toThrow(ReplayAbortedError);
    expect(api.calls.map((c) => c.path)).toEqual(['/tables/T/shoes', '/shoes/S1/rounds', '/shoes/S1/rounds']);
  });

  it("Given a 401, Then the run stops at once: the replayer's token is wrong for every line", async () => {
    const api = new FakeApi(() => new LedgerHttpError(401, 'AUTH.UNAUTHENTICATED', null, 'x'));
    await expect(postTableLog(interleaved(1, 1), api.asClient(), { hashPrefix: 'h' })).rejects.toThrow(/JWT_SECRET/);
    expect(api.calls).toHaveLength(1);
  });
});

describe('postTableLog (management decisions: two pit managers, two requests)', () => {
  const decisionLog = (): NumberedTableLogLine[] =>
    numbered([
      { kind: 'openShoe', shoeId: 'S1', tableId: 'T', dealerId: 'd' },
      { kind: 'voidRound', shoeId: 'S1', roundId: 'R1', reason: 'camera review', approverId: 'pm-8', actor: 'pm-7' },
      { kind: 'correctCommencement', shoeId: 'S1', card: '5H', reason: 'scanner misread' },
      { kind: 'closeShoe', shoeId: 'S1' },
    ]);

  it("Given decision lines, Then each is requested by its actor, then approved by its approverId (else the default) with the answer's decision and its own key", async () => {
    const api = new FakeApi();
    const summary = await postTableLog(decisionLog(), api.asClient(), { hashPrefix: 'h' });
    expect(api.calls.map((c) => [c.sub, c.path, c.key])).toEqual([
      ['device-1', '/tables/T/shoes', 'h:1'],
      ['pm-7', '/shoes/S1/rounds/R1/void', 'h:2'],
      ['pm-8', '/decisions/dec-2/approve', 'h:2:approve'],
      ['pm-1', '/shoes/S1/commencement/corrections', 'h:3'],
      ['pm-2', '/decisions/dec-4/approve', 'h:3:approve'],
      ['device-1', '/shoes/S1/close', 'h:4'],
    ]);
    expect(api.calls.every((c) => !c.path.startsWith('/decisions/') || c.role === 'pit-manager')).toBe(true);
    expect(summary).toMatchObject({ lines: 4, requests: 6, accepted: 4, approvals: 2, refused: 0, events: 6 });
  });

  it('Given a refused approval, Then the line is a refusal of its approval step, and the shoe goes on', async () => {
    const same = new LedgerHttpError(422, 'MANAGEMENT.SAME_APPROVER', { error: { message: 'the approving manager must differ from the requesting one' } }, 'POST x');
    const api = new FakeApi((path) => (path === '/decisions/dec-2/approve' ? same : 'ok'));
    const summary = await postTableLog(decisionLog(), api.asClient(), { hashPrefix: 'h' });
    expect(summary).toMatchObject({ lines: 4, accepted: 3, approvals: 1, refused: 1, refusedByCode: { 'MANAGEMENT.SAME_APPROVER': 1 } });
    expect(summary.firstRefusals).toEqual([{ line: 2, shoeId: 'S1', kind: 'voidRound', step: 'approval', status: 422, code: 'MANAGEMENT.SAME_APPROVER', message: 'the approving manager must differ from the requesting one' }]);
    expect(api.calls.at(-1)?.path).toBe('/shoes/S1/close');
  });

  it('Given a refused request, Then no approval is sent', async () => {
    const dealer = new LedgerHttpError(422, 'MANAGEMENT.DEALER_CANNOT_DECIDE', null, 'POST x');
    const api = new FakeApi((path) => (path.endsWith('/void') ? dealer : 'ok'));
    const summary = await postTableLog(decisionLog(), api.asClient(), { hashPrefix: 'h' });
    expect(api.calls.map((c) => c.key)).toEqual(['h:1', 'h:2', 'h:3', 'h:3:approve', 'h:4']);
    expect(summary.firstRefusals).toEqual([expect.objectContaining({ line: 2, kind: 'voidRound', code: 'MANAGEMENT.DEALER_CANNOT_DECIDE' })]);
    expect(summary.firstRefusals[0]).not.toHaveProperty('step');
  });

  it('Given an approval that fails with a 5xx, Then it is retried with its own key, not the request', async () => {
    const api = new FakeApi((path, attempt) => (path.endsWith('/approve') && attempt < 2 ? new LedgerHttpError(503, 'HTTP.503', null, 'x') : 'ok'));
    const summary = await postTableLog(decisionLog().slice(0, 2), api.asClient(), { hashPrefix: 'h', attempts: 3 });
    expect(api.calls.map((c) => c.key)).toEqual(['h:1', 'h:2', 'h:2:approve', 'h:2:approve']);
    expect(summary).toMatchObject({ accepted: 2, approvals: 1, requests: 4 });
  });

  it('Given a ledger that takes a management command at once (no pending decision), Then nothing is approved', async () => {
    const api = new FakeApi();
    api.pending = false;
    const summary = await postTableLog(decisionLog(), api.asClient(), { hashPrefix: 'h' });
    expect(api.calls.some((c) => c.path.startsWith('/decisions/'))).toBe(false);
    expect(summary).toMatchObject({ accepted: 4, approvals: 0, requests: 4 });
  });
});

describe('compareRound (agreement of one round)', () => {
  const expected = { shoeId: 'S', roundId: 'R', winner: 'BANKER' as const, player: ['KS', '6C'], banker: ['3D', '2C', '3C'] };

  it('Given the same outcome, with tens written either way, Then it agrees', () => {
    expect(compareRound(expected, { winner: 'BANKER', player: ['KS', '6C'], banker: ['3D', '2C', '3C'] })).toEqual([]);
    expect(compareRound({ ...expected, player: ['10S', '6C'] }, { winner: 'BANKER', player: ['TS', '6C'], banker: ['3D', '2C', '3C'] })).toEqual([]);
  });

  it('Given another winner, other cards or no result, Then it names each difference', () => {
    expect(compareRound(expected, { winner: 'PLAYER', player: ['KS', '6C', '3C'], banker: ['3D', '2C'] })).toEqual(['WINNER', 'PLAYER_CARDS', 'BANKER_CARDS']);
    expect(compareRound(expected, null)).toEqual(['MISSING']);
  });
});
