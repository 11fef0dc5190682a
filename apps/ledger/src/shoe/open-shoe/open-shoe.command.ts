import { Command } from '@nestjs/cqrs';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import type { WriteRequest } from '../write-request';

/**
 * A new shoe goes in on a table (docs/domain-rules.md §3, §4): the table's settings (variant,
 * decks, paytable, currency, limits) are snapshotted into its ShoeOpened, so replay never reads
 * the current configuration.
 *
 * `POST /tables/{tableId}/shoes` (role `table-device`): `OpenShoeController` executes it on the
 * CommandBus; `OpenShoeHandler` (open-shoe.handler.ts) decides it as `OpenShoe`.
 */
export class OpenShoeCommand extends Command<ShoeCommandResult> {
  constructor(
    /** The shoe's stream, the caller, the time at the table, the idempotency key. */
    readonly request: WriteRequest,
    /** The table the shoe goes on; its configuration is snapshotted into ShoeOpened. */
    readonly tableId: string,
    /** The dealer at the table. */
    readonly dealerId: string,
  ) {
    super();
  }
}
