import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * A card seen that should not have been (docs/domain-rules.md §5.3): while bets are open it
 * voids the hand and every stake is refunded; otherwise it is recorded.
 *
 * `POST /shoes/{shoeId}/exposed-cards` (role `table-device`): `ExposeCardController` executes it on
 * the CommandBus; `ExposeCardHandler` (expose-card.handler.ts) decides it as `ExposeCard`.
 */
export class ExposeCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The card, parsed once by the controller. */
    readonly card: Card,
    /** `SHUFFLE` when it happened while shuffling; otherwise the shoe's phase decides. */
    readonly phase?: 'SHUFFLE',
  ) {
    super();
  }
}
