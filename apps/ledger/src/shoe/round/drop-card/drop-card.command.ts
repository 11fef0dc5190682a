import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * A card dropped out of camera view (docs/domain-rules.md §5.5): picked up and reused, except one
 * dropped during dealing that was not exposed before leaving view, which voids the hand.
 *
 * `POST /shoes/{shoeId}/dropped-cards` (role `table-device`): `DropCardController` executes it on
 * the CommandBus; `DropCardHandler` (drop-card.handler.ts) decides it as `DropCard`.
 */
export class DropCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The card if it was seen (parsed once by the controller), else null. */
    readonly card: Card | null,
    /** Dealing only: it was exposed before it left view (then it is reused). */
    readonly exposedBeforeLeavingView: boolean,
    /** Said when shuffling or scooping; otherwise the shoe's phase decides. */
    readonly phase?: 'SHUFFLE' | 'SCOOPING',
  ) {
    super();
  }
}
