import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDecision } from '@ledger/shoe';
import { ShoeStreamWriter } from '../../shoe-stream.writer';
import { decisionAnswer, type DecisionAnswer } from '../decision-answer';
import { ApproveDecisionCommand } from './approve-decision.command';
import { DecisionRequestCheck } from './decision-request-check';

/**
 * Thin handler of {@link ApproveDecisionCommand} (docs/architecture.md §3): load the shoe's stream,
 * decide `ApproveDecision` (libs/shoe/src/decisions/decisions.ts: approver ≠ requester, not a dealer
 * of any round concerned, not expired; then the management command from the shoe as it stands),
 * append DecisionApproved + the compensating events. Before that, the request's envelope is checked
 * ({@link DecisionRequestCheck}: recorded by its requester, within `DECISION_TTL_MS`).
 */
@CommandHandler(ApproveDecisionCommand)
export class ApproveDecisionHandler implements ICommandHandler<ApproveDecisionCommand, DecisionAnswer> {
  constructor(
    private readonly stream: ShoeStreamWriter,
    private readonly requests: DecisionRequestCheck,
  ) {}

  /** @throws DomainError what `decideDecision` refuses; ApiError as {@link ShoeStreamWriter.write} and {@link DecisionRequestCheck} say */
  async execute({ request, decisionId, reason }: ApproveDecisionCommand): Promise<DecisionAnswer> {
    const now = new Date().toISOString();
    await this.requests.assertGenuine(request.shoeId, decisionId, now);
    return this.stream.write(request, (shoe, ctx) => decideDecision(shoe, { type: 'ApproveDecision', decisionId, approvedBy: request.principal.id, reason, now, ...(request.evidence ? { evidence: request.evidence } : {}) }, ctx), {
      shape: decisionAnswer(decisionId, 'APPROVED'),
    });
  }
}
