import { Command } from '@nestjs/cqrs';
import type { WriteRequest } from '../../write-request';
import type { DecisionAnswer } from '../decision-answer';

/**
 * A second pit manager rejects a pending decision with a reason (docs/domain-rules.md §6): nothing changes.
 * `POST /decisions/{decisionId}/reject`.
 * `RejectDecisionHandler` (reject-decision.handler.ts) decides it.
 */
export class RejectDecisionCommand extends Command<DecisionAnswer> {
  constructor(
    /** The decision's shoe stream and the rejecting manager (the token's subject, never a body field). */
    readonly request: WriteRequest,
    readonly decisionId: string,
    /** Why, 3..500 characters. */
    readonly reason: string,
  ) {
    super();
  }
}
