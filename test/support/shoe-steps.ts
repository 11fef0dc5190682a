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
