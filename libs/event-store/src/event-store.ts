import type { DataSource, QueryRunner } from 'typeorm';
import {
  GENESIS_HASH,
  ROLES,
  SCHEMA_VERSIONS,
  upcast,
  type Actor,
  type EventEnvelope,
  type LedgerEvent,
  type LedgerEventType,
  type NewEvent,
} from '@ledger/events';
import {
  ConcurrencyError,
  DuplicateEventError,
  IdempotencyKeyReuseError,
  InvalidAppendError,
  StreamTableMismatchError,
  DuplicateReferenceError,
} from './errors';
import { DEFAULT_EVENTS_TOPIC, OUTBOX_CHANNEL } from './constants';
import { canonicalJson, computeEventHash } from './hash';
import { defaultLogger, errorFields, type LedgerLogger } from './logger';
import { EVENT_COLUMNS, rowToEnvelope, type EventRow } from './rows';

/**
 * Most events one append may carry (one request's worth; a shoe's whole history is never one append).
 * A request's worth is larger than it looks: the bet batch endpoint takes up to 10,000 bets, and the
 * last card of a round records its result and one settlement per bet of the round in ONE append
 * (several batches may have gone into the round). At 1,000, any batch above 1,000 bets and any
 * round of more than 998 bets could not be recorded (422 APPEND.INVALID; found by `npm run bench`).
 */
export const MAX_EVENTS_PER_APPEND = 50_000;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_ID_LENGTH = 200;
/** Rows read per query when the verifier walks a stream. */
const VERIFY_PAGE = 5000;

/** Attribution shared by every event of one append (architecture.md guarantee 9). */
export interface AppendMetadata {
  /** Who caused the events: id and role (one of `ROLES`). */
  readonly actor: Actor;
  /** Groups every event caused by one request. Non-empty, ≤ 200 characters. */
  readonly correlationId: string;
  /** Event id or request id that caused these events. @default the correlation id */
  readonly causationId?: string;
  /**
   * When it happened at the table: an ISO-8601 string (any offset) or a Date. Stored and hashed as
   * UTC ISO-8601 with millisecond precision (finer digits are dropped). @default the recording time
   */
  readonly occurredAt?: string | Date;
}

/** The idempotency part of an append (guarantee 3): a retry with the same key gets the first answer. */
export interface AppendIdempotency {
  /** Client-supplied key (e.g. the `Idempotency-Key` header, scoped by the caller). Non-empty, ≤ 200 characters. */
  readonly key: string;
  /** Hash of the request as the caller sees it (method, route, body). The same key with another hash is refused. */
  readonly requestHash: string;
  /** HTTP status of the first answer, stored and replayed (100–599). */
  readonly statusCode: number;
  /** Builds the answer body from the stored events; called once, inside the append, and stored as JSON. */
  readonly response: (events: LedgerEvent[]) => unknown;
}

/** What to append, at which expected version, with which attribution. */
export interface AppendRequest {
  /** Stream to append to (`shoe-<shoeId>`). Non-empty, ≤ 200 characters. */
  readonly streamId: string;
  /** Table the stream belongs to; fixed when the stream is created; the Kafka key. */
  readonly tableId: string;
  /**
   * The stream version the decision was made on: 0 for "the stream must not exist yet", else the
   * version of the last event the writer read. Integer ≥ 0.
   */
  readonly expectedVersion: number;
  /** 1 to {@link MAX_EVENTS_PER_APPEND} events, in order; event ids are UUIDs, unique. */
  readonly events: readonly NewEvent[];
  readonly metadata: AppendMetadata;
  /** When present, the answer is stored under the key and replayed to retries. */
  readonly idempotency?: AppendIdempotency;
}

/** How an append was answered. */
export type AppendOutcome =
  /** the events were recorded by this call */
  | 'APPENDED'
  /** every event id was already recorded with the same content: nothing written, stored events returned */
  | 'DUPLICATE'
  /** the idempotency key was already answered: nothing written, the stored answer returned */
  | 'IDEMPOTENT_REPLAY';

/** An answer stored under an idempotency key. */
export interface StoredIdempotentResponse {
  readonly key: string;
  readonly requestHash: string;
  /** HTTP status of the first answer. */
  readonly statusCode: number;
  /** Body of the first answer, as stored (JSON). */
  readonly response: unknown;
  readonly streamId: string;
  /** Events the first request appended, in stream order. */
  readonly eventIds: readonly string[];
  /** Stream version after the first request. */
  readonly lastVersion: number;
  /** When the first answer was stored (ISO-8601). */
  readonly createdAt: string;
}

