import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { DrawCommencementCardCommand } from './draw-commencement-card.command';

/**
 * Thin handler of {@link DrawCommencementCardCommand} (docs/architecture.md §3): load the shoe's
 * stream, `decide` `DrawCommencementCard`, append CommencementCardDrawn
 * (libs/shoe/src/decide/commencement.ts) with the expected version.
 */
@CommandHandler(DrawCommencementCardCommand)
export class DrawCommencementCardHandler implements ICommandHandler<DrawCommencementCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, card }: DrawCommencementCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'DrawCommencementCard', card }, ctx));
  }
}
