import { apiRequestOf, type ApiRequest, type ApiWriterRole } from '@ledger/client';
import { commandOfAction, type TableAction } from './actions';
import { LedgerClient } from './ledger-client';
import type { ShoeScript } from './shoe-script';

/** Who sends what: device, platform and the two pit managers (neither is the dealer). */
export interface RunnerActors {
  device: string;
  platform: string;
  manager: string;
  approver: string;
}

/** Counts of what a run sent. */
export interface RunStats {
  requests: number;
  events: number;
  bets: number;
  rounds: number;
  voids: number;
  corrections: number;
}

const DEFAULT_ACTORS: RunnerActors = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' };

/**
 * Sends a generated shoe through the public HTTP API, in order, as a real table device, betting
 * platform and pit managers would. Each write carries an `Idempotency-Key` derived from the shoe
 * and the action's index, so a re-run after a crash is safe.
 * @param onProgress called after each action with (done, total)
 * @throws LedgerHttpError on the first refused action (a generated shoe should have none)
 */
export async function runShoeScript(
  script: ShoeScript,
  client: LedgerClient,
  actors: RunnerActors = DEFAULT_ACTORS,
  onProgress?: (done: number, total: number) => void,
): Promise<RunStats> {
  const stats: RunStats = { requests: 0, events: 0, bets: 0, rounds: 0, voids: 0, corrections: 0 };
  for (let i = 0; i < script.actions.length; i++) {
    const a = script.actions[i];
    const key = { 'idempotency-key': `${script.shoeId}:${i}` };
    const req = requestOfAction(a, script.shoeId, actors);
    const res = await sendApiRequest(client, req, subjectOf(req.role, actors), key);
    stats.requests++;
    stats.events += res.events?.length ?? 0;
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
 * of its command; decisions approved by `actors.approver`).
 */
export function requestOfAction(a: TableAction, shoeId: string, actors: RunnerActors): ApiRequest {
  return apiRequestOf(commandOfAction(a, shoeId, actors.approver));
}

/** Who sends as `role`: the device, the platform, or the acting pit manager. */
export function subjectOf(role: ApiWriterRole, actors: Pick<RunnerActors, 'device' | 'platform' | 'manager'>): string {
  return role === 'table-device' ? actors.device : role === 'betting-platform' ? actors.platform : actors.manager;
}

/**
 * Sends a request with its method (every write is a POST) as `sub`.
 * @returns the parsed body of the 2xx answer
 * @throws LedgerHttpError otherwise
 */
export function sendApiRequest<T = any>(client: LedgerClient, req: ApiRequest, sub: string, headers: Record<string, string> = {}): Promise<T> {
  switch (req.method) {
    case 'POST':
      return client.post<T>(req.role, sub, req.path, req.body, headers);
  }
}

type Route = [ApiWriterRole, string, string, unknown];

/**
 * The role, token subject, path and body of one action, as a tuple (for callers that send the
 * request themselves).
 * @param s the shoe's path prefix, `/shoes/<URI-encoded shoeId>`
 */
export function route(a: TableAction, s: string, actors: RunnerActors): Route {
  const shoeId = decodeURIComponent(s.replace(/^\/shoes\//, ''));
  const req = requestOfAction(a, shoeId, actors);
  return [req.role, subjectOf(req.role, actors), req.path, req.body];
}