/** What {@link PgEventStore.append} returns. */
export interface AppendResult {
  /** The recorded events of this request, in stream order, with their envelopes (upcast to current versions). */
  readonly events: LedgerEvent[];
  /** Stream version of the last of {@link events}. */
  readonly lastVersion: number;
  readonly outcome: AppendOutcome;
  /**
   * With `idempotency`: the answer (`statusCode`, `response`) — the stored one on `APPENDED` and
   * `IDEMPOTENT_REPLAY`; on `DUPLICATE` (same event ids, no stored key) recomputed from the stored events.
   */
  readonly idempotent?: { readonly statusCode: number; readonly response: unknown };
}

/** A refused request, for the audit log of refusals (guarantee 11). */
export interface RejectionInput {
  /** Stable error code (`STREAM.VERSION_CONFLICT`, `SHOE.CARD_EXCEEDS_DECKS`, …). */
  readonly code: string;
  /** Human-readable message as returned to the client. */
  readonly message: string;
  /** HTTP status returned. */
  readonly httpStatus: number;
  /** Authenticated caller's id, when known. */
  readonly actorId?: string | null;
  /** Authenticated caller's role, when known. */
  readonly actorRole?: string | null;
  /** `METHOD /path` of the request. */
  readonly route?: string | null;
  readonly tableId?: string | null;
  readonly correlationId?: string | null;
  /** The request body as received; stored as JSON (NUL characters escaped, ≤ 1 MiB else a truncated marker). */
  readonly rawPayload?: unknown;
  /** When the request arrived. @default now */
  readonly receivedAt?: Date | string;
}

/** Kinds of chain problems the verifier reports. */
export type ChainProblemKind = 'HASH_MISMATCH' | 'PREV_HASH_MISMATCH' | 'VERSION_GAP' | 'POSITION_GAP';

/** One finding of the verifier. */
export interface ChainProblem {
  /** Stream concerned; null for a global position gap at the end of the ledger (no event after it). */
  readonly streamId: string | null;
  /**
   * The event's version; for `VERSION_GAP`, the first missing version. For a global `POSITION_GAP`,
   * the version of the event that follows the gap.
   */
  readonly streamVersion: number | null;
  /** The event found altered or out of chain; null when the problem is an absence with no event after it. */
  readonly eventId: string | null;
  readonly kind: ChainProblemKind;
  /** What exactly differs (expected vs found), for the auditor. */
  readonly detail: string;
}

/** The verifier's report. `ok` ⇔ no problems. */
export interface ChainVerification {
  readonly ok: boolean;
  readonly streamsChecked: number;
  readonly eventsChecked: number;
  readonly problems: ChainProblem[];
}

/** Options of {@link PgEventStore}. */
export interface PgEventStoreOptions {
  /** Topic written into every outbox row. @default {@link DEFAULT_EVENTS_TOPIC} */
  readonly topic?: string;
  /** Structured logger. @default pino named `event-store` */
  readonly logger?: LedgerLogger;
  /** Clock for `recordedAt` (tests). @default `() => new Date()` */
  readonly now?: () => Date;
}

interface PreparedEvent {
  readonly eventId: string;
  readonly type: LedgerEventType;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly dataJson: string;
}

interface Prepared {
  readonly streamId: string;
  readonly tableId: string;
  readonly expectedVersion: number;
  readonly events: readonly PreparedEvent[];
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId: string;
  readonly occurredAt: string;
  readonly recordedAt: string;
  readonly idempotency?: AppendIdempotency;
}

/** Why the append transaction did not commit, when that is resolved by looking at what is stored. */
type Refusal =
  | { readonly kind: 'VERSION'; readonly actual: number }
  | { readonly kind: 'UNIQUE'; readonly error: unknown }
  | { readonly kind: 'IDEMPOTENCY_KEY_TAKEN' };

interface StreamHead {
  readonly tableId: string;
  readonly version: number;
  readonly lastHash: string;
}

/**
 * The write side's event store on PostgreSQL (architecture.md guarantees 1–5, 8, 9, 11).
 *
 * One `append` = one transaction: lock the stream row, check the expected version, chain the hashes,
 * take gap-free global positions from the counter row, insert the events, their outbox rows and the
 * idempotency answer, move the stream head, `NOTIFY outbox`. Reads upcast to the current schema
 * versions; the verifier works on the stored rows.
 *
 * Plain class (no Nest imports): the Nest module constructs it with the app's DataSource.
 */
export class PgEventStore {
  private readonly topic: string;
  private readonly log: LedgerLogger;
  private readonly now: () => Date;

