import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { CorrectResultCommand } from './correct-result.command';

/**
 * Thin handler of {@link CorrectResultCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `CorrectResult`, append ResultCorrected + BetResettled per bet
 * (libs/shoe/src/decide/management.ts) with the expected version.
 */
@CommandHandler(CorrectResultCommand)
export class CorrectResultHandler implements ICommandHandler<CorrectResultCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId, cards, decision }: CorrectResultCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'CorrectResult', roundId, cards, decision }, ctx));
  }
}
