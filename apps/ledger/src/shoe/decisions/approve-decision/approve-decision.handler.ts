import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDecision } from '@ledger/shoe';
import { ShoeStreamWriter } from '../../shoe-stream.writer';
import { decisionAnswer, type DecisionAnswer } from '../decision-answer';
import { ApproveDecisionCommand } from './approve-decision.command';

/**
 * Thin handler of {@link ApproveDecisionCommand} (docs/architecture.md §3): load the shoe's stream,
 * decide `ApproveDecision` (libs/shoe/src/decisions/decisions.ts: approver ≠ requester, not a dealer
 * of any round concerned, not expired; then the management command from the shoe as it stands),
 * append DecisionApproved + the compensating events.
 */
@CommandHandler(ApproveDecisionCommand)
export class ApproveDecisionHandler implements ICommandHandler<ApproveDecisionCommand, DecisionAnswer> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decideDecision` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, decisionId, reason }: ApproveDecisionCommand): Promise<DecisionAnswer> {
    return this.stream.write(
      request,
      (shoe, ctx) => decideDecision(shoe, { type: 'ApproveDecision', decisionId, approvedBy: request.principal.id, reason, now: new Date().toISOString(), ...(request.evidence ? { evidence: request.evidence } : {}) }, ctx),
      { shape: decisionAnswer(decisionId, 'APPROVED') },
    );
  }
}