  /**
   * @param ds an initialised DataSource whose schema is migrated (see `runMigrations`)
   * @param options topic, logger, clock
   */
  constructor(
    private readonly ds: DataSource,
    options: PgEventStoreOptions = {},
  ) {
    this.topic = options.topic ?? DEFAULT_EVENTS_TOPIC;
    this.log = options.logger ?? defaultLogger('event-store');
    this.now = options.now ?? (() => new Date());
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
   * @throws IdempotencyKeyReuseError `IDEMPOTENCY.KEY_REUSED` when the key answered a different request
   * @throws InvalidAppendError `APPEND.INVALID` for a malformed request (nothing is written)
   */
  async append(req: AppendRequest): Promise<AppendResult> {
    const p = this.prepare(req);
    let refusal: Refusal;
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      const head = await this.lockStream(qr, p);
      if (head.version !== p.expectedVersion) {
        await qr.rollbackTransaction();
        refusal = { kind: 'VERSION', actual: head.version };
      } else {
        if (head.tableId !== p.tableId) throw new StreamTableMismatchError(p.streamId, p.tableId, head.tableId);
        await this.reserveReferences(qr, p);
        const result = await this.writeEvents(qr, p, head);
        if (result) {
          await qr.commitTransaction();
          this.log.debug(
            {
              streamId: p.streamId,
              correlationId: p.correlationId,
              count: result.events.length,
              lastVersion: result.lastVersion,
              lastPosition: result.events[result.events.length - 1].globalPosition,
            },
            'events appended',
          );
          return result;
        }
        await qr.rollbackTransaction();
        refusal = { kind: 'IDEMPOTENCY_KEY_TAKEN' };
      }
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      const constraint = uniqueViolation(err);
      if (constraint === 'events_event_id_key' || constraint === 'idempotency_keys_pkey') {
        refusal = { kind: 'UNIQUE', error: err };
      } else if (sqlState(err)?.startsWith('22')) {
        // A data exception in the insert (e.g. a lone surrogate JSON cannot carry into jsonb).
        throw new InvalidAppendError(`the database refused the event data: ${(err as Error).message}`, {
          field: 'events[].data',
          sqlState: sqlState(err),
        });
      } else {
        throw err;
      }
    } finally {
      await qr.release();
    }
    return this.resolveRefusal(p, refusal);
  }

  /**
   * Reserves the round ids (RoundOpened) and bet ids (BetPlaced) of the append in
   * `ledger_references`, inside the append's transaction. Ids this stream already holds pass (a
   * retried append); ids held by another stream refuse the append.
   * @throws DuplicateReferenceError `ROUND.DUPLICATE_ID` / `BET.DUPLICATE_ID`
   */
  private async reserveReferences(qr: QueryRunner, p: Prepared): Promise<void> {
    for (const [kind, type, field] of [
      ['ROUND', 'RoundOpened', 'roundId'],
      ['BET', 'BetPlaced', 'betId'],
    ] as const) {
      const ids = p.events.filter((e) => e.type === type).map((e) => String((e.data as Record<string, unknown>)[field]));
      if (ids.length === 0) continue;
      await qr.query(
        `INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT $1, unnest($2::text[]), $3 ON CONFLICT (kind, ref_id) DO NOTHING`,
        [kind, ids, p.streamId],
      );
      const taken: { ref_id: string }[] = await qr.query(
        `SELECT ref_id FROM ledger_references WHERE kind = $1 AND ref_id = ANY($2::text[]) AND stream_id <> $3`,
        [kind, ids, p.streamId],
      );
      if (taken.length) throw new DuplicateReferenceError(kind, taken.map((t) => t.ref_id), p.streamId);
    }
  }

  /**
   * The answer stored under an idempotency key, or null when the key is unknown. The HTTP layer may
   * call this before doing any work, to answer a retry without deciding again.
   */
  async findIdempotent(key: string): Promise<StoredIdempotentResponse | null> {
    const rows = await this.ds.query(
      `SELECT key, request_hash, status_code, response, stream_id, event_ids::text[] AS event_ids, last_version, created_at
         FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      key: r.key,
      requestHash: r.request_hash,
      statusCode: r.status_code,
      response: r.response,
      streamId: r.stream_id,
      eventIds: r.event_ids,
      lastVersion: r.last_version,
      createdAt: (r.created_at as Date).toISOString(),
    };
  }

  /**
   * A stream's events from `fromVersion` on, in stream order, upcast to the current schema versions.
   * @param fromVersion first version to return, 1-based. @default 1
   * @returns [] for an unknown stream
   * @throws Error `EVENT.UNKNOWN_TYPE` / `EVENT.NO_UPCASTER` for a row this code cannot read
   */
  async readStream(streamId: string, fromVersion = 1): Promise<LedgerEvent[]> {
    const rows: EventRow[] = await this.ds.query(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version >= $2 ORDER BY e.stream_version`,
      [streamId, fromVersion],
    );
    return rows.map((r) => upcast(rowToEnvelope(r)));
  }

