import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDecision } from '@ledger/shoe';
import { ShoeStreamWriter } from '../../shoe-stream.writer';
import { decisionAnswer, type DecisionAnswer } from '../decision-answer';
import { RejectDecisionCommand } from './reject-decision.command';

/**
 * Thin handler of {@link RejectDecisionCommand} (docs/architecture.md §3): load the shoe's stream,
 * decide `RejectDecision` (a pending decision, a reason, not its requester), append DecisionRejected.
 */
@CommandHandler(RejectDecisionCommand)
export class RejectDecisionHandler implements ICommandHandler<RejectDecisionCommand, DecisionAnswer> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decideDecision` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, decisionId, reason }: RejectDecisionCommand): Promise<DecisionAnswer> {
    return this.stream.write(
      request,
      (shoe, ctx) => decideDecision(shoe, { type: 'RejectDecision', decisionId, rejectedBy: request.principal.id, reason, now: new Date().toISOString(), ...(request.evidence ? { evidence: request.evidence } : {}) }, ctx),
      { shape: decisionAnswer(decisionId, 'REJECTED') },
    );
  }
}
