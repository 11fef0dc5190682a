import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { OpenRoundCommand } from './open-round.command';

/**
 * Thin handler of {@link OpenRoundCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `OpenRound`, append RoundOpened (libs/shoe/src/decide/betting.ts) with the expected
 * version.
 */
@CommandHandler(OpenRoundCommand)
export class OpenRoundHandler implements ICommandHandler<OpenRoundCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId }: OpenRoundCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'OpenRound', roundId }, ctx));
  }
}
