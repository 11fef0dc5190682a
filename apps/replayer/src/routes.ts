import { apiRequestOf, approvalRequestOf, isDecisionCommandKind, type ApiCommand, type ApiDecisionActRequest, type ApiRequest } from '@ledger/client';
import { subjectOf } from '@ledger/simulator';
import type { TableLogLine, TableLogRole } from '@ledger/table-log';

/** Who sends lines that carry no `actor` (and approves decision lines that carry no `approverId`). */
export interface ReplayActors {
  /** Table device (table facts). @default device-1 */
  readonly device: string;
  /** Betting platform (bets). @default platform-1 */
  readonly platform: string;
  /** Requesting pit manager (decisions). @default pm-1 */
  readonly manager: string;
  /** Approving pit manager (decisions without `approverId`); must differ from the requester. @default pm-2 */
  readonly approver?: string;
}

/** The simulator runner's defaults, so a saved simulated shoe replays as the runner sent it. */
export const DEFAULT_REPLAY_ACTORS: Required<ReplayActors> = { device: 'device-1', platform: 'platform-1', manager: 'pm-1', approver: 'pm-2' };

/** One HTTP write of the ledger API: the request of a command (kind, method, role, path, body) and the token subject. */
export interface ApiWrite extends ApiRequest {
  readonly role: TableLogRole;
  /** Token subject: the line's `actor`, else the default of the role. */
  readonly sub: string;
}

/** The second step of a decision line: the approval of its pending decision, and who sends it. */
export interface ApprovalWrite extends ApiDecisionActRequest {
  /** Token subject: the line's `approverId`, else the default approver. */
  readonly sub: string;
}

/**
 * The API request that records one table-log line: the line is a command of the API
 * (`@ledger/client` API_COMMANDS: route, role and body of each kind, the same the simulator
 * runner sends). `occurredAt` goes into the body; `actor` becomes the token's subject; nothing
 * else is added (the API refuses unknown body fields). For a management decision this is the
 * request, answered with a pending decision: see {@link approvalWriteOf} for the second step.
 */
export function apiWriteOf(l: TableLogLine, actors: ReplayActors = DEFAULT_REPLAY_ACTORS): ApiWrite {
  const { actor, ...line } = l;
  const { approverId: _approver, ...command } = line as typeof line & { approverId?: string };
  const req = apiRequestOf(command as ApiCommand);
  return { ...req, sub: actor ?? subjectOf(req.role, actors) };
}

/** The approving pit manager of a decision line: its `approverId`, else `actors.approver` (default `pm-2`). */
export function approverOf(l: TableLogLine, actors: ReplayActors = DEFAULT_REPLAY_ACTORS): string {
  const own = 'approverId' in l ? l.approverId : undefined;
  return own ?? actors.approver ?? DEFAULT_REPLAY_ACTORS.approver;
}

/**
 * The approval of the decision a decision line's request opened (`decisionId` from its 202
 * answer): `POST /decisions/{decisionId}/approve` with a token of {@link approverOf}. Null for a
 * line that is not a management decision.
 */
export function approvalWriteOf(l: TableLogLine, decisionId: string, actors: ReplayActors = DEFAULT_REPLAY_ACTORS): ApprovalWrite | null {
  if (!isDecisionCommandKind(l.kind)) return null;
  return { ...approvalRequestOf(decisionId), sub: approverOf(l, actors) };
}
