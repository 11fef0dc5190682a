import { Command } from '@nestjs/cqrs';
import type { BetInput } from '@ledger/shoe';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * Bets on the round whose bets are open (docs/domain-rules.md §3, §4): within the table's limits,
 * the variant's side-bet windows and, at a classic table that asks for it, after a main wager.
 * All or none: one refused bet refuses them all.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/bets` (one) and `.../bets/batch` (up to 10,000), role
 * `betting-platform`: `PlaceBetsController` executes it on the CommandBus; `PlaceBetsHandler`
 * (place-bets.handler.ts) decides it as `PlaceBets`.
 */
export class PlaceBetsCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The round, the shoe's latest, in betting. */
    readonly roundId: string,
    /** The bets in order, stakes in minor units (`bigint`). */
    readonly bets: readonly BetInput[],
  ) {
    super();
  }
}
