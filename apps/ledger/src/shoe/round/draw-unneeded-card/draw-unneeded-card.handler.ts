import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../../shoe-stream.writer';
import { DrawUnneededCardCommand } from './draw-unneeded-card.command';

/**
 * Thin handler of {@link DrawUnneededCardCommand} (docs/architecture.md §3): load the shoe's
 * stream, `decide` `DrawUnneededCard`, append UnneededCardDrawn (libs/shoe/src/decide/dealing.ts)
 * with the expected version.
 */
@CommandHandler(DrawUnneededCardCommand)
export class DrawUnneededCardHandler implements ICommandHandler<DrawUnneededCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, roundId, card }: DrawUnneededCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'DrawUnneededCard', roundId, card }, ctx));
  }
}
