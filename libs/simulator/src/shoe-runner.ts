import { apiRequestOf, approvalRequestOf, isDecisionCommandKind, pendingDecisionOf, type ApiHttpRequest, type ApiRequest, type ApiWriterRole } from '@ledger/client';
import { commandOfAction, type TableAction } from './actions';
import { LedgerClient } from './ledger-client';
import type { ShoeScript } from './shoe-script';

/**
 * Who sends what: the table device, the betting platform and two pit managers, neither of them a
 * dealer. `manager` requests every management decision, `approver` approves it with their own
 * token (docs/domain-rules.md §6); they must differ.
 */
export interface RunnerActors {
  device: string;
  platform: string;
  manager: string;
  approver: string;
}

/** Counts of what a run sent. */
export interface RunStats {
  /** HTTP requests (a management decision makes two: the request and the approval). */
  requests: number;
  /** Events in the answers, approvals included. */
  events: number;
  bets: number;
  rounds: number;
  voids: number;
  corrections: number;
  /** Management decisions requested by `manager` (202) and approved by `approver` (201). */
  approvals: number;
}

/** The runner's default actors: `pm-1` requests, `pm-2` approves. */
export const DEFAULT_RUNNER_ACTORS: Readonly<RunnerActors> = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' };

/** The `Idempotency-Key` suffix of a decision's approval, after the key of its request. */
export const APPROVAL_KEY_SUFFIX = ':approve';

/**
 * Sends a generated shoe through the public HTTP API, in order, as a real table device, betting
 * platform and pit managers would. A management action goes in two steps: `actors.manager`
 * requests it (202 `PENDING_APPROVAL`), then `actors.approver` approves the decision the answer
 * names (`POST /decisions/{decisionId}/approve`, 201). Each write carries an `Idempotency-Key`
 * derived from the shoe and the action's index (`<shoeId>:<i>`, the approval `<shoeId>:<i>:approve`),
 * so a re-run after a crash is safe.
 * @param onProgress called after each action with (done, total)
 * @throws Error when `actors.manager` and `actors.approver` are the same (the ledger would refuse every decision)
 * @throws LedgerHttpError on the first refused request (a generated shoe should have none)
 */
export async function runShoeScript(script: ShoeScript, client: LedgerClient, actors: RunnerActors = DEFAULT_RUNNER_ACTORS, onProgress?: (done: number, total: number) => void): Promise<RunStats> {
  if (actors.manager === actors.approver) throw new Error(`the approving pit manager must differ from the requesting one (both ${actors.manager})`);
  const stats: RunStats = { requests: 0, events: 0, bets: 0, rounds: 0, voids: 0, corrections: 0, approvals: 0 };
  for (let i = 0; i < script.actions.length; i++) {
    const a = script.actions[i];
    const key = `${script.shoeId}:${i}`;
    const req = requestOfAction(a, script.shoeId);
    const res = await sendApiRequest(client, req, subjectOf(req.role, actors), { 'idempotency-key': key });
    stats.requests++;
    stats.events += res?.events?.length ?? 0;
    const pending = isDecisionCommandKind(req.kind) ? pendingDecisionOf(res) : null;
    if (pending) {
      const [, sub, , , approval] = approvalRoute(pending.decisionId, actors);
      const approved = await sendApiRequest(client, approval, sub, { 'idempotency-key': key + APPROVAL_KEY_SUFFIX });
      stats.requests++;
      stats.events += approved?.events?.length ?? 0;
      stats.approvals++;
    }
    if (a.kind === 'bets') stats.bets += a.bets.length;
    if (a.kind === 'openRound') stats.rounds++;
    if (a.kind === 'voidRound') stats.voids++;
    if (a.kind === 'correctResult') stats.corrections++;
    onProgress?.(i + 1, script.actions.length);
  }
  return stats;
}

/**
 * The HTTP request of one action of the shoe `shoeId` (`@ledger/client`: the route, role and body
 * of its command). For a management action it is the request only; see {@link approvalRoute}.
 * The third parameter is no longer read (a request names no approver) and is kept for callers.
 */
export function requestOfAction(a: TableAction, shoeId: string, _actors?: RunnerActors): ApiRequest {
  return apiRequestOf(commandOfAction(a, shoeId));
}

/** Who sends as `role`: the device, the platform, or the acting (requesting) pit manager. */
export function subjectOf(role: ApiWriterRole, actors: Pick<RunnerActors, 'device' | 'platform' | 'manager'>): string {
  return role === 'table-device' ? actors.device : role === 'betting-platform' ? actors.platform : actors.manager;
}

/**
 * Sends a request with its method (every write is a POST) as `sub`.
 * @returns the parsed body of the 2xx answer (201, or 202 for a management request)
 * @throws LedgerHttpError otherwise
 */
export function sendApiRequest<T = any>(client: LedgerClient, req: ApiHttpRequest, sub: string, headers: Record<string, string> = {}): Promise<T> {
  switch (req.method) {
    case 'POST':
      return client.post<T>(req.role, sub, req.path, req.body, headers);
  }
}

type Route = [ApiWriterRole, string, string, unknown];

/**
 * The role, token subject, path and body of one action, as a tuple (for callers that send the
 * request themselves). A management action's answer names a pending decision: send
 * {@link approvalRoute} of its `decisionId` next.
 * @param s the shoe's path prefix, `/shoes/<URI-encoded shoeId>`
 */
export function route(a: TableAction, s: string, actors: RunnerActors): Route {
  const shoeId = decodeURIComponent(s.replace(/^\/shoes\//, ''));
  const req = requestOfAction(a, shoeId);
  return [req.role, subjectOf(req.role, actors), req.path, req.body];
}

/**
 * The second step of a management decision: `POST /decisions/{decisionId}/approve` as
 * `actors.approver` (pit-manager role, their own token), as a tuple like {@link route}'s, plus
 * the request itself.
 */
export function approvalRoute(decisionId: string, actors: Pick<RunnerActors, 'approver'>): [...Route, ApiHttpRequest] {
  const req = approvalRequestOf(decisionId);
  return [req.role, actors.approver, req.path, req.body, req];
}
