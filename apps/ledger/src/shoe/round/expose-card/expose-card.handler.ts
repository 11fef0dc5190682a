import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { ExposeCardCommand } from './expose-card.command';

/**
 * Thin handler of {@link ExposeCardCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `ExposeCard`, append CardExposed [+ RoundVoided + BetRefunded per bet]
 * (libs/shoe/src/decide/incidents.ts) with the expected version.
 */
@CommandHandler(ExposeCardCommand)
export class ExposeCardHandler implements ICommandHandler<ExposeCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, card, phase }: ExposeCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'ExposeCard', card, phase }, ctx));
  }
}
