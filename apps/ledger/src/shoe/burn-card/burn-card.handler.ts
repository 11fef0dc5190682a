import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { BurnCardCommand } from './burn-card.command';

/**
 * Thin handler of {@link BurnCardCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `BurnCard`, append CardBurned (libs/shoe/src/decide/commencement.ts) with the expected
 * version.
 */
@CommandHandler(BurnCardCommand)
export class BurnCardHandler implements ICommandHandler<BurnCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, card }: BurnCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'BurnCard', card }, ctx));
  }
}
