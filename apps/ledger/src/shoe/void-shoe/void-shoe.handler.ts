import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { VoidShoeCommand } from './void-shoe.command';

/**
 * Thin handler of {@link VoidShoeCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `VoidShoe`, append ShoeVoided + (RoundVoided + BetRefunded per bet) per round
 * (libs/shoe/src/decide/management.ts) with the expected version.
 */
@CommandHandler(VoidShoeCommand)
export class VoidShoeHandler implements ICommandHandler<VoidShoeCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, decision }: VoidShoeCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'VoidShoe', decision }, ctx));
  }
}
