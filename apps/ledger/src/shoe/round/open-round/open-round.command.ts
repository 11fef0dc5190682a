import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * The next round of the shoe opens: bets open (docs/domain-rules.md §3.2: its hand number counts
 * every round opened in the shoe, voided ones included).
 *
 * `POST /shoes/{shoeId}/rounds` (role `table-device`): `OpenRoundController` executes it on the
 * CommandBus; `OpenRoundHandler` (open-round.handler.ts) decides it as `OpenRound`.
 */
export class OpenRoundCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** Id of the new round, a ledger-wide reference. */
    readonly roundId: string,
  ) {
    super();
  }
}
