import { errorSpec, type AssertErrorCodes, type ErrorKind, type ErrorStatus } from '@ledger/errors';

/**
 * Typed errors of the event store. Each carries a stable, machine-readable `code` that the
 * rejection log records, and the HTTP status and kind the error table gives that code
 * (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4): the API answers with them.
 *
 * | code                        | class                            |
 * |-----------------------------|----------------------------------|
 * | `STREAM.VERSION_CONFLICT`   | {@link ConcurrencyError}         |
 * | `STREAM.TABLE_MISMATCH`     | {@link StreamTableMismatchError} |
 * | `EVENT.DUPLICATE_ID`        | {@link DuplicateEventError}      |
 * | `IDEMPOTENCY.KEY_REUSED`    | {@link IdempotencyKeyReuseError} |
 * | `APPEND.INVALID`            | {@link InvalidAppendError}       |
 * | `ROUND.DUPLICATE_ID`, `BET.DUPLICATE_ID` | {@link DuplicateReferenceError} |
 */

/** Stable error codes raised by the event store (each a code of the error table). */
export type EventStoreErrorCode = AssertErrorCodes<'STREAM.VERSION_CONFLICT' | 'STREAM.TABLE_MISMATCH' | 'EVENT.DUPLICATE_ID' | 'IDEMPOTENCY.KEY_REUSED' | 'APPEND.INVALID' | 'ROUND.DUPLICATE_ID' | 'BET.DUPLICATE_ID'>;

/**
 * SQLSTATE raised by the database triggers that keep `events` and `rejections` append-only
 * (class `LA` is not used by PostgreSQL itself). node-postgres exposes it as `error.code`.
 */
export const APPEND_ONLY_SQLSTATE = 'LA001';

/**
 * Base class of every event-store error.
 * @property code stable machine-readable code, see {@link EventStoreErrorCode}
 * @property kind the code's kind in the error table
 * @property status the HTTP status the error table gives the code (the API answers with it)
 * @property details structured context (stream id, versions, event ids, …); safe to log and to return
 */
export class EventStoreError extends Error {
  readonly kind: ErrorKind;
  readonly status: ErrorStatus;
  constructor(
    public readonly code: EventStoreErrorCode,
    message: string,
    public readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'EventStoreError';
    const spec = errorSpec(code);
    this.kind = spec.kind;
    this.status = spec.status;
  }
}

/**
 * Optimistic concurrency (docs/guarantees.md §2): the stream is not at the version the
 * writer expected, i.e. another writer appended first. Nothing was written; reload and decide again.
 * Code `STREAM.VERSION_CONFLICT`; `details` = `{ streamId, expectedVersion, actualVersion }`.
 */
export class ConcurrencyError extends EventStoreError {
  constructor(
    public readonly streamId: string,
    public readonly expectedVersion: number,
    public readonly actualVersion: number,
  ) {
    super('STREAM.VERSION_CONFLICT', `stream ${streamId} is at version ${actualVersion}, the append expected ${expectedVersion}`, { streamId, expectedVersion, actualVersion });
    this.name = 'ConcurrencyError';
  }
}

/**
 * The stream exists but belongs to another table than the append names (a stream never moves
 * between tables: the table id is its Kafka key). Code `STREAM.TABLE_MISMATCH`;
 * `details` = `{ streamId, tableId, streamTableId }`.
 */
export class StreamTableMismatchError extends EventStoreError {
  constructor(streamId: string, tableId: string, streamTableId: string) {
    super('STREAM.TABLE_MISMATCH', `stream ${streamId} belongs to table ${streamTableId}, not ${tableId}`, {
      streamId,
      tableId,
      streamTableId,
    });
    this.name = 'StreamTableMismatchError';
  }
}

/** Why an append's event ids were refused as duplicates. */
export type DuplicateEventReason =
  /** some, not all, of the request's event ids are already stored */
  | 'PARTIAL'
  /** every id is stored, but in another stream or with another type or data */
  | 'DIFFERENT_CONTENT'
  /** the same id appears twice within one request */
  | 'REPEATED_IN_REQUEST';

/**
 * Event ids that are already taken by other facts. (A request whose ids are *all* stored with the same
 * stream, type and data is not an error: it is a retry and gets the stored events back.)
 * Code `EVENT.DUPLICATE_ID`; `details` = `{ streamId, eventIds, reason }`.
 */
export class DuplicateEventError extends EventStoreError {
  constructor(streamId: string, eventIds: readonly string[], reason: DuplicateEventReason) {
    super('EVENT.DUPLICATE_ID', `event id(s) ${eventIds.join(', ')} already recorded (${reason})`, {
      streamId,
      eventIds,
      reason,
    });
    this.name = 'DuplicateEventError';
  }
}

/**
 * The idempotency key was first used for a different request (another request hash). The first
 * answer is not replayed for a different request. Code `IDEMPOTENCY.KEY_REUSED`; `details` = `{ key }`.
 */
export class IdempotencyKeyReuseError extends EventStoreError {
  constructor(key: string) {
    super('IDEMPOTENCY.KEY_REUSED', `idempotency key ${key} was already used for a different request`, { key });
    this.name = 'IdempotencyKeyReuseError';
  }
}

/**
 * The append request itself is malformed (no events, a non-UUID event id, an unknown event type, an
 * invalid timestamp or actor, data that JSON cannot carry). Nothing was written.
 * Code `APPEND.INVALID`; `details` = `{ field, … }`.
 */
export class InvalidAppendError extends EventStoreError {
  constructor(message: string, details: Readonly<Record<string, unknown>> = {}) {
    super('APPEND.INVALID', message, details);
    this.name = 'InvalidAppendError';
  }
}

/**
 * A round id or bet id already recorded by another shoe (ids are unique across the ledger: they
 * are the game's and the wager's references). Code `ROUND.DUPLICATE_ID` or `BET.DUPLICATE_ID`.
 */
export class DuplicateReferenceError extends EventStoreError {
  constructor(kind: 'ROUND' | 'BET', ids: readonly string[], streamId: string) {
    super(kind === 'ROUND' ? 'ROUND.DUPLICATE_ID' : 'BET.DUPLICATE_ID', `${kind === 'ROUND' ? 'round' : 'bet'} id(s) ${ids.join(', ')} already used by another shoe`, {
      ids,
      streamId,
    });
    this.name = 'DuplicateReferenceError';
  }
}
