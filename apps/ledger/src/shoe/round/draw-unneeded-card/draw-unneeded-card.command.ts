import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * A card drawn and exposed that the tableau did not call for (docs/domain-rules.md §5.3): the
 * result stands; the card has left the shoe and counts against its cards.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards` (role `table-device`):
 * `DrawUnneededCardController` executes it on the CommandBus; `DrawUnneededCardHandler`
 * (draw-unneeded-card.handler.ts) decides it as `DrawUnneededCard`.
 */
export class DrawUnneededCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The round being dealt or just resulted. */
    readonly roundId: string,
    /** The card, parsed once by the controller. */
    readonly card: Card,
  ) {
    super();
  }
}
