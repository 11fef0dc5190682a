/**
 * Impossible input through HTTP (docs/guarantees.md §11): a 4xx with a
 * stable error code, the refusal in the append-only rejection log, and nothing else changed.
 * Also authentication and roles (docs/guarantees.md §12), idempotency and expected versions over HTTP.
 */
import { randomUUID } from 'node:crypto';
import { LedgerHttpError } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(180_000);

describe('refused input through the HTTP API', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  const dev = (path: string, body: unknown = {}, headers: Record<string, string> = {}) => h.client.post('table-device', 'device-1', path, body, headers);
  const bet = (shoe: string, round: string, bets: unknown[]) => h.client.post('betting-platform', 'platform-1', `/shoes/${shoe}/rounds/${round}/bets/batch`, { bets });

  /** Opens a shoe, commences with `first` and burns the given cards. */
  async function openShoe(tableId: string, first = '2C', burns: string[] = ['3C', '4C']) {
    const shoeId = runId('rej');
    await dev(`/tables/${tableId}/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: first });
    for (const c of burns) await dev(`/shoes/${shoeId}/burns`, { card: c });
    return shoeId;
  }

  /** Sends a request that must be refused: checks status, code, the rejection log and that the stream did not move. */
  async function expectRefused(shoeId: string | null, send: () => Promise<unknown>, status: number, code: string) {
    const before = shoeId ? await h.store.streamVersion(`shoe-${shoeId}`) : null;
    const [{ n: rejectionsBefore }] = await h.ds.query(`SELECT count(*)::int AS n FROM rejections WHERE code = $1`, [code]);
    const err = await send().then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(LedgerHttpError);
    expect({ status: err.status, code: err.code }).toEqual({ status, code });
    const [{ n: rejectionsAfter }] = await h.ds.query(`SELECT count(*)::int AS n FROM rejections WHERE code = $1`, [code]);
    expect(rejectionsAfter).toBe(rejectionsBefore + 1);
    if (shoeId) expect(await h.store.streamVersion(`shoe-${shoeId}`)).toBe(before);
    return err as LedgerHttpError;
  }

  it('refuses a ninth KH in an 8-deck shoe', async () => {
    // commencement KH burns ten: seven more KH make eight, then three others
    const shoeId = await openShoe('T-CLASSIC-01', 'KH', ['KH', 'KH', 'KH', 'KH', 'KH', 'KH', 'KH', '2D', '3D', '4D']);
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/close-betting`);
    await expectRefused(shoeId, () => dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/cards`, { position: 'P1', card: 'KH' }), 422, 'SHOE.CARD_EXCEEDS_DECKS');
  });

  it('refuses a Banker third card when the Banker must stand, naming the violation', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/close-betting`);
    // Player 6 (stands), Banker 7 (stands): the round is complete after four cards
    for (const [position, card] of [
      ['P1', '3S'],
      ['B1', '4S'],
      ['P2', '3H'],
      ['B2', '3D'],
    ])
      await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/cards`, { position, card });
    const err = await expectRefused(shoeId, () => dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/cards`, { position: 'B3', card: '5S' }), 422, 'TABLEAU.VIOLATION');
    expect((err.body as any).error.details.violation).toBeDefined();
  });

  it('refuses a bet after betting closed', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/close-betting`);
    await expectRefused(shoeId, () => bet(shoeId, `${shoeId}-r1`, [{ betId: 'b1', accountId: 'a1', betCode: 'PLAYER', stake: '500', currency: 'EUR' }]), 422, 'ROUND.BETTING_CLOSED');
  });

  it('refuses a Tiger bet on hand 61 of a non-virtual shoe and takes it on a virtual one', async () => {
    const voidSixty = async (shoeId: string) => {
      const suits = ['S', 'H', 'D', 'C'];
      const ranks = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
      for (let i = 1; i <= 60; i++) {
        await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r${i}` });
        // a card exposed while bets are open voids the hand (§5.3); hands are counted voided included (§3.2)
        await dev(`/shoes/${shoeId}/exposed-cards`, { card: `${ranks[i % 13]}${suits[i % 4]}` });
      }
      await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r61` });
    };
    const tiger = await openShoe('T-TIGER-01');
    await voidSixty(tiger);
    const tigerBet = [{ betId: 'b61', accountId: 'a1', betCode: 'TIGER', stake: '500', currency: 'EUR' }];
    await expectRefused(tiger, () => bet(tiger, `${tiger}-r61`, tigerBet), 422, 'BET.OUTSIDE_WINDOW');
    const virtual = await openShoe('T-TIGER-V01');
    await voidSixty(virtual);
    const ok = await bet(virtual, `${virtual}-r61`, tigerBet);
    expect(ok.events.map((e: any) => e.type)).toEqual(['BetPlaced']);
  });

  it('refuses a stake above the table maximum, a stake of 2^63 and a malformed card', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    const b = (stake: string) => [{ betId: `b-${stake.length}`, accountId: 'a1', betCode: 'PLAYER', stake, currency: 'EUR' }];
    await expectRefused(shoeId, () => bet(shoeId, `${shoeId}-r1`, b('1000001')), 422, 'BET.ABOVE_MAXIMUM');
    await expectRefused(shoeId, () => bet(shoeId, `${shoeId}-r1`, b((2n ** 63n).toString())), 422, 'MONEY.INVALID_STAKE');
    await expectRefused(shoeId, () => dev(`/shoes/${shoeId}/burns`, { card: '1S' }), 400, 'CARD.MALFORMED');
  });

  it('refuses an unknown table with 404 TABLE.UNKNOWN', async () => {
    await expectRefused(null, () => dev(`/tables/NO-SUCH-TABLE/shoes`, { shoeId: runId('x'), dealerId: 'd' }), 404, 'TABLE.UNKNOWN');
  });

  it('answers 401 without a token and 403 with the wrong role, and logs both', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await expectRefused(
      shoeId,
      async () => {
        const res = await fetch(`${h.baseUrl}/shoes/${shoeId}/rounds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"roundId":"r1"}' });
        throw new LedgerHttpError(res.status, ((await res.json()) as any).error.code, null, 'POST');
      },
      401,
      'AUTH.UNAUTHENTICATED',
    );
    await expectRefused(shoeId, () => h.client.post('betting-platform', 'platform-1', `/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` }), 403, 'AUTH.FORBIDDEN');
    await expectRefused(shoeId, () => h.client.post('auditor', 'aud-1', `/shoes/${shoeId}/void`, { reason: 'x'.repeat(10) }), 403, 'AUTH.FORBIDDEN');
  });

  it('refuses a void requested or approved by the dealer of the round, or approved by its requester, and takes one requested and approved by two other managers', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    await bet(shoeId, `${shoeId}-r1`, [{ betId: 'b1', accountId: 'a1', betCode: 'BANKER', stake: '1000', currency: 'EUR' }]);
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/close-betting`);
    for (const [position, card] of [
      ['P1', '9S'],
      ['B1', '4S'],
      ['P2', 'KH'],
      ['B2', '3D'],
    ])
      await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/cards`, { position, card });
    const pm = (sub: string, body: unknown) => h.client.post('pit-manager', sub, `/shoes/${shoeId}/rounds/${shoeId}-r1/void`, body);
    const approve = (sub: string, decisionId: string) => h.client.post('pit-manager', sub, `/decisions/${decisionId}/approve`, {});
    /** A pit manager's POST with its HTTP status (the client keeps only the body). */
    const posted = async (sub: string, path: string, body: unknown) => {
      const res = await fetch(`${h.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.client.token('pit-manager', sub)}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    // the request: never by the dealer, always with a reason, never naming an approver (the approver is a token)
    await expectRefused(shoeId, () => pm('dealer-1', { reason: 'dealer misdealt' }), 422, 'MANAGEMENT.DEALER_CANNOT_DECIDE');
    await expectRefused(shoeId, () => pm('pm-1', { reason: 'dealer misdealt', approverId: 'pm-2' }), 400, 'VALIDATION.FAILED');
    await expectRefused(shoeId, () => pm('pm-1', {}), 400, 'VALIDATION.FAILED');
    const before = await h.store.streamVersion(`shoe-${shoeId}`);
    const asked = await posted('pm-1', `/shoes/${shoeId}/rounds/${shoeId}-r1/void`, { reason: 'dealer misdealt' });
    expect(asked.status).toBe(202);
    const requested = asked.body;
    expect(requested).toMatchObject({ status: 'PENDING_APPROVAL', decisionId: expect.any(String), expiresAt: expect.any(String) });
    expect(requested.events.map((e: any) => e.type)).toEqual(['DecisionRequested']);
    expect(await h.store.streamVersion(`shoe-${shoeId}`)).toBe(before + 1);
    // the approval: never by the requester, never by the dealer of the round
    await expectRefused(shoeId, () => approve('pm-1', requested.decisionId), 422, 'MANAGEMENT.SAME_APPROVER');
    await expectRefused(shoeId, () => approve('dealer-1', requested.decisionId), 422, 'MANAGEMENT.DEALER_CANNOT_DECIDE');
    const approved = await posted('pm-2', `/decisions/${requested.decisionId}/approve`, {});
    expect(approved.status).toBe(201);
    const ok = approved.body;
    expect(ok).toMatchObject({ decisionId: requested.decisionId, status: 'APPROVED' });
    expect(ok.events.map((e: any) => e.type)).toEqual(['DecisionApproved', 'RoundVoided', 'BetRefunded']);
    expect(ok.events[1].data.decision).toMatchObject({ reason: 'dealer misdealt', actingManagerId: 'pm-1', approverId: 'pm-2', decisionId: requested.decisionId });
  });

  it('answers a retried request with the first answer and stores it once', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    const key = { 'idempotency-key': randomUUID() };
    const first = await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` }, key);
    const again = await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` }, key);
    expect(again).toEqual(first);
    const events = await h.store.readStream(`shoe-${shoeId}`);
    expect(events.filter((e) => e.type === 'RoundOpened')).toHaveLength(1);
    await expectRefused(shoeId, () => dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r2` }, key), 409, 'IDEMPOTENCY.KEY_REUSED');
  });

  it('answers a retry with the first answer whatever the newer state says of it: refused, stale, or accepted again (the append checks the key)', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-r1` });
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-r1/close-betting`);
    const cards = `/shoes/${shoeId}/rounds/${shoeId}-r1/cards`;
    // refused by the newer state (P1 is dealt already): the first answer
    const p1Key = { 'idempotency-key': randomUUID() };
    const p1 = await dev(cards, { position: 'P1', card: '2H' }, p1Key);
    expect(await dev(cards, { position: 'P1', card: '2H' }, p1Key)).toEqual(p1);
    // sent at a version the first answer made stale (409 on its own): the first answer
    const v = await h.store.streamVersion(`shoe-${shoeId}`);
    const b1Key = { 'idempotency-key': randomUUID() };
    const b1 = await dev(cards, { position: 'B1', card: '3H', expectedVersion: v }, b1Key);
    expect(await dev(cards, { position: 'B1', card: '3H', expectedVersion: v }, b1Key)).toEqual(b1);
    expect((await h.store.readStream(`shoe-${shoeId}`)).filter((e) => e.type === 'CardDealt').map((e) => (e.data as { position: string }).position)).toEqual(['P1', 'B1']);

    // accepted again by the newer state (a KH commencement card calls for ten burns): one burn stored, the first answer
    const shoe2 = await openShoe('T-CLASSIC-01', 'KH', []);
    const burnKey = { 'idempotency-key': randomUUID() };
    const burn = await dev(`/shoes/${shoe2}/burns`, { card: '5C' }, burnKey);
    const after = await h.store.streamVersion(`shoe-${shoe2}`);
    expect(await dev(`/shoes/${shoe2}/burns`, { card: '5C' }, burnKey)).toEqual(burn);
    expect(await h.store.streamVersion(`shoe-${shoe2}`)).toBe(after);
    // the key on another request the newer state accepts: 409, nothing stored
    await expectRefused(shoe2, () => dev(`/shoes/${shoe2}/burns`, { card: '6C' }, burnKey), 409, 'IDEMPOTENCY.KEY_REUSED');
  });

  it('answers 409 to a write at a stale expected version, and of two concurrent ones exactly one wins', async () => {
    const shoeId = await openShoe('T-CLASSIC-01');
    const v = await h.store.streamVersion(`shoe-${shoeId}`);
    const results = await Promise.allSettled([dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-ra`, expectedVersion: v }), dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-rb`, expectedVersion: v })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ status: 409, code: 'STREAM.VERSION_CONFLICT' });
    expect(await h.store.streamVersion(`shoe-${shoeId}`)).toBe(v + 1);
  });

  it('refuses a round id or bet id another shoe already recorded (they are ledger-wide references)', async () => {
    const first = await openShoe('T-CLASSIC-01');
    const second = await openShoe('T-CLASSIC-01');
    const roundId = `${first}-shared`;
    await dev(`/shoes/${first}/rounds`, { roundId });
    await expectRefused(second, () => dev(`/shoes/${second}/rounds`, { roundId }), 422, 'ROUND.DUPLICATE_ID');
    const betId = `${first}-bet`;
    await bet(first, roundId, [{ betId, accountId: 'a1', betCode: 'PLAYER', stake: '500', currency: 'EUR' }]);
    await dev(`/shoes/${second}/rounds`, { roundId: `${second}-r1` });
    await expectRefused(second, () => bet(second, `${second}-r1`, [{ betId, accountId: 'a1', betCode: 'PLAYER', stake: '500', currency: 'EUR' }]), 422, 'BET.DUPLICATE_ID');
  });
});
