import { apiRequestOf, type ApiCommand, type ApiRequest } from '@ledger/client';
import { subjectOf } from '@ledger/simulator';
import type { TableLogLine, TableLogRole } from '@ledger/table-log';

/** Who sends lines that carry no `actor`: one id per role. */
export interface ReplayActors {
  /** Table device (table facts). @default device-1 */
  readonly device: string;
  /** Betting platform (bets). @default platform-1 */
  readonly platform: string;
  /** Acting pit manager (decisions; the approver is on the line). @default pm-1 */
  readonly manager: string;
}

/** The simulator runner's defaults, so a saved simulated shoe replays as the runner sent it. */
export const DEFAULT_REPLAY_ACTORS: ReplayActors = { device: 'device-1', platform: 'platform-1', manager: 'pm-1' };

/** One HTTP write of the ledger API: the request of a command (kind, method, role, path, body) and the token subject. */
export interface ApiWrite extends ApiRequest {
  readonly role: TableLogRole;
  /** Token subject: the line's `actor`, else the default of the role. */
  readonly sub: string;
}

/**
 * The API request that records one table-log line: the line is a command of the API
 * (`@ledger/client` API_COMMANDS: route, role and body of each kind, the same the simulator
 * runner sends). `occurredAt` goes into the body; `actor` becomes the token's subject; nothing
 * else is added (the API refuses unknown body fields).
 */
export function apiWriteOf(l: TableLogLine, actors: ReplayActors = DEFAULT_REPLAY_ACTORS): ApiWrite {
  const { actor, ...command } = l;
  const req = apiRequestOf(command as ApiCommand);
  return { ...req, sub: actor ?? subjectOf(req.role, actors) };
}
