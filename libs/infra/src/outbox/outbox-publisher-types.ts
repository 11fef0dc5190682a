import type { Client } from 'pg';
import type { KafkaClient, OutgoingMessage } from '@ledger/kafka';
import type { StructuredLogger } from '@ledger/logging';

/**
 * The shapes of `LeaderOutboxPublisher` (`./leader-outbox-publisher.ts`): what an outbox
 * contributes as hooks, the publisher's options and results, and its defaults.
 */

/** Polling fallback of the loop when nothing wakes it, in milliseconds. */
export const DEFAULT_OUTBOX_POLL_INTERVAL_MS = 200;

/** How often a standby publisher tries to take the lease over, in milliseconds. */
export const DEFAULT_OUTBOX_STANDBY_RETRY_MS = 1000;

/**
 * Upper bound of one Kafka produce request, in units of message-value length (the JS `length` of
 * each value: characters for strings, bytes for Buffers); keeps requests under the broker's 1 MiB.
 */
export const DEFAULT_OUTBOX_MAX_REQUEST_BYTES = 512 * 1024;

/**
 * Where a test makes the publisher's process die (`exit(137)`, like a SIGKILL):
 *  - `before-send`: rows claimed (transaction open), nothing sent to Kafka;
 *  - `after-send`: Kafka acknowledged the whole batch, the rows are not yet marked published (the
 *    next leader sends them again: byte-identical duplicates).
 */
export type OutboxCrashPoint = 'before-send' | 'after-send';

/** Where the outbox publisher logs (the one logger interface, docs/architecture.md §8). */
export type OutboxPublisherLogger = StructuredLogger;

/** One Kafka record to send: the topic it goes to and the message (key, value, headers). */
export interface OutboxRecord {
  /** Topic name; it must exist (the producer never creates topics). */
  readonly topic: string;
  /** The record; its `value` should be a string or Buffer (its `length` counts against `maxRequestBytes`). */
  readonly message: OutgoingMessage;
}

/**
 * The lease that makes one instance the leader (`./lease.ts`; docs/guarantees.md §4): a row of a
 * lease table `(name text PRIMARY KEY, holder text, generation bigint, acquired_at, renewed_at,
 * expires_at timestamptz)` the publisher's role may SELECT, INSERT and UPDATE.
 */
export interface LeaseSpec {
  /** The lease table, qualified and quoted as needed, e.g. `outbox_leases` or `"read".outbox_leases`. */
  readonly table: string;
  /** The row's name, shared by every instance that competes, e.g. `ledger-relay`. */
  readonly name: string;
  /** Time-to-live of a renewal, in milliseconds: a leader that stops renewing loses the lease this long after its last renewal. @default `DEFAULT_LEASE_TTL_MS` (5000) */
  readonly ttlMs?: number;
  /** This instance's id in the row. @default `<hostname>:<pid>:<random>` */
  readonly holder?: string;
}

/**
 * The fixed texts of the publisher's log lines; each line also carries {@link LeaderOutboxPublisherOptions.lockFields}
 * (leadership lines) or the error's fields plus `retryInMs` (failure lines).
 */
export interface OutboxPublisherMessages {
  /** Info, when this instance takes the lease (fields also: `lease`, `generation`, `holder`, `ttlMs`). */
  readonly leader: string;
  /** Info, once each time this instance finds the lease held by another and starts standing by. */
  readonly standby: string;
  /** Info, after {@link leader}'s line when the instance that got the lease had been standing by. @default none (no line) */
  readonly tookOver?: string;
  /** Warn, when this instance finds it lost the lease (expired or taken over; nothing more is marked). @default 'lost the lease: standing by' */
  readonly lostLease?: string;
  /** Error, when an iteration of the loop failed (fields: the error's, `retryInMs`); the loop reconnects after the back-off. */
  readonly loopFailed: string;
  /** Error, when the dedicated PostgreSQL session failed (the loop reconnects; the lease, if still ours, is renewed on the new session). */
  readonly connectionFailed: string;
}

/**
 * What one kind of outbox contributes: how to claim, render and mark its rows. {@link claim} runs
 * outside a transaction (it takes no lock: the lease is the exclusion); {@link markPublished} runs
 * inside the fenced mark transaction (BEGIN, lease fence, mark, COMMIT) on the publisher's session;
 * anything they throw rolls the batch back and propagates (no loss: the rows stay unpublished).
 * @typeParam Row one claimed outbox row, as the hooks' SQL returns it
 */
