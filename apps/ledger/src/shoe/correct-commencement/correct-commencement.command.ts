import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * A commencement mistake corrected on the spot, while the first hand has not been dealt
 * (docs/domain-rules.md §5.1); the burns start again from the corrected card's count.
 *
 * `POST /shoes/{shoeId}/commencement/corrections` (role `pit-manager`):
 * `CorrectCommencementController` executes it on the CommandBus; `CorrectCommencementHandler`
 * (correct-commencement.handler.ts) decides it as `CorrectCommencement`.
 */
export class CorrectCommencementCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The corrected commencement card, parsed once by the controller. */
    readonly card: Card,
    /** Why, 3..500 characters. */
    readonly reason: string,
  ) {
    super();
  }
}
