import { Command } from '@nestjs/cqrs';
import type { DecisionRequestInput } from '@ledger/shoe';
import type { WriteRequest } from '../../write-request';
import type { DecisionAnswer } from '../decision-answer';

/**
 * A pit manager requests a management decision on a shoe (docs/domain-rules.md §6): void a round,
 * correct a result, void the shoe, correct the commencement. Nothing changes until a second pit
 * manager approves it (`POST /decisions/{decisionId}/approve`).
 *
 * Sent by the four management routes (`…/void`, `…/result-corrections`, `/shoes/{id}/void`,
 * `…/commencement/corrections`); `RequestDecisionHandler` (request-decision.handler.ts) decides it.
 */
export class RequestDecisionCommand extends Command<DecisionAnswer> {
  constructor(
    /** The shoe's stream and the requester (the token's subject). */
    readonly request: WriteRequest,
    /** What is asked for. */
    readonly proposal: DecisionRequestInput,
    /** Why, 3..500 characters. */
    readonly reason: string,
  ) {
    super();
  }
}
