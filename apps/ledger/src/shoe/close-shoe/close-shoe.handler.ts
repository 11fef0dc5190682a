import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { CloseShoeCommand } from './close-shoe.command';

/**
 * Thin handler of {@link CloseShoeCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `CloseShoe`, append ShoeClosed (libs/shoe/src/decide/shoe-lifecycle.ts) with the
 * expected version.
 */
@CommandHandler(CloseShoeCommand)
export class CloseShoeHandler implements ICommandHandler<CloseShoeCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request }: CloseShoeCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'CloseShoe' }, ctx));
  }
}
