import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { CloseBettingCommand } from './close-betting.command';

/**
 * Thin handler of {@link CloseBettingCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `CloseBetting`, append BettingClosed (libs/shoe/src/decide/betting.ts) with the expected
 * version.
 */
@CommandHandler(CloseBettingCommand)
export class CloseBettingHandler implements ICommandHandler<CloseBettingCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId }: CloseBettingCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'CloseBetting', roundId }, ctx));
  }
}
