import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * The shoe is finished: no round is in progress. Management decisions on it stay possible
 * (docs/domain-rules.md §6).
 *
 * `POST /shoes/{shoeId}/close` (role `table-device`): `CloseShoeController` executes it on the
 * CommandBus; `CloseShoeHandler` (close-shoe.handler.ts) decides it as `CloseShoe`.
 */
export class CloseShoeCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
  ) {
    super();
  }
}
