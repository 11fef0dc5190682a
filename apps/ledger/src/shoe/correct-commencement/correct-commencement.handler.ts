import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { CorrectCommencementCommand } from './correct-commencement.command';

/**
 * Thin handler of {@link CorrectCommencementCommand} (docs/architecture.md §3): load the shoe's
 * stream, `decide` `CorrectCommencement`, append CommencementCorrected
 * (libs/shoe/src/decide/commencement.ts) with the expected version.
 */
@CommandHandler(CorrectCommencementCommand)
export class CorrectCommencementHandler implements ICommandHandler<CorrectCommencementCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, card, reason }: CorrectCommencementCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'CorrectCommencement', card, reason }, ctx));
  }
}