  /**
   * Events of every stream in global order, from `fromPosition` (inclusive), at most `limit`.
   * Never skips an event: positions become visible in order (see the `event_position` migration), so a
   * reader that resumes from its last position + 1 sees everything.
   * @param fromPosition first global position, a decimal string or bigint. @default '1'
   * @param limit page size, 1–10,000. @default 1000
   */
  async readAll(fromPosition: string | bigint = '1', limit = 1000): Promise<LedgerEvent[]> {
    const from = BigInt(fromPosition);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new RangeError('limit must be 1..10000');
    const rows: EventRow[] = await this.ds.query(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.global_position >= $1::bigint ORDER BY e.global_position LIMIT $2`,
      [from.toString(), limit],
    );
    return rows.map((r) => upcast(rowToEnvelope(r)));
  }

  /** The stream's current version: the number of events in it; 0 for an unknown stream. */
  async streamVersion(streamId: string): Promise<number> {
    const rows = await this.ds.query(`SELECT version FROM streams WHERE stream_id = $1`, [streamId]);
    return rows.length === 0 ? 0 : rows[0].version;
  }

  /**
   * Records a refused request in `rejections` (append-only), in its own transaction, independent of
   * whatever the caller rolled back. Never throws, so the refusal's own answer to the client is never
   * replaced by a logging failure; that failure is logged at `error` with the rejection's fields, so
   * the refusal is not lost silently either.
   */
  async recordRejection(r: RejectionInput): Promise<void> {
    try {
      const receivedAt = r.receivedAt === undefined ? this.now() : new Date(r.receivedAt);
      await this.ds.query(
        `INSERT INTO rejections (received_at, code, message, http_status, actor_id, actor_role, route, table_id,
                                 correlation_id, raw_payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
        [
          receivedAt.toISOString(),
          r.code,
          r.message,
          r.httpStatus,
          r.actorId ?? null,
          r.actorRole ?? null,
          r.route ?? null,
          r.tableId ?? null,
          r.correlationId ?? null,
          payloadJson(r.rawPayload),
        ],
      );
    } catch (err) {
      this.log.error(
        {
          ...errorFields(err),
          rejection: { code: r.code, httpStatus: r.httpStatus, route: r.route, tableId: r.tableId },
          correlationId: r.correlationId,
          actorId: r.actorId,
        },
        'could not record a rejection',
      );
    }
  }

  /**
   * Recomputes the hash chain of one stream, or of every stream of a table, from the stored rows
   * (guarantee 8), in one read-only snapshot. Finds altered events (`HASH_MISMATCH`), events whose
   * predecessor was altered, replaced or removed (`PREV_HASH_MISMATCH`), missing versions, also at the
   * tail against the `streams` head (`VERSION_GAP`), and global positions that do not grow along the
   * stream (`POSITION_GAP`).
   * @param target a stream id, or `{ tableId }` for all streams of that table
   */
  async verifyChain(target: string | { readonly tableId: string }): Promise<ChainVerification> {
    return this.inSnapshot(async (qr) => {
      const streamIds =
        typeof target === 'string'
          ? [target]
          : (
              await qr.query(
                `SELECT stream_id FROM streams WHERE table_id = $1
                 UNION SELECT DISTINCT stream_id FROM events WHERE table_id = $1 ORDER BY 1`,
                [target.tableId],
              )
            ).map((r: { stream_id: string }) => r.stream_id);
      return this.verifyStreams(qr, streamIds, []);
    });
  }

  /**
   * {@link verifyChain} over every stream, plus the global check: positions run 1, 2, 3, … with no
   * hole and the counter equals the last one (`POSITION_GAP`). Reads the whole ledger in one
   * REPEATABLE READ snapshot: an audit job, not a request path.
   */
  async verifyAll(): Promise<ChainVerification> {
    return this.inSnapshot(async (qr) => {
      const streamIds = (
        await qr.query(`SELECT stream_id FROM streams UNION SELECT DISTINCT stream_id FROM events ORDER BY 1`)
      ).map((r: { stream_id: string }) => r.stream_id);
      const problems = await this.positionProblems(qr);
      return this.verifyStreams(qr, streamIds, problems);
    });
  }

  // ------------------------------------------------------------------------------------------- append

