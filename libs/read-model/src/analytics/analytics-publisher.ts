import type { Client } from 'pg';
import type { KafkaClient } from '@ledger/kafka';
import { ANALYTICS_ROADS_TOPIC, ANALYTICS_ROUND_OUTCOMES_TOPIC, ANALYTICS_SETTLEMENTS_TOPIC } from '@ledger/infra';
import { LeaderOutboxPublisher, type OutboxCrashPoint } from '@ledger/infra';
import { assertSchemaName, DEFAULT_DATABASE_URL, DEFAULT_READ_SCHEMA, ProjectionLogger, qualified, SILENT_LOGGER } from '@ledger/projections';
import type { AnalyticsRecordKind } from './analytics-records';
import { ClaimedOutboxRow, claimOutboxSql, resolveOutboxRow, ResolvedOutboxRow } from './analytics-references';

/** Topic of each kind of analytics record. */
export type AnalyticsTopicNames = Readonly<Record<AnalyticsRecordKind, string>>;

/** The documented topic names (`libs/infra/src/kafka/topics.ts`, `docs/asyncapi/asyncapi.yaml`). */
export const DEFAULT_ANALYTICS_TOPICS: AnalyticsTopicNames = {
  'round-outcome': ANALYTICS_ROUND_OUTCOMES_TOPIC,
  settlement: ANALYTICS_SETTLEMENTS_TOPIC,
  roads: ANALYTICS_ROADS_TOPIC,
};

/**
 * Where a test makes the publisher's process die (`exit(137)`, like a SIGKILL):
 *  - `before-send`: rows claimed, nothing sent;
 *  - `after-send`: Kafka acknowledged the batch, the rows are not yet marked published (the next
 *    publisher sends them again: duplicates with the same `ce_id`).
 */
export type AnalyticsCrashPoint = OutboxCrashPoint;

/** Options of {@link AnalyticsPublisher}. */
export interface AnalyticsPublisherOptions {
  /** A Kafka client (`@ledger/kafka`, the projector's). */
  readonly kafka: KafkaClient;
  /** PostgreSQL URL; the publisher keeps ONE dedicated session (it renews the lease, claims and marks). @default postgres://ledger:ledger@127.0.0.1:5432/ledger */
  readonly databaseUrl?: string;
  /** Schema of the outbox (the projector's). @default 'read' */
  readonly schema?: string;
  /** Topic per kind; missing entries take {@link DEFAULT_ANALYTICS_TOPICS}. */
  readonly topics?: Partial<AnalyticsTopicNames>;
  /** Rows claimed per transaction, 1..5000. @default 500 */
  readonly batchSize?: number;
  /** Polling interval when nobody calls {@link AnalyticsPublisher.wake}, ms. @default 200 */
  readonly pollIntervalMs?: number;
  /** How often a standby publisher tries to take over, ms. @default 1000 */
  readonly standbyRetryMs?: number;
  /** Lease time-to-live, ms: a publisher that stops renewing loses leadership this long after its last renewal (docs/guarantees.md §4). @default 5000 */
  readonly leaseTtlMs?: number;
  /** Upper bound of one produce request, bytes of values (under the broker's 1 MiB). @default 524288 */
  readonly maxRequestBytes?: number;
  /** Published rows older than this are deleted (checked about once a minute); `null` keeps them. @default 7 days */
  readonly retainPublishedMs?: number | null;
  readonly logger?: ProjectionLogger;
  /** FAULT INJECTION for tests only. @default null */
  readonly crashPoint?: AnalyticsCrashPoint | null;
  /** What the crash hook calls. @default process.exit */
  readonly exit?: (code: number) => void;
}

/** What {@link AnalyticsPublisher.runOnce} did. */
export interface AnalyticsPublishResult {
  /** False when another publisher holds the lease (nothing was done). */
  readonly leader: boolean;
  /** Rows sent and marked published. */
  readonly published: number;
  readonly batches: number;
}

type OutboxRow = ResolvedOutboxRow;

/** Name of the publisher's row in `<schema>.outbox_leases` (migration `CreateOutboxLeases1796000500100`). */
export const ANALYTICS_LEASE_NAME = 'ledger-analytics-publisher';

