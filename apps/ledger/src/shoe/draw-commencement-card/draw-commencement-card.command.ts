import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * The first card of a new shoe is opened (docs/domain-rules.md §5.1): it says how many cards
 * are burned (A = 1, 2–9 face, T/J/Q/K = 10).
 *
 * `POST /shoes/{shoeId}/commencement` (role `table-device`): `DrawCommencementCardController`
 * executes it on the CommandBus; `DrawCommencementCardHandler` (draw-commencement-card.handler.ts)
 * decides it as `DrawCommencementCard`.
 */
export class DrawCommencementCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The commencement card, parsed once by the controller. */
    readonly card: Card,
  ) {
    super();
  }
}
