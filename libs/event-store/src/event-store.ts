import type { DataSource } from 'typeorm';
import { upcast, type LedgerEvent } from '@ledger/events';
import { DEFAULT_EVENTS_TOPIC } from './constants';
import { defaultLogger } from './logger';
import { EventAppender } from './append';
import { EventReader } from './read';
import { SignificantEventLedgerReads } from './significant-reads';
import { IdempotencyStore } from './idempotency';
import { ChainVerifier, type IncrementalChainVerification, type VerifiedHead } from './verification';
import { RejectionLog } from './rejections';
import { DEFAULT_IDEMPOTENCY_RETENTION_MS, type AppendRequest, type AppendResult, type ChainVerification, type PgEventStoreOptions, type RejectionInput, type StoredIdempotentResponse } from './types';

export * from './types';

/**
 * The write side's event store on PostgreSQL (docs/guarantees.md §1, §2, §3, §4, §5, §8, §9, §11).
 *
 * One `append` = one statement, `ledger_append` (its own transaction): lock the stream row, check the
 * expected version and head hash, reserve the round and bet ids, store the idempotency answer by
 * reference, take global positions from the sequence (no lock shared by two streams; holes from
 * rolled-back appends are recorded by the relay), insert the events and their outbox rows, move the
 * stream head, `NOTIFY outbox`. Reads upcast to the current schema
 * versions; the verifier works on the stored rows.
 *
 * A facade: each operation lives in its own file (`append.ts`, `read.ts`, `idempotency.ts`,
 * `verification.ts`, `rejections.ts`), all on the same DataSource, logger and clock.
 *
 * Plain class (no Nest imports): the Nest module constructs it with the app's DataSource.
 */
export class PgEventStore {
  private readonly appender: EventAppender;
  private readonly reader: EventReader;
  /** The significant events as stored (docs/significant-events.md, "What the read model may not decide"). */
  readonly significant: SignificantEventLedgerReads;
  private readonly idempotency: IdempotencyStore;
  private readonly verifier: ChainVerifier;
  private readonly rejections: RejectionLog;

  /**
   * @param ds an initialised DataSource whose schema is migrated (see `runMigrations`)
   * @param options topic, logger, clock, retention of idempotency keys
   */
  constructor(ds: DataSource, options: PgEventStoreOptions = {}) {
    const topic = options.topic ?? DEFAULT_EVENTS_TOPIC;
    const log = options.logger ?? defaultLogger('event-store');
    const now = options.now ?? (() => new Date());
    this.reader = new EventReader(ds);
    this.significant = new SignificantEventLedgerReads(ds);
    this.idempotency = new IdempotencyStore(ds, this.reader, log, now, options.idempotencyRetentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS);
    this.appender = new EventAppender(ds, { topic, log, now, idempotency: this.idempotency });
    this.verifier = new ChainVerifier(ds, log, options.verifyStatementTimeoutMs);
    this.rejections = new RejectionLog(ds, log, now);
  }

  /**
   * Appends events to a stream in one transaction, with optimistic concurrency and idempotency.
   *
   * Retries are safe: a request whose event ids are all recorded already (same stream, type and data)
   * gets the stored events back (`outcome: 'DUPLICATE'`), and one whose idempotency key is stored gets
   * the stored answer (`'IDEMPOTENT_REPLAY'`), whatever `expectedVersion` it names. So after an
   * ambiguous failure (connection lost during COMMIT) retry with the same event ids or key.
   *
   * @returns the recorded events (stream order), the stream's last version and how the call was answered
   * @throws ConcurrencyError `STREAM.VERSION_CONFLICT` when the stream is not at `expectedVersion`
   * @throws StreamTableMismatchError `STREAM.TABLE_MISMATCH` when the stream belongs to another table
   * @throws DuplicateEventError `EVENT.DUPLICATE_ID` when some ids are taken, or taken by other content
   * @throws DuplicateReferenceError `ROUND.DUPLICATE_ID` / `BET.DUPLICATE_ID` when a round or bet id belongs to another stream
   * @throws IdempotencyKeyReuseError `IDEMPOTENCY.KEY_REUSED` when the key answered a different request
   * @throws InvalidAppendError `APPEND.INVALID` for a malformed request (nothing is written)
   */
  append(req: AppendRequest): Promise<AppendResult> {
    return this.appender.append(req);
  }

  /**
   * The answer stored under `caller`'s idempotency key, or null when the caller has no such key or
   * its retention has run out (docs/guarantees.md §3: keys are scoped per caller). The HTTP layer may
   * call this before doing any work, to answer a retry without deciding again.
   * @param caller `<role>:<subject>` of the request's token, as the append's `idempotency.caller`
   */
  findIdempotent(caller: string, key: string): Promise<StoredIdempotentResponse | null> {
    return this.idempotency.findIdempotent(caller, key);
  }

  /** The events the first answer under a stored key recorded (stream order), to rebuild an answer stored by reference. */
  idempotentEvents(stored: StoredIdempotentResponse): Promise<LedgerEvent[]> {
    return this.idempotency.storedEvents(stored);
  }

