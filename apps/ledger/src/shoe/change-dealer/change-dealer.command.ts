import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * Another dealer takes over the table: between rounds or while bets are open (the betting round
 * then takes the new dealer), never mid-dealing.
 *
 * `POST /shoes/{shoeId}/dealer` (role `table-device`): `ChangeDealerController` executes it on the
 * CommandBus; `ChangeDealerHandler` (change-dealer.handler.ts) decides it as `ChangeDealer`.
 */
export class ChangeDealerCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The dealer who takes over. */
    readonly dealerId: string,
  ) {
    super();
  }
}