const PRUNE_EVERY_MS = 60_000;

/**
 * Publishes `<schema>.analytics_outbox` to the analytics topics (the same pattern
 * as the write side's outbox relay, docs/guarantees.md §4).
 *
 * Loop, leader only: BEGIN; claim up to `batchSize` unpublished rows in `(global_position,
 * ordinal)` order (`FOR UPDATE`); send them in that order (idempotent producer, acks = all, one
 * request in flight: per-partition order holds and producer retries add no duplicates); mark them
 * published; COMMIT. A crash before COMMIT leaves the rows unpublished and the next leader sends
 * them again: a duplicate is byte-identical (same key, value, headers, `ce_id`), never a loss.
 * Consumers de-duplicate by `ce_id`.
 *
 * One publisher per schema at a time: the leader holds the lease row `ledger-analytics-publisher`
 * of `<schema>.outbox_leases` (`@ledger/infra`'s `Lease`), renewed while it makes progress; others
 * stand by and retry every `standbyRetryMs`. A leader that stops renewing (killed, frozen,
 * partitioned) loses it `leaseTtlMs` after its last renewal and a standby takes over; the deposed
 * one cannot mark rows (the fence in the mark transaction). Runs inside the projector process
 * (`apps/projector/src/main.ts`), which calls {@link wake} after each committed projection
 * transaction; polling is the fallback.
 *
 * Kafka record = the stored row: key `record_key` (the table id), value `value`, headers
 * `headers` (CloudEvents binary mode); topic chosen by `kind` ({@link AnalyticsTopicNames}). A
 * reference row (a BetSettled / BetResettled's settlement) has its record built at claim time
 * from `audit_events` and `hand_outcomes` (`analytics-references.ts`), byte-identical to the
 * stored form, so a re-send after a crash is still an exact duplicate.
 */
export class AnalyticsPublisher {
  /** Topic per kind in use. */
  readonly topics: AnalyticsTopicNames;
  readonly schema: string;
  private readonly batchSize: number;
  private readonly retainPublishedMs: number | null;
  private readonly log: ProjectionLogger;
  /** `<schema>.analytics_outbox`, quoted. */
  private readonly outbox: string;
  private readonly publisher: LeaderOutboxPublisher<OutboxRow>;
  /** {@link claimOutboxSql} of the schema. */
  private readonly claimSql: string;

  private lastPrune = 0;
  private totalPublished = 0;

  /** @param options Kafka client, database, schema, topics, batching; see {@link AnalyticsPublisherOptions} */
  constructor(options: AnalyticsPublisherOptions) {
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.topics = { ...DEFAULT_ANALYTICS_TOPICS, ...options.topics };
    this.batchSize = Math.min(Math.max(1, options.batchSize ?? 500), 5000);
    this.retainPublishedMs = options.retainPublishedMs === undefined ? 7 * 24 * 3600 * 1000 : options.retainPublishedMs;
    this.log = options.logger ?? SILENT_LOGGER;
    this.outbox = qualified(this.schema, 'analytics_outbox');
    this.claimSql = claimOutboxSql(this.schema);
    this.publisher = new LeaderOutboxPublisher<OutboxRow>({
      source: {
        claim: (client, limit) => this.claim(client, limit),
        toRecord: (row) => ({ topic: this.topics[row.kind], message: { key: row.record_key, value: row.value, headers: { ...row.headers } } }),
        markPublished: (client, rows) => this.markPublished(client, rows),
        onBatchPublished: (rows) => this.log.debug({ count: rows.length, first: rows[0].global_position, last: rows[rows.length - 1].global_position }, 'analytics batch published'),
        onCrashPoint: (point, rows) => this.log.warn({ crashPoint: point, first: rows[0].global_position, count: rows.length }, 'ANALYTICS_PUBLISHER_CRASH_POINT reached: exiting with 137 (test hook)'),
        onDrained: ({ published }) => {
          this.totalPublished += published;
        },
        afterLoopDrain: (client) => this.pruneIfDue(client),
      },
      databaseUrl: options.databaseUrl ?? DEFAULT_DATABASE_URL,
      applicationName: `ledger-analytics-publisher:${this.schema}`.slice(0, 63),
      kafka: options.kafka,
      lease: { table: qualified(this.schema, 'outbox_leases'), name: ANALYTICS_LEASE_NAME, ttlMs: options.leaseTtlMs },
      lockFields: { schema: this.schema },
      messages: {
        leader: 'analytics publisher is the leader',
        standby: 'another analytics publisher holds the outbox: standing by',
        lostLease: 'analytics publisher lost the lease (expired or taken over): standing by',
        loopFailed: 'analytics publisher failed; reconnecting',
        connectionFailed: 'analytics publisher database connection failed',
      },
      logger: this.log,
      batchSize: this.batchSize,
      pollIntervalMs: options.pollIntervalMs,
      standbyRetryMs: options.standbyRetryMs,
      maxRequestBytes: options.maxRequestBytes,
      crashPoint: options.crashPoint ?? null,
      exit: options.exit,
    });
  }

