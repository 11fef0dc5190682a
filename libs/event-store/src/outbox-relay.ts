import { catalogueCounter } from '@ledger/metrics';
import type { Client } from 'pg';
import { createKafka, type KafkaClient, type KafkaLogger } from '@ledger/kafka';
import { DEFAULT_LEASE_TTL_MS, ensureTopics, LeaderOutboxPublisher, significantEventsTopicDeclaration, significantEventsTopicOf, type OutboxCrashPoint, type OutboxRecord } from '@ledger/infra';
import { SIGNIFICANT_EVENT_TYPES } from '@ledger/events';
import { DEV_RECORD_SIGNING_KEY } from './record-signature';
import { LedgerRecordBuilder } from './relay-record';
import { defaultLogger, errorFields, type LedgerLogger } from './logger';
import { DEFAULT_RELAY_DATABASE_URL, OUTBOX_CHANNEL } from './constants';
import { CommitHorizon, RELAY_PROGRESS_NAME } from './horizon';
import { EVENT_COLUMNS, type EventRow } from './rows';
import { SpanKind, startSpanFrom, traceContextOf, type TraceCarrier } from '@ledger/tracing';
import type { OutgoingMessage } from '@ledger/kafka';
import type { Span } from '@opentelemetry/api';

/** Outbox rows this process published (docs/architecture.md §8; the relay's `RELAY_HTTP_PORT` listener). */
const publishedRows = catalogueCounter('outboxPublished');
/** Outbox batches this process published (one transactional send each). */
const publishBatches = catalogueCounter('relayPublishBatches');
/** Published outbox rows this process pruned. */
const prunedRows = catalogueCounter('outboxPruned');

/**
 * Name of the relay's row in `outbox_leases` (docs/guarantees.md §4): the relay instance that holds
 * it publishes; the others are standby. Shared by every relay of one database (and taken by
 * `npm run republish` for its run).
 */
export const RELAY_LEASE_NAME = 'ledger-relay';

/** The write side's lease table (migration `CreateOutboxLeases1796000500000`). */
export const OUTBOX_LEASE_TABLE = 'outbox_leases';

/** Default retention of published outbox rows, in milliseconds (7 days); see {@link OutboxRelayOptions.retentionMs}. */
export const DEFAULT_OUTBOX_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Default pause between two prunings of the outbox by the leader, in milliseconds. */
export const DEFAULT_OUTBOX_PRUNE_INTERVAL_MS = 60_000;

/** Published outbox rows one pruning statement deletes at most (a pruning runs at most {@link MAX_PRUNE_BATCHES} of them). */
export const OUTBOX_PRUNE_BATCH = 1000;

/** Pruning statements per pruning round; the rest waits for the next round. */
const MAX_PRUNE_BATCHES = 20;

/** Most outbox rows one batch claims (`RELAY_BATCH_SIZE` ≤ this). */
export const MAX_RELAY_BATCH = 5000;

/** Outbox rows one batch claims by default (`RELAY_BATCH_SIZE`'s default). */
export const DEFAULT_RELAY_BATCH = 2000;

/**
 * Where a test makes the relay process die (`process.exit(137)`, like a SIGKILL):
 *  - `before-send`: rows claimed, nothing sent to Kafka;
 *  - `after-send`: Kafka acknowledged the batch, the rows are not yet marked published.
 */
