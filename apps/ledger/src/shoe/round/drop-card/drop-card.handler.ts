import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { DropCardCommand } from './drop-card.command';

/**
 * Thin handler of {@link DropCardCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `DropCard`, append CardDropped [+ RoundVoided + BetRefunded per bet]
 * (libs/shoe/src/decide/incidents.ts) with the expected version.
 */
@CommandHandler(DropCardCommand)
export class DropCardHandler implements ICommandHandler<DropCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, card, exposedBeforeLeavingView, phase }: DropCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'DropCard', card, exposedBeforeLeavingView, phase }, ctx));
  }
}