  /** Whether this instance holds the lease and publishes. */
  get isLeader(): boolean {
    return this.publisher.isLeader;
  }

  /** Rows this instance has published since it was constructed. */
  get published(): number {
    return this.totalPublished;
  }

  /**
   * Publishes everything pending now, batch after batch, then returns (tests, tools). Holds the
   * lease for its duration and releases it afterwards unless {@link start} runs.
   * @throws the PostgreSQL or Kafka error that stopped it (the batch in hand is rolled back)
   */
  async runOnce(): Promise<AnalyticsPublishResult> {
    const { leader, published, batches } = await this.publisher.runOnce();
    return { leader, published, batches };
  }

  /**
   * Starts the loop in the background: connect, try to lead, publish, wait for {@link wake} or
   * `pollIntervalMs`, repeat. Errors (database or broker down, a topic missing) are logged and
   * retried with back-off up to 5 s. Idempotent.
   */
  async start(): Promise<void> {
    if (!this.publisher.start()) return;
    this.log.info({ schema: this.schema, topics: this.topics, batchSize: this.batchSize }, 'analytics publisher started');
  }

  /** Ends the loop after the batch in hand (it commits or rolls back whole), releases the lease, disconnects. Idempotent. */
  async stop(): Promise<void> {
    await this.publisher.stop();
    this.log.info({ published: this.totalPublished }, 'analytics publisher stopped');
  }

  /** Asks the loop to look at the outbox now (called after each committed projection transaction). */
  wake(): void {
    this.publisher.wake();
  }

  /**
   * Reads up to `limit` unpublished rows in `(global_position, ordinal)` order (no lock: the lease
   * is the exclusion) and gives each its record: the stored one, or the settlement built from its
   * reference (`analytics-references.ts`), in this process, outside the projector's transaction.
   * @throws Error when a reference cannot be built (the batch is abandoned and retried)
   */
  private async claim(client: Client, limit: number): Promise<OutboxRow[]> {
    const { rows } = await client.query<ClaimedOutboxRow>(this.claimSql, [limit]);
    return rows.map(resolveOutboxRow);
  }

  /** Marks the claimed rows published, inside the fenced mark transaction (Kafka acknowledged them). */
  private async markPublished(client: Client, rows: readonly OutboxRow[]): Promise<void> {
    await client.query(
      `UPDATE ${this.outbox} o SET published_at = now() FROM unnest($1::bigint[], $2::smallint[]) AS k(global_position, ordinal)
       WHERE o.global_position = k.global_position AND o.ordinal = k.ordinal`,
      [rows.map((r) => r.global_position), rows.map((r) => r.ordinal)],
    );
  }

  /** Deletes published rows older than `retainPublishedMs`, at most once per {@link PRUNE_EVERY_MS} (loop only, leader only). */
  private async pruneIfDue(client: Client): Promise<void> {
    if (this.retainPublishedMs === null || Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    const res = await client.query(`DELETE FROM ${this.outbox} WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1::double precision / 1000)`, [this.retainPublishedMs]);
    if (res.rowCount) this.log.info({ deleted: res.rowCount }, 'analytics outbox: old published rows deleted');
  }
}