export type RelayCrashPoint = OutboxCrashPoint;

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  /**
   * PostgreSQL URL, as the relay's role `ledger_relay` (docs/architecture.md §10; the relay process
   * passes its validated `RELAY_DATABASE_URL`). @default {@link DEFAULT_RELAY_DATABASE_URL}, the local
   * `ledger` database as `ledger_relay`
   */
  readonly databaseUrl?: string;
  /** Kafka bootstrap brokers, `host:port`. @default `['127.0.0.1:9092']` */
  readonly brokers?: readonly string[];
  /** Kafka client id. @default 'ledger-relay' */
  readonly clientId?: string;
  /** A Kafka client (`@ledger/kafka`) to use instead of building one from `brokers` (tests). */
  readonly kafka?: KafkaClient;
  /** Rows per batch, 1–{@link MAX_RELAY_BATCH}. @default {@link DEFAULT_RELAY_BATCH} */
  readonly batchSize?: number;
  /** Polling fallback when no NOTIFY arrives, in milliseconds. @default 200 */
  readonly pollIntervalMs?: number;
  /** How often a standby instance tries to take over, in milliseconds. @default 1000 */
  readonly standbyRetryMs?: number;
  /** Upper bound of one Kafka produce request, in bytes of message values (keeps under the broker's 1 MiB). @default 524288 */
  readonly maxRequestBytes?: number;
  /** Name of the lease row. @default {@link RELAY_LEASE_NAME} */
  readonly leaseName?: string;
  /**
   * Lease time-to-live, in milliseconds (the relay process passes `RELAY_LEASE_TTL_MS`): a leader
   * that stops renewing (frozen, partitioned) loses leadership this long after its last renewal,
   * and a standby takes over within `leaseTtlMs + standbyRetryMs`. @default 5000
   */
  readonly leaseTtlMs?: number;
  /** The lease holder id of this instance. @default `<hostname>:<pid>:<random>` */
  readonly leaseHolder?: string;
  /**
   * Published outbox rows older than this (since `published_at`, by PostgreSQL's clock) are deleted
   * by the leader (the relay process passes `OUTBOX_RETENTION_MS`); null keeps them. Unpublished rows
   * are never deleted. @default {@link DEFAULT_OUTBOX_RETENTION_MS}
   */
  readonly retentionMs?: number | null;
  /** Pause between two prunings, in milliseconds (`OUTBOX_PRUNE_INTERVAL_MS`). @default {@link DEFAULT_OUTBOX_PRUNE_INTERVAL_MS} */
  readonly pruneIntervalMs?: number;
  /** Structured logger. @default pino named `ledger-relay` */
  readonly logger?: LedgerLogger;
  /**
   * The key every record is signed with (header `ledger-sig`, see `record-signature.ts`): the relay
   * process passes its validated `RECORD_SIGNING_KEY` (`recordSigningKey(config)`). The projector must
   * hold the same. @default {@link DEV_RECORD_SIGNING_KEY}, the public development key (tests, tools)
   */
  readonly recordSigningKey?: string;
  /** Test-only crash hook (the relay process passes its validated `RELAY_CRASH_POINT`). @default none */
  readonly crashPoint?: RelayCrashPoint | null;
  /** What the crash hook calls. @default `process.exit` */
  readonly exit?: (code: number) => void;
}

/** What {@link OutboxRelay.runOnce} did. */
export interface RelayRunResult {
  /** Whether this instance held the lease (false: another relay is publishing; nothing done). */
  readonly leader: boolean;
  /** Outbox rows published (and marked) by this call. */
  readonly published: number;
  /** Batches (transactions) that took. */
  readonly batches: number;
  /** Global position of the last row published, decimal string; null when none. */
  readonly lastPosition: string | null;
}