  /** Validates and normalises a request; throws before any I/O. */
  private prepare(req: AppendRequest): Prepared {
    const text = (v: unknown, field: string): string => {
      if (typeof v !== 'string' || v.length === 0 || v.length > MAX_ID_LENGTH) {
        throw new InvalidAppendError(`${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`, {
          field,
        });
      }
      return v;
    };
    const streamId = text(req.streamId, 'streamId');
    const tableId = text(req.tableId, 'tableId');
    if (!Number.isSafeInteger(req.expectedVersion) || req.expectedVersion < 0) {
      throw new InvalidAppendError('expectedVersion must be an integer >= 0', { field: 'expectedVersion' });
    }
    if (!Array.isArray(req.events) || req.events.length === 0 || req.events.length > MAX_EVENTS_PER_APPEND) {
      throw new InvalidAppendError(`an append carries 1 to ${MAX_EVENTS_PER_APPEND} events`, { field: 'events' });
    }
    const m = req.metadata ?? ({} as AppendMetadata);
    const actorId = text(m.actor?.id, 'metadata.actor.id');
    if (!(ROLES as readonly string[]).includes(m.actor?.role)) {
      throw new InvalidAppendError(`metadata.actor.role must be one of ${ROLES.join(', ')}`, {
        field: 'metadata.actor.role',
      });
    }
    const correlationId = text(m.correlationId, 'metadata.correlationId');
    const causationId = m.causationId === undefined ? correlationId : text(m.causationId, 'metadata.causationId');
    const recordedAt = this.now().toISOString();
    let occurredAt = recordedAt;
    if (m.occurredAt !== undefined) {
      const d = m.occurredAt instanceof Date ? m.occurredAt : new Date(m.occurredAt);
      if (Number.isNaN(d.getTime())) {
        throw new InvalidAppendError('metadata.occurredAt is not a valid ISO-8601 timestamp', {
          field: 'metadata.occurredAt',
        });
      }
      occurredAt = d.toISOString();
    }

    const seen = new Set<string>();
    const events = req.events.map((e, i): PreparedEvent => {
      if (typeof e?.eventId !== 'string' || !UUID_RE.test(e.eventId)) {
        throw new InvalidAppendError(`events[${i}].eventId must be a UUID`, { field: `events[${i}].eventId` });
      }
      // uuid columns come back lower-case; the hash must cover what is read back.
      const eventId = e.eventId.toLowerCase();
      if (seen.has(eventId)) throw new DuplicateEventError(streamId, [eventId], 'REPEATED_IN_REQUEST');
      seen.add(eventId);
      const schemaVersion = SCHEMA_VERSIONS[e.type as LedgerEventType];
      if (schemaVersion === undefined) {
        throw new InvalidAppendError(`events[${i}].type ${String(e.type)} is not in the event catalogue`, {
          field: `events[${i}].type`,
        });
      }
      const data = normaliseData(e.data, i);
      return { eventId, type: e.type, schemaVersion, data, dataJson: JSON.stringify(data) };
    });

    let idempotency: AppendIdempotency | undefined;
    if (req.idempotency !== undefined) {
      const k = req.idempotency;
      text(k.key, 'idempotency.key');
      if (typeof k.requestHash !== 'string' || k.requestHash.length === 0) {
        throw new InvalidAppendError('idempotency.requestHash must be a non-empty string', {
          field: 'idempotency.requestHash',
        });
      }
      if (!Number.isInteger(k.statusCode) || k.statusCode < 100 || k.statusCode > 599) {
        throw new InvalidAppendError('idempotency.statusCode must be an HTTP status', { field: 'idempotency.statusCode' });
      }
      if (typeof k.response !== 'function') {
        throw new InvalidAppendError('idempotency.response must be a function', { field: 'idempotency.response' });
      }
      idempotency = k;
    }

    return {
      streamId,
      tableId,
      expectedVersion: req.expectedVersion,
      events,
      actor: { id: actorId, role: m.actor.role },
      correlationId,
      causationId,
      occurredAt,
      recordedAt,
      idempotency,
    };
  }

  /**
   * Locks the stream row for the rest of the transaction. A writer expecting version 0 creates the row
   * (version 0, genesis hash); a concurrent creator waits on the primary key, then finds it taken.
   */
  private async lockStream(qr: QueryRunner, p: Prepared): Promise<StreamHead> {
    if (p.expectedVersion === 0) {
      const inserted = await qr.query(
        `INSERT INTO streams (stream_id, table_id, version, last_hash) VALUES ($1, $2, 0, $3)
         ON CONFLICT (stream_id) DO NOTHING
         RETURNING table_id, version, last_hash`,
        [p.streamId, p.tableId, GENESIS_HASH],
      );
      if (inserted.length === 1) return toHead(inserted[0]);
    }
    const rows = await qr.query(`SELECT table_id, version, last_hash FROM streams WHERE stream_id = $1 FOR UPDATE`, [
      p.streamId,
    ]);
    return rows.length === 1 ? toHead(rows[0]) : { tableId: p.tableId, version: 0, lastHash: GENESIS_HASH };
  }

