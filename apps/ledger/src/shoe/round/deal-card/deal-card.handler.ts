import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { DealCardCommand } from './deal-card.command';

/**
 * Thin handler of {@link DealCardCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `DealCard`, append CardDealt [+ RoundResulted + BetSettled per bet]
 * (libs/shoe/src/decide/dealing.ts) with the expected version.
 */
@CommandHandler(DealCardCommand)
export class DealCardHandler implements ICommandHandler<DealCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId, position, card }: DealCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'DealCard', roundId, position, card }, ctx));
  }
}
