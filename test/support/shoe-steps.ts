import { isDecisionCommandKind, pendingDecisionOf } from '@ledger/client';
import { APPROVAL_KEY_SUFFIX, approvalRoute, DEFAULT_RUNNER_ACTORS, requestOfAction, sendApiRequest, subjectOf, type LedgerClient, type ShoeScript } from '@ledger/simulator';

/**
 * Runs the actions `from` (inclusive) to `to` (exclusive) of a shoe script, as `runShoeScript`
 * does for the whole script (management requests approved by a second pit manager; the same
 * idempotency keys, `<shoeId>:<index>`), so a spec can stop in the middle of a shoe (e.g. to close
 * a gaming day before a correction) and go on later.
 */
export async function runActions(client: LedgerClient, script: ShoeScript, from: number, to: number = script.actions.length): Promise<void> {
  const actors = DEFAULT_RUNNER_ACTORS;
  for (let i = from; i < to; i++) {
    const key = `${script.shoeId}:${i}`;
    const req = requestOfAction(script.actions[i], script.shoeId);
    const res = await sendApiRequest(client, req, subjectOf(req.role, actors), { 'idempotency-key': key });
    const pending = isDecisionCommandKind(req.kind) ? pendingDecisionOf(res) : null;
    if (pending) {
      const [, sub, , , approval] = approvalRoute(pending.decisionId, actors);
      await sendApiRequest(client, approval, sub, { 'idempotency-key': key + APPROVAL_KEY_SUFFIX });
    }
  }
}

/** Waits until the projections applied `eventId` (at most 60 s). */
export async function waitApplied(client: LedgerClient, eventId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await client.get('auditor', 'aud-1', `/projections/applied/${eventId}`);
    if (r.applied) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`event ${eventId} not projected within 60 s`);
}

/** Waits until the API answers `asOf=<position>` (the relay marked it published and the projector applied it; at most 60 s). */
export async function waitAsOf(baseUrl: string, token: string, position: bigint): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await fetch(`${baseUrl}/reports/reconciliation?groupBy=currency&asOf=${position}`, { headers: { authorization: `Bearer ${token}` } });
    await r.text();
    if (r.status === 200) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`asOf=${position} not answerable within 60 s`);
}

/** A shoe opened with one round dealt to a PLAYER win: what {@link dealPlayerWin} does. */
export interface PlayerWinRound {
  readonly tableId: string;
  readonly shoeId: string;
  readonly roundId: string;
  readonly dealerId: string;
  /** The PLAYER bet's stake, minor units of EUR (bet `<roundId>-B1` of `acct-1`): it wins as much. */
  readonly stake: string;
  /** The device's `occurredAt` of the shoe's opening (a skewed clock), or the device's own now. */
  readonly openedAt?: string;
}

/**
 * Opens shoe `shoeId` on `tableId` (dealer `dealerId`, commencement AS, one burn) as table device
 * `device-1`, opens round `roundId`, places one PLAYER bet of `stake` EUR as `platform-1`, closes the
 * betting and deals P 9S, B 2H, P KD, B 3C: Player 9 against Banker 5, a natural, so the bet wins
 * `stake` (a large win at a low `SIGNIFICANT_WIN_AMOUNT_MINOR`).
 */
export async function dealPlayerWin(client: LedgerClient, r: PlayerWinRound): Promise<void> {
  const dev = (path: string, body: unknown = {}) => client.post('table-device', 'device-1', path, body);
  await dev(`/tables/${r.tableId}/shoes`, { shoeId: r.shoeId, dealerId: r.dealerId, ...(r.openedAt ? { occurredAt: r.openedAt } : {}) });
  await dev(`/shoes/${r.shoeId}/commencement`, { card: 'AS' });
  await dev(`/shoes/${r.shoeId}/burns`, { card: null });
  await dev(`/shoes/${r.shoeId}/rounds`, { roundId: r.roundId });
  await client.post('betting-platform', 'platform-1', `/shoes/${r.shoeId}/rounds/${r.roundId}/bets`, {
    bet: { betId: `${r.roundId}-B1`, accountId: 'acct-1', betCode: 'PLAYER', stake: r.stake, currency: 'EUR' },
  });
  await dev(`/shoes/${r.shoeId}/rounds/${r.roundId}/close-betting`);
  for (const [position, card] of [
    ['P1', '9S'],
    ['B1', '2H'],
    ['P2', 'KD'],
    ['B2', '3C'],
  ])
    await dev(`/shoes/${r.shoeId}/rounds/${r.roundId}/cards`, { position, card });
}
