import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * One commencement burn (docs/domain-rules.md §5.1); face down or not, it counts against the
 * shoe's cards.
 *
 * `POST /shoes/{shoeId}/burns` (role `table-device`): `BurnCardController` executes it on the
 * CommandBus; `BurnCardHandler` (burn-card.handler.ts) decides it as `BurnCard`.
 */
export class BurnCardCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The burned card, parsed once by the controller; null when burned face down. */
    readonly card: Card | null,
  ) {
    super();
  }
}