  /**
   * Deletes the idempotency keys whose retention (`idempotencyRetentionMs`) has run out; the API
   * calls it periodically. Needs DELETE on `idempotency_keys` (docs/architecture.md §10).
   * @returns how many keys were deleted
   * @throws the database's error (e.g. SQLSTATE 42501 without the privilege)
   */
  pruneIdempotencyKeys(): Promise<number> {
    return this.idempotency.pruneExpired();
  }

  /**
   * A stream's events from `fromVersion` on, in stream order, upcast to the current schema versions.
   * @param fromVersion first version to return, 1-based. @default 1
   * @param limit at most this many (read no more). @default all
   * @returns [] for an unknown stream
   * @throws Error `EVENT.UNKNOWN_TYPE` / `EVENT.NO_UPCASTER` for a row this code cannot read
   */
  readStream(streamId: string, fromVersion = 1, limit?: number): Promise<LedgerEvent[]> {
    return this.reader.readStream(streamId, fromVersion, limit);
  }

  /** Every event of the given types in global order, optionally where `data[field] = value`: see {@link EventReader.readByTypes}. */
  readByTypes(types: readonly string[], where?: { readonly field: string; readonly value: string }, limit?: number): Promise<LedgerEvent[]> {
    return this.reader.readByTypes(types, where, limit);
  }

  /**
   * Events of every stream in global order, from `fromPosition` (inclusive), at most `limit`.
   * Positions commit out of number order (docs/guarantees.md §5): resuming from the last position + 1
   * may miss an append that commits late below it; follow the Kafka topic instead (see {@link EventReader.readAll}).
   * @param fromPosition first global position, a decimal string or bigint. @default '1'
   * @param limit page size, 1–10,000. @default 1000
   * @throws RangeError when `limit` is out of range
   */
  readAll(fromPosition: string | bigint = '1', limit = 1000): Promise<LedgerEvent[]> {
    return this.reader.readAll(fromPosition, limit);
  }

  /** The events of the given ids (upcast), in global order; ids not in the store are left out. */
  async eventsByIds(ids: readonly string[]): Promise<LedgerEvent[]> {
    return (await this.reader.eventsByIds(ids)).map(upcast);
  }

  /** The dealer of shoe stream `streamId` at version `atVersion` (its last ShoeOpened or DealerChanged at or below it), or null. */
  dealerAt(streamId: string, atVersion: number): Promise<string | null> {
    return this.reader.dealerAt(streamId, atVersion);
  }

  /** The table of stream `streamId` (its first event's), or null for an unknown stream. */
  tableOfStream(streamId: string): Promise<string | null> {
    return this.reader.tableOfStream(streamId);
  }

  /** The stream version of the first event of type `type` in stream `streamId`, or null when it has none. */
  firstVersionOfType(streamId: string, type: string): Promise<number | null> {
    return this.reader.firstVersionOfType(streamId, type);
  }

  /** The last ledger-wide event (table id `*`) of type `type` below global position `beforePosition`, or null. */
  lastLedgerWideBefore(type: string, beforePosition: string): Promise<LedgerEvent | null> {
    return this.reader.lastLedgerWideBefore(type, beforePosition);
  }

  /** The stream's current version: the number of events in it; 0 for an unknown stream. */
  streamVersion(streamId: string): Promise<number> {
    return this.reader.streamVersion(streamId);
  }

  /**
   * Records a refused request in `rejections` (append-only), in its own transaction, independent of
   * whatever the caller rolled back (docs/guarantees.md §11). Never throws: a failure to record is
   * logged at `error` with the rejection's fields.
   */
  recordRejection(r: RejectionInput): Promise<void> {
    return this.rejections.recordRejection(r);
  }

  /**
   * Recomputes the hash chain of one stream, or of every stream of a table, from the stored rows
   * (docs/guarantees.md §8), in one read-only snapshot. Finds altered events (`HASH_MISMATCH`),
   * events whose predecessor was altered, replaced or removed (`PREV_HASH_MISMATCH`), missing
   * versions, also at the tail against the `streams` head (`VERSION_GAP`), and global positions that
   * do not grow along the stream (`POSITION_GAP`).
   * @param target a stream id, or `{ tableId }` for all streams of that table
   */
  verifyChain(target: string | { readonly tableId: string }): Promise<ChainVerification> {
    return this.verifier.verifyChain(target);
  }

  /**
   * {@link verifyChain} over every stream, plus the global check of the positions (`POSITION_GAP`):
   * up to the relay's progress each is an event or a recorded hole, none above the sequence. Reads the whole ledger in one
   * REPEATABLE READ snapshot: an audit job, not a request path.
   */
  verifyAll(): Promise<ChainVerification> {
    return this.verifier.verifyAll();
  }

  /**
   * One stream's chain verified from a head an earlier verification ended on (see
   * {@link ChainVerifier.verifyStreamSince}; docs/guarantees.md §8): the event at `since.version`
   * must still carry `since.hash`; only the events after it are re-hashed.
   */
  verifyStreamSince(streamId: string, since: VerifiedHead | null): Promise<IncrementalChainVerification> {
    return this.verifier.verifyStreamSince(streamId, since);
  }
}
