import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '@ledger/shoe';
import { ShoeStreamWriter, type ShoeCommandResult } from '../shoe-stream.writer';
import { ChangeDealerCommand } from './change-dealer.command';

/**
 * Thin handler of {@link ChangeDealerCommand} (docs/architecture.md §3): load the shoe's stream,
 * `decide` `ChangeDealer`, append DealerChanged (libs/shoe/src/decide/shoe-lifecycle.ts) with the
 * expected version.
 */
@CommandHandler(ChangeDealerCommand)
export class ChangeDealerHandler implements ICommandHandler<ChangeDealerCommand, ShoeCommandResult> {
  constructor(private readonly stream: ShoeStreamWriter) {}

  /** @throws DomainError what `decide` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, dealerId }: ChangeDealerCommand): Promise<ShoeCommandResult> {
    return this.stream.write(request, (shoe, ctx) => decide(shoe, { type: 'ChangeDealer', dealerId }, ctx));
  }
}
