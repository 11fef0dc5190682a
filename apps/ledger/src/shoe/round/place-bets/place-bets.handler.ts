import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { PlaceBetsCommand } from './place-bets.command';

/**
 * Thin handler of {@link PlaceBetsCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `PlaceBets`, append one BetPlaced per bet (libs/shoe/src/decide/betting.ts) with the
 * expected version.
 */
@CommandHandler(PlaceBetsCommand)
export class PlaceBetsHandler implements ICommandHandler<PlaceBetsCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId, bets }: PlaceBetsCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'PlaceBets', roundId, bets }, ctx));
  }
}
