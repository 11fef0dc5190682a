import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { DrawCutCardCommand } from './draw-cut-card.command';

/**
 * Thin handler of {@link DrawCutCardCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `DrawCutCard`, append CutCardDrawn [+ RoundVoided + BetRefunded per bet]
 * (libs/shoe/src/decide/dealing.ts) with the expected version.
 */
@CommandHandler(DrawCutCardCommand)
export class DrawCutCardHandler implements ICommandHandler<DrawCutCardCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request }: DrawCutCardCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'DrawCutCard' }, ctx));
  }
}
