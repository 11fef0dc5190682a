import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDecision } from '@ledger/shoe';
import { ShoeStreamWriter } from '../../shoe-stream.writer';
import { decisionAnswer, type DecisionAnswer } from '../decision-answer';
import { ExpireDecisionCommand } from './expire-decision.command';

/** Thin handler of {@link ExpireDecisionCommand}: decide `ExpireDecision`, append DecisionExpired (docs/architecture.md §3). */
@CommandHandler(ExpireDecisionCommand)
export class ExpireDecisionHandler implements ICommandHandler<ExpireDecisionCommand, DecisionAnswer> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError `DECISION.NOT_EXPIRED`, `DECISION.ALREADY_DECIDED` (another instance got there first) */
  execute({ request, decisionId }: ExpireDecisionCommand): Promise<DecisionAnswer> {
    return this.stream.write(request, (shoe, ctx) => decideDecision(shoe, { type: 'ExpireDecision', decisionId, now: new Date().toISOString() }, ctx), {
      shape: decisionAnswer(decisionId, 'EXPIRED'),
    });
  }
}
