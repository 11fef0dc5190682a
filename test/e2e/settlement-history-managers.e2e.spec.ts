/**
 * A settlement history names both managers of a two-manager decision (docs/reports.md §3,
 * docs/domain-rules.md §6): a round voided by a decision one pit manager requested and another
 * approved. The refund's entry names the requester as its actor and the approver as its approver
 * (the refund is appended with the approver's token, so the event's actor is the approver), and
 * carries the stake the wallet is credited back, in the bet's currency, besides its wallet amount.
 * Through HTTP against the real API, PostgreSQL, Kafka and the projector.
 */
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

const TABLE = 'T-CLASSIC-01';

type Entry = { kind: string; actorId: string; actorRole: string; approverId: string | null; reason: string | null; refundedStake: string | null; currency: string; walletAmount: string };

describe('settlement history of a two-manager refund', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('names the requester as actor and the approver as approver, and the refund carries its stake and currency', async () => {
    const shoeId = runId('hist-2pm');
    const roundId = `${shoeId}-R1`;
    const betId = `${roundId}-B1`;
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoeId}/burns`, { card: null });
    await dev(`/shoes/${shoeId}/rounds`, { roundId });
    await h.client.post('betting-platform', 'platform-1', `/shoes/${shoeId}/rounds/${roundId}/bets`, {
      bet: { betId, accountId: 'acct-1', betCode: 'PLAYER', stake: '1250', currency: 'EUR' },
    });
    await dev(`/shoes/${shoeId}/rounds/${roundId}/close-betting`);
    // player 9, banker 5: the PLAYER bet wins 1:1, payout 2500
    for (const [position, card] of [
      ['P1', '9S'],
      ['B1', '2H'],
      ['P2', 'KD'],
      ['B2', '3C'],
    ]) {
      await dev(`/shoes/${shoeId}/rounds/${roundId}/cards`, { position, card });
    }
    const reason = 'card exposed before betting closed';
    const { decisionId } = await h.client.post('pit-manager', 'pm-req', `/shoes/${shoeId}/rounds/${roundId}/void`, { reason });
    const approved = await h.client.post('pit-manager', 'pm-appr', `/decisions/${decisionId}/approve`, { reason: 'video reviewed' });
    expect(approved.status).toBe('APPROVED');
    const last = approved.events[approved.events.length - 1].eventId;
    const deadline = Date.now() + 60_000;
    while (!(await h.client.get('auditor', 'aud-1', `/projections/applied/${last}`)).applied) {
      if (Date.now() > deadline) throw new Error('not projected within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }

    const refundOf = (history: Entry[]) => history.find((e) => e.kind === 'REFUNDED');
    const expected = { kind: 'REFUNDED', actorId: 'pm-req', actorRole: 'pit-manager', approverId: 'pm-appr', reason, refundedStake: '1250', currency: 'EUR', walletAmount: '-1250' };

    const bet = await h.client.get('auditor', 'aud-1', `/settlements/${betId}`);
    expect(bet.history.map((e: Entry) => e.kind)).toEqual(['SETTLED', 'REFUNDED']);
    expect(refundOf(bet.history)).toMatchObject(expected);
    // the settlement no decision caused: its own actor, no approver, no refunded stake
    expect(bet.history[0]).toMatchObject({ kind: 'SETTLED', approverId: null, refundedStake: null, currency: 'EUR', walletAmount: '2500' });
    expect(bet.history[0].actorId).not.toBe('pm-appr');

    const recall = await h.client.get('auditor', 'aud-1', `/shoes/${shoeId}/rounds/${roundId}/recall`);
    const recalled = recall.bets.find((b: { betId: string }) => b.betId === betId);
    expect(refundOf(recalled.history)).toMatchObject({ ...expected, betId });

    const position = approved.events[approved.events.length - 1].globalPosition;
    const asOf = await h.client.get('auditor', 'aud-1', `/settlements/${betId}?asOf=${position}`);
    expect(refundOf(asOf.history)).toMatchObject(expected);
  });
});
