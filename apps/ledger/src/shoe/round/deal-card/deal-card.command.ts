import { Command } from '@nestjs/cqrs';
import type { Card, Position } from '@ledger/rules';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * A card dealt to a position of the round (docs/domain-rules.md §1, §2; docs/architecture.md §2
 * follows it from the HTTP request to the settlement). The card that completes the round makes
 * the ledger result it from the cards and settle every bet.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/cards` (role `table-device`): `DealCardController`
 * executes it on the CommandBus; `DealCardHandler` (deal-card.handler.ts) decides it as `DealCard`.
 */
export class DealCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The round, the shoe's latest. */
    readonly roundId: string,
    /** P1 B1 P2 B2 P3 B3: the position the tableau calls for next. */
    readonly position: Position,
    /** The card, parsed once by the controller. */
    readonly card: Card,
  ) {
    super();
  }
}