interface OutboxRow extends EventRow {
  topic: string;
  key: string;
  /** W3C trace context of the append that wrote the row (tracing on in the API), else null. */
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * The record of `row` with its trace context (docs/architecture.md §11): when the row carries a
 * `traceparent`, the record gets the headers `traceparent` (and `tracestate` when there is one) —
 * tracing on here, those of a new PRODUCER span `ledger.relay.publish`, a child of the append span,
 * kept in `spans` until the batch is published; tracing off here, the row's own, passed through.
 * Headers are not signed (the signature covers key and value), so the record is otherwise unchanged.
 */
function withTraceContext(row: OutboxRow, message: OutgoingMessage, spans: WeakMap<OutboxRow, Span>): OutgoingMessage {
  if (row.traceparent === null) return message;
  const stored: TraceCarrier = row.tracestate ? { traceparent: row.traceparent, tracestate: row.tracestate } : { traceparent: row.traceparent };
  const span = startSpanFrom('ledger.relay.publish', SpanKind.PRODUCER, stored, {
    'messaging.system': 'kafka',
    'messaging.destination.name': row.topic,
    'messaging.message.id': row.event_id,
    'ledger.global_position': row.global_position,
  });
  if (span !== null) spans.set(row, span);
  const carrier = span === null ? stored : traceContextOf(span);
  const headers: Record<string, string | Buffer> = { ...message.headers, traceparent: carrier.traceparent! };
  if (carrier.tracestate) headers.tracestate = carrier.tracestate;
  return { ...message, headers };
}

/** Whether `row` holds a significant event (docs/significant-events.md): it is also copied to its own topic. */
function isSignificant(row: OutboxRow): boolean {
  return (SIGNIFICANT_EVENT_TYPES as readonly string[]).includes(row.type);
}

/**
 * The significant-events topics the relay copies to ({@link significantEventsTopicOf} of each row's
 * topic), created when missing before the first batch that needs one (a record for a topic Kafka
 * lacks would fail the batch again and again: the relay would stall). Each topic is checked once
 * per process.
 */
class SignificantCopyTopics {
  private readonly ensured = new Set<string>();
  constructor(private readonly kafka: KafkaClient) {}

  /** Creates the copy topics `rows` need and this process has not checked yet. */
  async ensure(rows: readonly OutboxRow[]): Promise<void> {
    const needed = [...new Set(rows.filter(isSignificant).map((r) => significantEventsTopicOf(r.topic)))].filter((t) => !this.ensured.has(t));
    if (needed.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      // only the missing ones: an existing copy topic is used as it is, whatever its partition count
      const present = new Set(await admin.listTopics());
      const missing = needed.filter((t) => !present.has(t));
      if (missing.length > 0) await ensureTopics(admin, missing.map(significantEventsTopicDeclaration));
    } finally {
      await admin.disconnect();
    }
    for (const t of needed) this.ensured.add(t);
  }
}

/**
 * The transactional outbox's relay (docs/guarantees.md §4 and §5): publishes every committed
 * event to Kafka, in global-position order, at least once.
 *
 * Loop (leader only): read ≤ `batchSize` (default 2000) unpublished outbox rows in position order; renew the lease; send
 * them to Kafka in that order and wait for the acks (idempotent producer, acks = all, one request in
 * flight, so per-partition order holds and producer retries add no duplicates); then BEGIN; check
 * and renew the lease (holder and generation unchanged: nobody took over); mark them published; COMMIT. A crash or a
 * lost lease anywhere before COMMIT leaves the rows unpublished and the next leader sends them again:
 * duplicates are possible, always byte-identical (same event id, same value, same headers), never a
 * loss. Consumers de-duplicate by event id (CloudEvents `ce_id`).
 *
 * Only one instance publishes: the leader holds the lease row `ledger-relay` of `outbox_leases`
 * (`@ledger/infra`'s `Lease`), renewed while it makes progress; the others stay standby and retry
 * every `standbyRetryMs`. A leader that stops renewing (killed, frozen by SIGSTOP, partitioned)
 * loses it `leaseTtlMs` after its last renewal and a standby takes over (generation + 1); the
 * deposed leader cannot mark rows any more (the fence in the mark transaction).
 *
 * Pruning (leader only, every `pruneIntervalMs`): published rows older than `retentionMs` are
 * deleted, {@link OUTBOX_PRUNE_BATCH} per statement; an unpublished row never is, so a Kafka outage
 * of any length only grows the outbox (appends do not depend on Kafka) and the backlog drains in
 * position order when the broker is back.
 *
 * Woken by `LISTEN outbox` (each append NOTIFYs on commit), with polling as the fallback.
 *
 * Kafka record (`relay-record.ts`, docs/architecture.md §6): key = outbox key (the table id), value =
 * the stored envelope as canonical JSON (not upcast, so downstream can verify the hash), headers =
 * the CloudEvents 1.0 Kafka binding's required attributes in binary mode (`ce_specversion`, `ce_id`,
 * `ce_source` = `/tables/<tableId>`, `ce_type` = `baccarat.ledger.<Type>.v<schemaVersion>`),
 * `content-type` and `ledger-sig`, the record's signature (HMAC-SHA256 over key and value with
 * `RECORD_SIGNING_KEY`; the projector applies nothing without it, docs/guarantees.md §8).
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly log: LedgerLogger;
  private readonly publisher: LeaderOutboxPublisher<OutboxRow>;
  /** Outbox rows this instance has pruned since it was constructed. */
  pruned = 0;
  /** The commit-order horizon of the publisher's session (docs/guarantees.md §5). */
  private readonly horizon = new CommitHorizon();
  /** What the last claim covers: every position ≤ it is in that batch, published before, or a hole. */
  private claimedThrough = 0n;

