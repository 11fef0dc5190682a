import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import type { WriteRequest } from '../../write-request';

/**
 * No more bets: the round is dealt from now on.
 *
 * `POST /shoes/{shoeId}/rounds/{roundId}/close-betting` (role `table-device`):
 * `CloseBettingController` executes it on the CommandBus; `CloseBettingHandler`
 * (close-betting.handler.ts) decides it as `CloseBetting`.
 */
export class CloseBettingCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The round, the shoe's latest. */
    readonly roundId: string,
  ) {
    super();
  }
}