export interface OutboxSource<Row> {
  /** Reads up to `limit` unpublished rows in publication order (no lock needed); `[]` when none. */
  claim(client: Client, limit: number): Promise<readonly Row[]>;
  /** The Kafka record of a row (or its records, when a row is published to several topics). Records are sent in row order. */
  toRecord(row: Row): OutboxRecord | readonly OutboxRecord[];
  /** Marks the rows published (Kafka has acknowledged all of them). */
  markPublished(client: Client, rows: readonly Row[]): Promise<void>;
  /** After COMMIT of a non-empty batch (logging). `ms`: milliseconds from BEGIN to COMMIT. */
  onBatchPublished?(rows: readonly Row[], ms: number): void;
  /** Logs that crash point `point` is reached with `rows` claimed; the publisher then calls `exit(137)`. */
  onCrashPoint?(point: OutboxCrashPoint, rows: readonly Row[]): void;
  /** After every successful drain (by {@link LeaderOutboxPublisher.runOnce} or by the loop). */
  onDrained?(result: OutboxDrainResult<Row>): void;
  /** Loop only, leader only, after each successful drain and before waiting (housekeeping, e.g. pruning); a throw counts as a loop failure. */
  afterLoopDrain?(client: Client): Promise<void>;
}

/** Options of `LeaderOutboxPublisher`. */
export interface LeaderOutboxPublisherOptions<Row> {
  /** The outbox's hooks. */
  readonly source: OutboxSource<Row>;
  /** PostgreSQL URL of the dedicated session (it renews the lease, claims and marks). */
  readonly databaseUrl: string;
  /** `application_name` of that session (PostgreSQL keeps 63 bytes). */
  readonly applicationName: string;
  /** A client of the Kafka port; the publisher makes its own producer from it. */
  readonly kafka: KafkaClient;
  /** The leadership lease. */
  readonly lease: LeaseSpec;
  /** Fields added to the leadership log lines, e.g. `{ schema }`. @default {} */
  readonly lockFields?: Record<string, unknown>;
  /** Texts of the log lines. */
  readonly messages: OutboxPublisherMessages;
  /** The logger. */
  readonly logger: OutboxPublisherLogger;
  /** Turns a thrown error into log fields. @default `err => ({ err: String(err) })` */
  readonly errorFields?: (err: unknown) => Record<string, unknown>;
  /** `LISTEN` on this channel; each NOTIFY on it wakes the loop. @default none (only {@link LeaderOutboxPublisher.wake} and polling) */
  readonly listenChannel?: string;
  /** Most rows one batch (transaction) claims; the caller has validated it (≥ 1). A drain stops at the first shorter batch. */
  readonly batchSize: number;
  /** Polling fallback, in milliseconds. @default {@link DEFAULT_OUTBOX_POLL_INTERVAL_MS} */
  readonly pollIntervalMs?: number;
  /** How often a standby instance tries to take the lease, in milliseconds. @default {@link DEFAULT_OUTBOX_STANDBY_RETRY_MS} */
  readonly standbyRetryMs?: number;
  /** Upper bound of one produce request. @default {@link DEFAULT_OUTBOX_MAX_REQUEST_BYTES} (see there for the unit) */
  readonly maxRequestBytes?: number;
  /** Test-only crash hook. @default null (none) */
  readonly crashPoint?: OutboxCrashPoint | null;
  /** What the crash hook calls with 137. @default `process.exit` */
  readonly exit?: (code: number) => void;
}

/** What a drain published: batches until one came back shorter than `batchSize` (or stop was asked). */
export interface OutboxDrainResult<Row> {
  /** Rows sent and marked published. */
  readonly published: number;
  /** Non-empty batches (transactions) committed. */
  readonly batches: number;
  /** The last row published; null when none. */
  readonly lastRow: Row | null;
}

/** What {@link LeaderOutboxPublisher.runOnce} did. */
export interface OutboxRunResult<Row> extends OutboxDrainResult<Row> {
  /** Whether this instance held the lease (false: another publisher holds it; nothing done). */
  readonly leader: boolean;
}