  /** @param options connection, batching, timing, logging; every field has a default */
  constructor(options: OutboxRelayOptions = {}) {
    this.log = options.logger ?? defaultLogger('ledger-relay');
    const brokers = options.brokers ?? parseBrokers(undefined);
    const kafka =
      options.kafka ??
      createKafka({
        clientId: options.clientId ?? 'ledger-relay',
        brokers,
        logLevel: 'warn',
        logger: kafkaLogger(this.log),
      });
    this.batchSize = Math.min(Math.max(1, options.batchSize ?? DEFAULT_RELAY_BATCH), MAX_RELAY_BATCH);
    const leaseName = options.leaseName ?? RELAY_LEASE_NAME;
    const retentionMs = options.retentionMs === undefined ? DEFAULT_OUTBOX_RETENTION_MS : options.retentionMs;
    const pruneIntervalMs = options.pruneIntervalMs ?? DEFAULT_OUTBOX_PRUNE_INTERVAL_MS;
    let lastPrune = -Infinity;
    const records = new LedgerRecordBuilder(options.recordSigningKey ?? DEV_RECORD_SIGNING_KEY);
    const copyTopics = new SignificantCopyTopics(kafka);
    // publish spans of the rows in flight, ended once their batch is marked published
    const publishSpans = new WeakMap<OutboxRow, Span>();
    this.publisher = new LeaderOutboxPublisher<OutboxRow>({
      source: {
        claim: async (client, limit) => {
          const horizon = await this.horizon.advance(client);
          const rows = await claimOutboxRows(client, limit, horizon);
          await copyTopics.ensure(rows);
          // every position up to here is now published (once this batch is marked) or a hole
          this.claimedThrough = rows.length < limit ? horizon : BigInt(rows[rows.length - 1].global_position);
          return rows;
        },
        toRecord: (row) => {
          const record: OutboxRecord = { topic: row.topic, message: withTraceContext(row, records.build(row), publishSpans) };
          // a significant event also goes, byte for byte, to its own topic (after the ledger topic's record)
          return isSignificant(row) ? [record, { topic: significantEventsTopicOf(row.topic), message: record.message }] : record;
        },
        markPublished: (client, rows) => markOutboxRowsPublished(client, rows, this.claimedThrough),
        onBatchPublished: (rows, ms) => {
          for (const row of rows) publishSpans.get(row)?.end();
          publishedRows.inc(rows.length);
          publishBatches.inc();
          this.log.debug({ count: rows.length, firstPosition: rows[0].global_position, lastPosition: rows[rows.length - 1].global_position, ms }, 'outbox batch published');
        },
        onCrashPoint: (point, rows) => this.log.warn({ crashPoint: point, firstPosition: rows[0].global_position, count: rows.length }, 'RELAY_CRASH_POINT reached: exiting with 137 (test hook)'),
        afterLoopDrain: async (client) => {
          if (retentionMs === null || performance.now() - lastPrune < pruneIntervalMs) return;
          lastPrune = performance.now();
          const deleted = await pruneOutbox(client, retentionMs);
          this.pruned += deleted;
          prunedRows.inc(deleted);
          if (deleted > 0) this.log.info({ deleted, retentionMs }, 'published outbox rows pruned');
        },
      },
      databaseUrl: options.databaseUrl ?? DEFAULT_RELAY_DATABASE_URL,
      applicationName: 'ledger-relay',
      kafka,
      lease: { table: OUTBOX_LEASE_TABLE, name: leaseName, ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS, holder: options.leaseHolder },
      messages: {
        leader: 'relay is the leader',
        standby: 'another relay publishes: standing by',
        tookOver: 'took over publishing',
        lostLease: 'relay lost the lease (expired or taken over): standing by',
        loopFailed: 'relay loop failed; reconnecting',
        connectionFailed: 'relay database connection failed',
      },
      logger: this.log,
      errorFields,
      listenChannel: OUTBOX_CHANNEL,
      batchSize: this.batchSize,
      pollIntervalMs: options.pollIntervalMs,
      standbyRetryMs: options.standbyRetryMs,
      maxRequestBytes: options.maxRequestBytes,
      crashPoint: options.crashPoint ?? null,
      exit: options.exit,
    });
  }

