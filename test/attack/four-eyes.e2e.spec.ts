/**
 * Attacks on the four-eyes rule (docs/domain-rules.md §6, docs/guarantees.md §12), through HTTP
 * against the real API and PostgreSQL: one pit manager alone naming an invented approver, a
 * requester approving their own request, the dealer of an earlier round voiding the shoe, an
 * expired request. On the code before the two-step flow each of these voided or re-settled alone.
 */
import { randomUUID } from 'node:crypto';
import { createDataSource, PgEventStore } from '@ledger/event-store';
import { LedgerHttpError } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(120_000);

const TABLE = 'T-CLASSIC-01';
const REASON = 'card exposed before betting closed';

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LedgerHttpError) return { status: e.status, code: e.code };
    throw e;
  }
  throw new Error('expected the request to be refused');
}

/** Opens a shoe dealt by `dealer`, commences it, and plays round `roundId` with a PLAYER bet resulted. */
async function resultedRound(h: LedgerHarness, shoeId: string, roundId: string, dealer: string, first = true): Promise<void> {
  const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
  if (first) {
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: dealer });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoeId}/burns`, { card: null });
  } else {
    await dev(`/shoes/${shoeId}/dealer`, { dealerId: dealer });
  }
  await dev(`/shoes/${shoeId}/rounds`, { roundId });
  await h.client.post('betting-platform', 'platform-1', `/shoes/${shoeId}/rounds/${roundId}/bets`, {
    bet: { betId: `${roundId}-B1`, accountId: 'acct-1', betCode: 'PLAYER', stake: '1000', currency: 'EUR' },
  });
  await dev(`/shoes/${shoeId}/rounds/${roundId}/close-betting`);
  for (const [position, card] of [
    ['P1', '9S'],
    ['B1', '2H'],
    ['P2', 'KD'],
    ['B2', '3C'],
  ]) {
    await dev(`/shoes/${shoeId}/rounds/${roundId}/cards`, { position, card });
  }
}

async function types(h: LedgerHarness, shoeId: string): Promise<string[]> {
  return (await h.store.readStream(`shoe-${shoeId}`)).map((e) => e.type);
}

describe('four eyes: a management decision needs a second, authenticated pit manager', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger({ env: { DECISION_TTL_MS: '3000', DECISION_EXPIRY_SWEEP_MS: '500' } });
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an invented approver in the body is refused, and a request alone voids nothing', async () => {
    const shoeId = runId('fe-inv');
    await resultedRound(h, shoeId, `${shoeId}-R1`, 'dealer-1');
    const r = await refusal(h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${shoeId}-R1/void`, { reason: REASON, approverId: 'nobody-at-all' }));
    expect(r).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
    const requested = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${shoeId}-R1/void`, { reason: REASON });
    expect(requested).toMatchObject({ status: 'PENDING_APPROVAL', decisionId: expect.any(String), expiresAt: expect.any(String) });
    expect(await types(h, shoeId)).not.toContain('RoundVoided');
    const listed = await h.client.get('auditor', 'aud-1', `/decisions?status=PENDING_APPROVAL&shoeId=${shoeId}`);
    expect(listed.decisions).toHaveLength(1);
    expect(listed.decisions[0]).toMatchObject({ decisionId: requested.decisionId, requestedBy: 'pm-1', kind: 'VOID_ROUND', affectedBets: [{ betId: `${shoeId}-R1-B1`, effect: 'REFUND', payoutAfter: '1000' }] });
  });

  it('the requester cannot approve their own request, nor can a non-manager token; a second pit manager can', async () => {
    const shoeId = runId('fe-self');
    await resultedRound(h, shoeId, `${shoeId}-R1`, 'dealer-1');
    const { decisionId } = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${shoeId}-R1/result-corrections`, {
      reason: 'cards swapped between hands',
      cards: ['2S', '9H', '3D', 'KC'],
    });
    expect(await refusal(h.client.post('pit-manager', 'pm-1', `/decisions/${decisionId}/approve`, {}))).toEqual({ status: 422, code: 'MANAGEMENT.SAME_APPROVER' });
    expect(await refusal(h.client.post('betting-platform', 'pm-2', `/decisions/${decisionId}/approve`, {}))).toMatchObject({ status: 403 });
    expect(await types(h, shoeId)).not.toContain('ResultCorrected');
    const approved = await h.client.post('pit-manager', 'pm-2', `/decisions/${decisionId}/approve`, { reason: 'video reviewed' });
    expect(approved.status).toBe('APPROVED');
    expect(approved.events.map((e: { type: string }) => e.type)).toEqual(['DecisionApproved', 'ResultCorrected', 'BetResettled']);
    expect(approved.events[1].data.decision).toMatchObject({ actingManagerId: 'pm-1', approverId: 'pm-2', decisionId });
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const approval = stored.find((e) => e.type === 'DecisionApproved')!;
    expect(approval.actor).toEqual({ id: 'pm-2', role: 'pit-manager' });
    expect(await refusal(h.client.post('pit-manager', 'pm-3', `/decisions/${decisionId}/approve`, {}))).toEqual({ status: 422, code: 'DECISION.ALREADY_DECIDED' });
  });

  it('the dealer of an earlier round can neither request nor approve a shoe void, though another dealer deals now', async () => {
    const shoeId = runId('fe-shoe');
    await resultedRound(h, shoeId, `${shoeId}-R1`, 'pm-d1');
    await resultedRound(h, shoeId, `${shoeId}-R2`, 'dealer-2', false);
    expect(await refusal(h.client.post('pit-manager', 'pm-d1', `/shoes/${shoeId}/void`, { reason: 'shoe compromised' }))).toEqual({
      status: 422,
      code: 'MANAGEMENT.DEALER_CANNOT_DECIDE',
    });
    const { decisionId } = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/void`, { reason: 'shoe compromised' });
    expect(await refusal(h.client.post('pit-manager', 'pm-d1', `/decisions/${decisionId}/approve`, {}))).toEqual({ status: 422, code: 'MANAGEMENT.DEALER_CANNOT_DECIDE' });
    expect(await types(h, shoeId)).not.toContain('ShoeVoided');
    const approved = await h.client.post('pit-manager', 'pm-2', `/decisions/${decisionId}/approve`, {});
    expect(approved.events.map((e: { type: string }) => e.type).slice(0, 2)).toEqual(['DecisionApproved', 'ShoeVoided']);
  });

  it('a rejected or expired request never takes effect, and the expiry is recorded by the ledger', async () => {
    const shoeId = runId('fe-exp');
    await resultedRound(h, shoeId, `${shoeId}-R1`, 'dealer-1');
    const rejected = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${shoeId}-R1/void`, { reason: REASON });
    expect(await refusal(h.client.post('pit-manager', 'pm-2', `/decisions/${rejected.decisionId}/reject`, {}))).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
    expect((await h.client.post('pit-manager', 'pm-2', `/decisions/${rejected.decisionId}/reject`, { reason: 'no exposure on the video' })).status).toBe('REJECTED');
    const pending = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${shoeId}-R1/void`, { reason: REASON });
    const deadline = Date.now() + 30_000;
    let view: { status: string; steps: { type: string; actorRole: string }[] } = await h.client.get('auditor', 'aud-1', `/decisions/${pending.decisionId}`);
    while (!view.steps.some((s) => s.type === 'DecisionExpired') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      view = await h.client.get('auditor', 'aud-1', `/decisions/${pending.decisionId}`);
    }
    expect(view.status).toBe('EXPIRED');
    expect(view.steps.map((s) => [s.type, s.actorRole])).toEqual([
      ['DecisionRequested', 'pit-manager'],
      ['DecisionExpired', 'system'],
    ]);
    expect(await refusal(h.client.post('pit-manager', 'pm-2', `/decisions/${pending.decisionId}/approve`, {}))).toEqual({ status: 422, code: 'DECISION.ALREADY_DECIDED' });
    expect(await types(h, shoeId)).not.toContain('RoundVoided');
  });

  it('a request appended with the API login in another manager’s name, or set to expire in 2099, cannot be approved', async () => {
    const shoeId = runId('fe-forged');
    await resultedRound(h, shoeId, `${shoeId}-R1`, 'dealer-1');
    // a genuine request by pm-3, which the insider copies: the data of a request that would void the round
    const genuine = await h.client.post('pit-manager', 'pm-3', `/shoes/${shoeId}/rounds/${shoeId}-R1/void`, { reason: REASON });
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const template = stored.find((e) => e.type === 'DecisionRequested' && (e.data as { decisionId: string }).decisionId === genuine.decisionId)!;
    const insiderDs = createDataSource(TEST_SERVICE_DATABASE_URLS.app);
    await insiderDs.initialize();
    try {
      const insider = new PgEventStore(insiderDs, { topic: h.topic });
      const forge = async (data: Record<string, unknown>, actor: { id: string; role: 'pit-manager' }) => {
        const decisionId = randomUUID();
        await insider.append({
          streamId: `shoe-${shoeId}`,
          tableId: TABLE,
          expectedVersion: await insider.streamVersion(`shoe-${shoeId}`),
          events: [{ eventId: randomUUID(), type: 'DecisionRequested', data: { ...(template.data as object), decisionId, ...data } as never }],
          metadata: { actor, correlationId: decisionId },
        });
        return decisionId;
      };
      // pm-2 writes a request in pm-1's name, to approve it themself
      const inAnotherName = await forge({ requestedBy: 'pm-1' }, { id: 'pm-2', role: 'pit-manager' });
      expect(await refusal(h.client.post('pit-manager', 'pm-2', `/decisions/${inAnotherName}/approve`, {}))).toEqual({ status: 404, code: 'DECISION.NOT_FOUND' });
      // a request whose data says it expires in 2099: the TTL (3 s here) counts from its recordedAt
      const forever = await forge({ requestedBy: 'pm-1', expiresAt: '2099-01-01T00:00:00.000Z' }, { id: 'pm-1', role: 'pit-manager' });
      await new Promise((r) => setTimeout(r, 3_500));
      expect(await refusal(h.client.post('pit-manager', 'pm-2', `/decisions/${forever}/approve`, {}))).toEqual({ status: 422, code: 'DECISION.EXPIRED' });
      expect(await types(h, shoeId)).not.toContain('RoundVoided');
    } finally {
      await insiderDs.destroy();
    }
  });

  it('recall shows the whole chain: the request, the approval by a second manager, and the void that names both', async () => {
    const shoeId = runId('fe-recall');
    const roundId = `${shoeId}-R1`;
    await resultedRound(h, shoeId, roundId, 'dealer-1');
    const { decisionId } = await h.client.post('pit-manager', 'pm-1', `/shoes/${shoeId}/rounds/${roundId}/void`, { reason: REASON });
    const approved = await h.client.post('pit-manager', 'pm-2', `/decisions/${decisionId}/approve`, { reason: 'video reviewed' });
    const last = approved.events[approved.events.length - 1].eventId;
    const deadline = Date.now() + 60_000;
    while (!(await h.client.get('auditor', 'aud-1', `/projections/applied/${last}`)).applied) {
      if (Date.now() > deadline) throw new Error('not projected within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    const recall = await h.client.get('auditor', 'aud-1', `/shoes/${shoeId}/rounds/${roundId}/recall`);
    expect(recall.decisions).toEqual([expect.objectContaining({ decisionId, kind: 'VOID_ROUND', status: 'APPROVED', requestedBy: 'pm-1', decidedBy: 'pm-2', reason: REASON, decisionReason: 'video reviewed' })]);
    const types = recall.events.map((e: { type: string }) => e.type);
    expect(types.indexOf('DecisionRequested')).toBeGreaterThan(-1);
    expect(types.indexOf('DecisionApproved')).toBeGreaterThan(types.indexOf('DecisionRequested'));
    expect(types.indexOf('RoundVoided')).toBeGreaterThan(types.indexOf('DecisionApproved'));
    const voided = recall.events.find((e: { type: string }) => e.type === 'RoundVoided');
    expect(voided).toMatchObject({ actingManagerId: 'pm-1', approverId: 'pm-2', actorId: 'pm-2' });
    // the round's history names the requesting manager as actor and the second one as approver (the event above is the approver's append)
    const revision = recall.revisions.find((r: { kind: string }) => r.kind === 'VOIDED');
    expect(revision).toMatchObject({ actorId: 'pm-1', actingManagerId: 'pm-1', approverId: 'pm-2', reason: REASON });
    expect(recall.round.status).toBe('VOIDED');
  });
});
