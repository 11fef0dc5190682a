import type { ShoeCommand } from '@ledger/shoe';
import type { Principal } from '../auth/principal';

/**
 * The one write use case of the shoe stream, dispatched on the CQRS command bus: run a
 * {@link ShoeCommand} against the shoe's state and append what `decide` returns.
 */
export class ExecuteShoeCommand {
  constructor(
    /** Shoe id; the stream is `shoe-<shoeId>`. */
    public readonly shoeId: string,
    /** Table of the shoe: required to open one; checked against the stream otherwise (when given). */
    public readonly tableId: string | null,
    public readonly command: ShoeCommand,
    public readonly principal: Principal,
    public readonly correlationId: string,
    /** ISO-8601 time at the table, or null for "now". */
    public readonly occurredAt: string | null,
    /** Expected stream version; undefined = the handler retries on conflict itself. */
    public readonly expectedVersion: number | undefined,
    /** `Idempotency-Key` header: a retry with the same key gets the first answer. */
    public readonly idempotencyKey: string | null,
    /** SHA-256 of the request (route + body), to refuse a key reused for another request. */
    public readonly requestHash: string,
  ) {}
}

/** What a successful write answers (HTTP 201). */
export interface ShoeCommandResult {
  shoeId: string;
  tableId: string;
  /** Stream version after the append. */
  streamVersion: number;
  /** The events recorded, in order: envelope fields and data. */
  events: Array<{
    eventId: string;
    type: string;
    streamVersion: number;
    globalPosition: string;
    data: unknown;
  }>;
}
