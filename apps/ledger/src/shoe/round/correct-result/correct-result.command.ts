import { Command } from '@nestjs/cqrs';
import type { Card } from '@ledger/rules';
import type { DecisionInput } from '@ledger/shoe';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * Management edits a round's result from its corrected cards (docs/domain-rules.md §5.4, §6):
 * the ledger results them again and every bet of the round is settled again, one revision up.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/result-corrections` (role `pit-manager`):
 * `CorrectResultController` executes it on the CommandBus; `CorrectResultHandler`
 * (correct-result.handler.ts) decides it as `CorrectResult`.
 */
export class CorrectResultCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** A resulted round of the shoe. */
    readonly roundId: string,
    /** The corrected cards in dealing order (P1 B1 P2 B2 [P3] [B3]), parsed once by the controller. */
    readonly cards: readonly Card[],
    /** Reason, the acting manager (the token's subject) and the approving one. */
    readonly decision: DecisionInput,
  ) {
    super();
  }
}
