import { Command } from '@nestjs/cqrs';
import type { WriteRequest } from '../../write-request';
import type { DecisionAnswer } from '../decision-answer';

/**
 * A second pit manager approves a pending decision with their own token (docs/domain-rules.md §6):
 * `POST /decisions/{decisionId}/approve`. The compensating events follow DecisionApproved in the
 * same append. `ApproveDecisionHandler` (approve-decision.handler.ts) decides it.
 */
export class ApproveDecisionCommand extends Command<DecisionAnswer> {
  constructor(
    /** The decision's shoe stream and the approver (the token's subject, never a body field). */
    readonly request: WriteRequest,
    readonly decisionId: string,
    /** Optional remark of the approver. */
    readonly reason: string | null,
  ) {
    super();
  }
}