  /** Whether this instance currently holds the lease and publishes. */
  get isLeader(): boolean {
    return this.publisher.isLeader;
  }

  /** This instance's lease: name, holder id, TTL (ms), and the generation it holds (null when none). */
  get lease(): { readonly name: string; readonly holder: string; readonly ttlMs: number; readonly generation: string | null } {
    const l = this.publisher.leaseInfo;
    return { name: l.name, holder: l.holder, ttlMs: l.ttlMs, generation: l.generation };
  }

  /**
   * Publishes everything unpublished now, batch after batch, then returns (tests, tools). Takes the
   * lease for its duration and, unless {@link start} is running, releases it afterwards.
   * @returns `leader: false` and nothing published when another relay holds the lease
   * @throws the PostgreSQL or Kafka error that stopped it, or `LeaseLostError` when the lease was
   *   lost meanwhile (the current batch is not marked: no loss)
   */
  async runOnce(): Promise<RelayRunResult> {
    const { leader, published, batches, lastRow } = await this.publisher.runOnce();
    return { leader, published, batches, lastPosition: lastRow?.global_position ?? null };
  }

  /**
   * Starts the loop in the background and returns once it runs: connect, LISTEN, try to lead, publish,
   * wait for a NOTIFY or `pollIntervalMs`, repeat. Errors (database or Kafka down) are logged and
   * retried with back-off up to 5 s; the loop never dies of them. Calling it twice is a no-op.
   */
  async start(): Promise<void> {
    if (!this.publisher.start()) return;
    this.log.info({ batchSize: this.batchSize, pollIntervalMs: this.publisher.pollIntervalMs }, 'relay started');
  }

  /**
   * Stops the loop after the batch in progress (that batch commits or rolls back as a whole), releases
   * the lease, disconnects from PostgreSQL and Kafka. Safe to call twice or without start().
   */
  async stop(): Promise<void> {
    await this.publisher.stop();
    this.log.info({}, 'relay stopped');
  }
}

/**
 * Reads up to `limit` unpublished outbox rows with their events, in global-position order, at or
 * below the commit-order `horizon` (every position up to it is final, so none can commit later
 * below a published one: docs/guarantees.md §5). No lock: the lease is the exclusion, and a frozen
 * leader must hold no row lock.
 *
 * The outbox rows are claimed first, then their events fetched by position (`= ANY`): with a plain
 * `outbox JOIN events … LIMIT`, PostgreSQL picks a merge join whose scan of `events_pkey` starts at
 * position 1 and walks every event already published before it finds the first unpublished one, so
 * each batch cost O(ledger size) and draining a backlog was quadratic (`npm run bench`: 28 ms instead
 * of 1 ms per 500-row claim with 30,000 events published before the backlog).
 */
