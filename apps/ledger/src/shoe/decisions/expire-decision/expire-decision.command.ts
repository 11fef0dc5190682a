import { Command } from '@nestjs/cqrs';
import type { WriteRequest } from '../../write-request';
import type { DecisionAnswer } from '../decision-answer';

/**
 * The ledger records that a pending decision was not approved in time (docs/domain-rules.md §6).
 * Sent by {@link DecisionExpirySweeper} as the ledger's own `system` actor; decided by
 * `ExpireDecisionHandler` (expire-decision.handler.ts).
 */
export class ExpireDecisionCommand extends Command<DecisionAnswer> {
  constructor(
    readonly request: WriteRequest,
    readonly decisionId: string,
  ) {
    super();
  }
}
