import { Command } from '@nestjs/cqrs';
import type { DecisionInput } from '@ledger/shoe';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * Management voids a round (docs/domain-rules.md §6): a compensating RoundVoided, every stake
 * refunded. Neither manager may be the round's dealer.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/void` (role `pit-manager`): `VoidRoundController` executes
 * it on the CommandBus; `VoidRoundHandler` (void-round.handler.ts) decides it as `VoidRound`.
 */
export class VoidRoundCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** Any round of the shoe, also after the shoe closed. */
    readonly roundId: string,
    /** Reason, the acting manager (the token's subject) and the approving one. */
    readonly decision: DecisionInput,
  ) {
    super();
  }
}