async function claimOutboxRows(client: Client, limit: number, horizon: bigint): Promise<OutboxRow[]> {
  const { rows } = await client.query<OutboxRow>(
    `WITH claimed AS MATERIALIZED (
       SELECT global_position, topic, key, traceparent, tracestate FROM outbox
        WHERE published_at IS NULL AND global_position <= $2::bigint
        ORDER BY global_position
        LIMIT $1
     )
     SELECT o.topic, o.key, o.traceparent, o.tracestate, ${EVENT_COLUMNS}
       FROM claimed o JOIN events e ON e.global_position = o.global_position
      WHERE e.global_position = ANY (ARRAY(SELECT global_position FROM claimed))
      ORDER BY o.global_position`,
    [limit, horizon.toString()],
  );
  return rows;
}

/**
 * In the fenced mark transaction (Kafka acknowledged the rows): marks them published (`published_at`
 * on the database clock at the mark), then `ledger_mark_progress` records every position in
 * (progress, `through`] that no event holds as a hole in `position_gaps` (all of them are final: at
 * or below the horizon) and moves `outbox_progress` to `through` (docs/guarantees.md §5). A progress
 * row moved meanwhile by someone else is left as it is (nothing at or below it is recorded again).
 * @param through a position ≤ the horizon of the claim; every unpublished row ≤ it is in `rows`
 */
async function markOutboxRowsPublished(client: Client, rows: readonly OutboxRow[], through: bigint): Promise<void> {
  await client.query(`UPDATE outbox SET published_at = clock_timestamp() WHERE global_position = ANY($1::bigint[])`, [rows.map((r) => r.global_position)]);
  // holes and progress through the guarded function (migration 1799100000000): never beyond the last
  // assigned position, holes only where no event is
  await client.query(`SELECT ledger_mark_progress($1, $2::bigint)`, [RELAY_PROGRESS_NAME, through.toString()]);
}

/**
 * Deletes published outbox rows whose `published_at` is older than `retentionMs` (PostgreSQL's
 * clock), at most {@link OUTBOX_PRUNE_BATCH} rows per statement and {@link MAX_PRUNE_BATCHES}
 * statements per call (docs/guarantees.md §4). Never an unpublished row.
 * @param retentionMs ≥ 0, in milliseconds
 * @returns how many rows it deleted
 */
export async function pruneOutbox(client: Client, retentionMs: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_PRUNE_BATCHES; i++) {
    const { rowCount } = await client.query(
      `DELETE FROM outbox WHERE global_position IN (
         SELECT global_position FROM outbox
          WHERE published_at IS NOT NULL AND published_at < clock_timestamp() - $1 * interval '1 millisecond'
          ORDER BY published_at LIMIT $2)`,
      [retentionMs, OUTBOX_PRUNE_BATCH],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < OUTBOX_PRUNE_BATCH) break;
  }
  return total;
}

/**
 * Parses a comma-separated broker list (`host:port,host:port`).
 * @default ['127.0.0.1:9092'] when `value` is empty or undefined
 */
export function parseBrokers(value: string | undefined): string[] {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return brokers.length > 0 ? brokers : ['127.0.0.1:9092'];
}

/** Reads the crash hook from an env value; anything but `before-send` / `after-send` means none. */
export function parseCrashPoint(value: string | undefined): RelayCrashPoint | null {
  return value === 'before-send' || value === 'after-send' ? value : null;
}

/** The Kafka client's log lines into the structured logger, the client's fields under `kafka` (else it writes to the console). */
function kafkaLogger(log: LedgerLogger): KafkaLogger {
  return {
    error: (fields, msg) => log.error({ kafka: fields }, msg),
    warn: (fields, msg) => log.warn({ kafka: fields }, msg),
    info: (fields, msg) => log.info({ kafka: fields }, msg),
    debug: (fields, msg) => log.debug({ kafka: fields }, msg),
  };
}
