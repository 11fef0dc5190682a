import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * The cut card ("blue card") came out (docs/domain-rules.md §5.2): during dealing that round is
 * the last; while bets are open the round does not commence (void, stakes refunded); in every
 * case no further round starts.
 *
 * `POST /shoes/{shoeId}/cut-card` (role `table-device`): `DrawCutCardController` executes it on the
 * CommandBus; `DrawCutCardHandler` (draw-cut-card.handler.ts) decides it as `DrawCutCard`.
 */
export class DrawCutCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
  ) {
    super();
  }
}
