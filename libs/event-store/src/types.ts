import type { Actor, LedgerEvent, NewEvent } from '@ledger/events';
import type { LedgerLogger } from './logger';

/**
 * The event store's public shapes: what an append takes and returns, the idempotent answer, the
 * rejection record and the verifier's report. The operations live beside this file (`append.ts`,
 * `read.ts`, `idempotency.ts`, `verification.ts`, `rejections.ts`); `PgEventStore` is their facade.
 */

/**
 * Most events one append may carry (one request's worth; a shoe's whole history is never one append).
 * A request's worth is larger than it looks: the bet batch endpoint takes up to 10,000 bets, and the
 * last card of a round records its result and one settlement per bet of the round in ONE append
 * (several batches may have gone into the round). At 1,000, any batch above 1,000 bets and any
 * round of more than 998 bets could not be recorded (422 APPEND.INVALID; found by `npm run bench`).
 */
export const MAX_EVENTS_PER_APPEND = 50_000;

/** Attribution shared by every event of one append (docs/guarantees.md §9). */
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

/**
 * The idempotency part of an append (docs/guarantees.md §3): a retry with the same key by the same
 * caller gets the first answer. Keys are scoped per caller: the same key sent by another caller is
 * another key. A key is kept for the store's retention ({@link PgEventStoreOptions.idempotencyRetentionMs},
 * default 7 days); after it the key may be used again.
 */
export interface AppendIdempotency {
  /**
   * Who sent the request: `<role>:<token subject>` (e.g. `table-device:device-1`). The key is unique
   * per caller only. Non-empty, ≤ 200 characters.
   */
  readonly caller: string;
  /** Client-supplied key (e.g. the `Idempotency-Key` header). Non-empty, ≤ 200 characters. */
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
  /**
   * The stream's head as the caller knows it (its cache): version and hash of its last event (the
   * genesis hash for a new stream). When `version` equals `expectedVersion` the store chains on it
   * without reading the head first (one round trip less); a wrong head is only a version conflict
   * (`ledger_append` checks both under the stream lock).
   */
  readonly expectedHead?: { readonly version: number; readonly lastHash: string };
}

/** How an append was answered. */
export type AppendOutcome =
  /** the events were recorded by this call */
  | 'APPENDED'
  /** every event id was already recorded with the same content: nothing written, stored events returned */
  | 'DUPLICATE'
  /** the idempotency key was already answered: nothing written, the stored answer returned */
  | 'IDEMPOTENT_REPLAY';

/** An answer stored under a caller's idempotency key. */
export interface StoredIdempotentResponse {
  /** The caller the key belongs to (`<role>:<subject>`; `legacy:` for keys stored before keys were scoped). */
  readonly caller: string;
  readonly key: string;
  readonly requestHash: string;
  /** HTTP status of the first answer. */
  readonly statusCode: number;
  /**
   * Body of the first answer as stored (JSON) for keys stored with a copy of it; null for keys
   * stored by reference (rebuild it from the events: {@link firstVersion}..{@link lastVersion}).
   */
  readonly response: unknown;
  readonly streamId: string;
  /** Events the first request appended, in stream order. */
  readonly eventIds: readonly string[];
  /** Stream version after the first request. */
  readonly lastVersion: number;
  /** First stream version the first request appended; null for keys stored with a copy (then {@link eventIds}). */
  readonly firstVersion: number | null;
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

/** A refused request, for the audit log of refusals (docs/guarantees.md §11). */
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
  /** Clock for `recordedAt` and for the age of idempotency keys (tests). @default `() => new Date()` */
  readonly now?: () => Date;
  /**
   * How long an idempotency key is kept, in milliseconds (docs/guarantees.md §3): a retry within it
   * gets the first answer; after it the key is unknown again (a request with it is executed anew) and
   * {@link PgEventStore.pruneIdempotencyKeys} deletes its row. @default 7 days ({@link DEFAULT_IDEMPOTENCY_RETENTION_MS})
   */
  readonly idempotencyRetentionMs?: number;
  /**
   * Statement timeout of the chain verifier's queries, in ms (`SET LOCAL statement_timeout` in its
   * read-only snapshot; docs/architecture.md §10): a verification past it fails with SQLSTATE 57014.
   * @default none (the connection's own)
   */
  readonly verifyStatementTimeoutMs?: number;
}

/** Default retention of idempotency keys: 7 days, in milliseconds. */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3600 * 1000;