  /**
   * Inside the append transaction, with the stream locked at the expected version: chains the hashes,
   * takes the positions, stores the idempotent answer, inserts events + outbox rows, moves the head.
   * @returns the result, or null when the idempotency key turned out to be taken (the caller rolls back)
   */
  private async writeEvents(qr: QueryRunner, p: Prepared, head: StreamHead): Promise<AppendResult | null> {
    // 1. The chain, before the global counter is locked: hashing does not need positions.
    let prevHash = head.lastHash;
    const chained = p.events.map((e, i) => {
      const envelope = {
        eventId: e.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion,
        streamId: p.streamId,
        streamVersion: head.version + i + 1,
        tableId: p.tableId,
        occurredAt: p.occurredAt,
        recordedAt: p.recordedAt,
        actor: p.actor,
        correlationId: p.correlationId,
        causationId: p.causationId,
        prevHash,
        data: e.data,
      };
      const hash = computeEventHash(envelope);
      prevHash = hash;
      return { ...envelope, hash };
    });
    const lastVersion = head.version + p.events.length;

    // 2. Gap-free global positions. From here to COMMIT every other append waits on this row.
    const counter = await qr.query(
      `UPDATE event_position SET last_position = last_position + $1 RETURNING last_position::text AS last_position`,
      [p.events.length],
      true,
    );
    const last = BigInt(counter.records[0].last_position);
    const first = last - BigInt(p.events.length) + 1n;
    const events = chained.map(
      (e, i) => ({ ...e, globalPosition: (first + BigInt(i)).toString() }) as unknown as LedgerEvent,
    );

    // 3. The idempotent answer: ON CONFLICT, the key was answered by a committed append (any other
    //    append that stored it held this counter lock until it committed).
    let idempotent: AppendResult['idempotent'];
    if (p.idempotency) {
      const response = p.idempotency.response(events);
      const stored = await qr.query(
        `INSERT INTO idempotency_keys (key, request_hash, status_code, response, stream_id, event_ids, last_version)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6::uuid[], $7)
         ON CONFLICT (key) DO NOTHING
         RETURNING response`,
        [
          p.idempotency.key,
          p.idempotency.requestHash,
          p.idempotency.statusCode,
          JSON.stringify(response ?? null),
          p.streamId,
          events.map((e) => e.eventId),
          lastVersion,
        ],
      );
      if (stored.length === 0) return null;
      // The stored JSON, not the object: a replay must return exactly what this call returns.
      idempotent = { statusCode: p.idempotency.statusCode, response: stored[0].response };
    }

    // 4. Events, outbox rows, stream head and the relay's wake-up call, in one round trip.
    //    (Data-modifying CTEs always run to completion; NOTIFY is delivered at COMMIT.)
    await qr.query(
      `WITH ins AS (
         INSERT INTO events (global_position, event_id, stream_id, stream_version, table_id, type, schema_version,
                             data, actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id,
                             prev_hash, hash)
         SELECT u.global_position, u.event_id, $9, u.stream_version, $10, u.type, u.schema_version,
                u.data, $11, $12, $13::timestamptz, $14::timestamptz, $15, $16,
                u.prev_hash, u.hash
           FROM unnest($1::bigint[], $2::uuid[], $3::int[], $4::text[], $5::int[], $6::jsonb[], $7::text[], $8::text[])
                AS u(global_position, event_id, stream_version, type, schema_version, data, prev_hash, hash)
         RETURNING global_position
       ), ob AS (
         INSERT INTO outbox (global_position, topic, key) SELECT global_position, $17, $10 FROM ins
       ), st AS (
         UPDATE streams SET version = $18, last_hash = $19, updated_at = now() WHERE stream_id = $9
       )
       SELECT pg_notify('${OUTBOX_CHANNEL}', $20)`,
      [
        events.map((e) => e.globalPosition),
        events.map((e) => e.eventId),
        events.map((e) => e.streamVersion),
        events.map((e) => e.type),
        events.map((e) => e.schemaVersion),
        p.events.map((e) => e.dataJson),
        events.map((e) => e.prevHash),
        events.map((e) => e.hash),
        p.streamId,
        p.tableId,
        p.actor.id,
        p.actor.role,
        p.occurredAt,
        p.recordedAt,
        p.correlationId,
        p.causationId,
        this.topic,
        lastVersion,
        prevHash,
        last.toString(),
      ],
    );
    return { events, lastVersion, outcome: 'APPENDED', idempotent };
  }

