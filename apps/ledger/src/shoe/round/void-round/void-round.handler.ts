import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { VoidRoundCommand } from './void-round.command';

/**
 * Thin handler of {@link VoidRoundCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `VoidRound`, append RoundVoided + BetRefunded per bet
 * (libs/shoe/src/decide/management.ts) with the expected version.
 */
@CommandHandler(VoidRoundCommand)
export class VoidRoundHandler implements ICommandHandler<VoidRoundCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId, decision }: VoidRoundCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'VoidRound', roundId, decision }, ctx));
  }
}
