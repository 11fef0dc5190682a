import { Command } from '@nestjs/cqrs';
import type { DecisionInput } from '@ledger/shoe';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * Management voids the shoe (docs/domain-rules.md §6): every round not yet voided is voided and
 * its stakes refunded. Neither manager may be the dealer now at the table.
 *
 * `POST /shoes/{shoeId}/void` (role `pit-manager`): `VoidShoeController` executes it on the
 * CommandBus; `VoidShoeHandler` (void-shoe.handler.ts) decides it as `VoidShoe`.
 */
export class VoidShoeCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** Reason, the acting manager (the token's subject) and the approving one. */
    readonly decision: DecisionInput,
  ) {
    super();
  }
}