  /**
   * After a rolled-back append, decides from what is stored whether the request is a retry (answer it
   * the same way as the first time) or a genuine conflict (throw).
   */
  private async resolveRefusal(p: Prepared, refusal: Refusal): Promise<AppendResult> {
    if (p.idempotency) {
      const stored = await this.findIdempotent(p.idempotency.key);
      if (stored) {
        if (stored.requestHash !== p.idempotency.requestHash) throw new IdempotencyKeyReuseError(stored.key);
        const events = await this.eventsByIds(stored.eventIds);
        this.log.info(
          { streamId: p.streamId, idempotencyKey: stored.key, correlationId: p.correlationId },
          'idempotent replay',
        );
        return {
          events: events.map(upcast),
          lastVersion: stored.lastVersion,
          outcome: 'IDEMPOTENT_REPLAY',
          idempotent: { statusCode: stored.statusCode, response: stored.response },
        };
      }
    }

    const ids = p.events.map((e) => e.eventId);
    const existing = await this.eventsByIds(ids);
    if (existing.length > 0) {
      if (existing.length < ids.length) {
        throw new DuplicateEventError(
          p.streamId,
          existing.map((e) => e.eventId),
          'PARTIAL',
        );
      }
      const byId = new Map(existing.map((e) => [e.eventId, upcast(e)]));
      const differing = p.events.filter((e) => {
        const s = byId.get(e.eventId)!;
        return s.streamId !== p.streamId || s.type !== e.type || canonicalJson(s.data) !== canonicalJson(e.data);
      });
      if (differing.length > 0) {
        throw new DuplicateEventError(
          p.streamId,
          differing.map((e) => e.eventId),
          'DIFFERENT_CONTENT',
        );
      }
      const events = ids.map((id) => byId.get(id)!);
      this.log.info({ streamId: p.streamId, correlationId: p.correlationId, count: ids.length }, 'duplicate append');
      return {
        events,
        lastVersion: Math.max(...events.map((e) => e.streamVersion)),
        outcome: 'DUPLICATE',
        idempotent: p.idempotency
          ? { statusCode: p.idempotency.statusCode, response: jsonRoundTrip(p.idempotency.response(events)) }
          : undefined,
      };
    }

    if (refusal.kind === 'VERSION') {
      this.log.info(
        {
          streamId: p.streamId,
          correlationId: p.correlationId,
          expectedVersion: p.expectedVersion,
          actualVersion: refusal.actual,
        },
        'version conflict',
      );
      throw new ConcurrencyError(p.streamId, p.expectedVersion, refusal.actual);
    }
    if (refusal.kind === 'UNIQUE') throw refusal.error;
    // The key was taken by a committed append, and is gone now: only a manual purge does that.
    throw new Error(`idempotency key ${p.idempotency?.key} was answered concurrently but its answer is not stored`);
  }

  /** Stored envelopes (not upcast) of the given ids, in global order. */
  private async eventsByIds(ids: readonly string[]): Promise<EventEnvelope<string, unknown>[]> {
    const rows: EventRow[] = await this.ds.query(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.event_id = ANY($1::uuid[]) ORDER BY e.global_position`,
      [ids],
    );
    return rows.map(rowToEnvelope);
  }

  // --------------------------------------------------------------------------------------- verifier

  private async inSnapshot<T>(work: (qr: QueryRunner) => Promise<T>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        return await work(qr);
      } finally {
        await qr.query('ROLLBACK').catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }

  private async verifyStreams(
    qr: QueryRunner,
    streamIds: readonly string[],
    problems: ChainProblem[],
  ): Promise<ChainVerification> {
    let eventsChecked = 0;
    for (const streamId of streamIds) eventsChecked += await this.verifyStream(qr, streamId, problems);
    if (problems.length > 0) {
      this.log.warn({ problems: problems.slice(0, 20), count: problems.length }, 'hash chain verification failed');
    }
    return { ok: problems.length === 0, streamsChecked: streamIds.length, eventsChecked, problems };
  }

  /** Walks one stream in version order; pushes what it finds; returns the number of events read. */
  private async verifyStream(qr: QueryRunner, streamId: string, problems: ChainProblem[]): Promise<number> {
    const headRows = await qr.query(`SELECT version, last_hash FROM streams WHERE stream_id = $1`, [streamId]);
    let expectedVersion = 1;
    let prevHash = GENESIS_HASH;
    let prevPosition: bigint | null = null;
    let lastVersionRead = 0;
    let count = 0;
    for (;;) {
      const rows: EventRow[] = await qr.query(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version > $2
          ORDER BY e.stream_version LIMIT ${VERIFY_PAGE}`,
        [streamId, lastVersionRead],
      );
      for (const row of rows) {
        const e = rowToEnvelope(row);
        const at = { streamId, streamVersion: e.streamVersion, eventId: e.eventId };
        if (e.streamVersion !== expectedVersion) {
          problems.push({
            ...at,
            streamVersion: expectedVersion,
            kind: 'VERSION_GAP',
            detail: `versions ${expectedVersion}..${e.streamVersion - 1} missing before event ${e.eventId} (version ${e.streamVersion})`,
          });
        }
        if (e.prevHash !== prevHash) {
          problems.push({
            ...at,
            kind: 'PREV_HASH_MISMATCH',
            detail: `prev_hash ${e.prevHash} but the preceding stored event hashes to ${prevHash}`,
          });
        }
        const recomputed = computeEventHash(e);
        if (recomputed !== e.hash) {
          problems.push({ ...at, kind: 'HASH_MISMATCH', detail: `stored hash ${e.hash}, recomputed ${recomputed}` });
        }
        const position = BigInt(e.globalPosition);
        if (prevPosition !== null && position <= prevPosition) {
          problems.push({
            ...at,
            kind: 'POSITION_GAP',
            detail: `global position ${position} not after its predecessor's ${prevPosition}`,
          });
        }
        prevPosition = position;
        prevHash = e.hash;
        expectedVersion = e.streamVersion + 1;
        lastVersionRead = e.streamVersion;
        count++;
      }
      if (rows.length < VERIFY_PAGE) break;
    }
    if (headRows.length === 1) {
      const headVersion: number = headRows[0].version;
      if (headVersion >= expectedVersion) {
        problems.push({
          streamId,
          streamVersion: expectedVersion,
          eventId: null,
          kind: 'VERSION_GAP',
          detail: `the stream is at version ${headVersion} but versions ${expectedVersion}..${headVersion} are missing`,
        });
      } else if (headVersion === lastVersionRead && headRows[0].last_hash !== prevHash) {
        problems.push({
          streamId,
          streamVersion: lastVersionRead,
          eventId: null,
          kind: 'HASH_MISMATCH',
          detail: `streams.last_hash ${headRows[0].last_hash} differs from the last event's hash ${prevHash}`,
        });
      }
    } else if (count > 0) {
      problems.push({
        streamId,
        streamVersion: null,
        eventId: null,
        kind: 'VERSION_GAP',
        detail: 'events exist but the stream has no head row in streams',
      });
    }
    return count;
  }

  /** Global positions must run 1..counter without a hole. */
  private async positionProblems(qr: QueryRunner): Promise<ChainProblem[]> {
    const problems: ChainProblem[] = [];
    const holes = await qr.query(
      `SELECT t.global_position::text AS global_position, t.prev::text AS prev, t.event_id, t.stream_id, t.stream_version
         FROM (SELECT global_position, event_id, stream_id, stream_version,
                      lag(global_position) OVER (ORDER BY global_position) AS prev
                 FROM events) t
        WHERE t.global_position <> coalesce(t.prev, 0) + 1
        LIMIT 1000`,
    );
    for (const h of holes) {
      const from = h.prev === null ? 1n : BigInt(h.prev) + 1n;
      problems.push({
        streamId: h.stream_id,
        streamVersion: h.stream_version,
        eventId: h.event_id,
        kind: 'POSITION_GAP',
        detail: `global positions ${from}..${BigInt(h.global_position) - 1n} missing before this event`,
      });
    }
    const [tail] = await qr.query(
      `SELECT (SELECT last_position::text FROM event_position) AS counter,
              (SELECT max(global_position)::text FROM events) AS max`,
    );
    const max = tail.max === null ? 0n : BigInt(tail.max);
    if (tail.counter !== null && BigInt(tail.counter) !== max) {
      problems.push({
        streamId: null,
        streamVersion: null,
        eventId: null,
        kind: 'POSITION_GAP',
        detail: `the position counter is at ${tail.counter} but the last stored event is at ${max}`,
      });
    }
    return problems;
  }
}

// ------------------------------------------------------------------------------------------- helpers

function toHead(r: { table_id: string; version: number; last_hash: string }): StreamHead {
  return { tableId: r.table_id, version: r.version, lastHash: r.last_hash };
}

/** Event data as it will read back from jsonb: plain JSON, with NaN/Infinity/BigInt/NUL refused, not altered. */
function normaliseData(data: unknown, i: number): unknown {
  const field = `events[${i}].data`;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new InvalidAppendError(`${field} must be a JSON object`, { field });
  }
  let json: string;
  try {
    canonicalJson(data); // refuses NaN and Infinity, which JSON.stringify would silently turn into null
    json = JSON.stringify(data);
  } catch (err) {
    throw new InvalidAppendError(`${field} cannot be stored as JSON: ${(err as Error).message}`, { field });
  }
  if (json.includes('\\u0000')) {
    throw new InvalidAppendError(`${field} contains a NUL character, which PostgreSQL jsonb cannot store`, { field });
  }
  return JSON.parse(json);
}

function jsonRoundTrip(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? null));
}

/** JSON for `rejections.raw_payload`: never throws; NULs escaped; oversized or unserialisable payloads summarised. */
function payloadJson(payload: unknown): string | null {
  if (payload === undefined) return null;
  const MAX = 1024 * 1024;
  let json: string | undefined;
  try {
    json = JSON.stringify(payload, (_k, v) =>
      typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.replace(/\u0000/g, '\\u0000') : v,
    );
  } catch (err) {
    return JSON.stringify({ unserialisable: String((err as Error).message) });
  }
  if (json === undefined) return null;
  if (json.length > MAX) return JSON.stringify({ truncated: true, length: json.length, head: json.slice(0, 4096) });
  return json;
}

function driverError(err: unknown): { code?: string; constraint?: string } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { driverError?: { code?: string; constraint?: string }; code?: string; constraint?: string };
  return e.driverError ?? e;
}

function sqlState(err: unknown): string | undefined {
  return driverError(err)?.code;
}

/** The constraint name of a unique violation (SQLSTATE 23505), else undefined. */
function uniqueViolation(err: unknown): string | undefined {
  const d = driverError(err);
  return d?.code === '23505' ? d.constraint : undefined;
}
