import { Client } from 'pg';
import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { ANALYTICS_ROADS_TOPIC, ANALYTICS_ROUND_OUTCOMES_TOPIC, ANALYTICS_SETTLEMENTS_TOPIC } from '../../../infra/src/kafka/topics';
import { DEFAULT_DATABASE_URL } from '../data-source';
import { ProjectionLogger, SILENT_LOGGER } from '../logger';
import { assertSchemaName, DEFAULT_READ_SCHEMA, qualified } from '../schema-name';
import type { AnalyticsRecordKind } from './analytics-records';

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
export type AnalyticsCrashPoint = 'before-send' | 'after-send';

/** Options of {@link AnalyticsPublisher}. */
export interface AnalyticsPublisherOptions {
  /** A kafkajs client (the projector's). */
  readonly kafka: Kafka;
  /** PostgreSQL URL; the publisher keeps ONE dedicated session (it holds the advisory lock). @default postgres://ledger:ledger@127.0.0.1:5432/ledger */
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
  /** False when another publisher holds the lock (nothing was done). */
  readonly leader: boolean;
  /** Rows sent and marked published. */
  readonly published: number;
  readonly batches: number;
}

interface OutboxRow {
  global_position: string;
  ordinal: number;
  kind: AnalyticsRecordKind;
  record_key: string;
  headers: Record<string, string>;
  value: string;
}

/** Advisory-lock key pair of the publisher of a schema's outbox. */
const LOCK_SQL = (fn: string) => `SELECT ${fn}(hashtext('ledger-analytics-publisher'), hashtext($1)) AS ok`;

const PRUNE_EVERY_MS = 60_000;

/**
 * Publishes `<schema>.analytics_outbox` to the analytics topics (issue #4 item 4; the same pattern
 * as the write side's outbox relay, guarantee 4).
 *
 * Loop, leader only: BEGIN; claim up to `batchSize` unpublished rows in `(global_position,
 * ordinal)` order (`FOR UPDATE`); send them in that order (idempotent producer, acks = all, one
 * request in flight: per-partition order holds and producer retries add no duplicates); mark them
 * published; COMMIT. A crash before COMMIT leaves the rows unpublished and the next leader sends
 * them again: a duplicate is byte-identical (same key, value, headers, `ce_id`), never a loss.
 * Consumers de-duplicate by `ce_id`.
 *
 * One publisher per schema at a time: the leader holds a session-level advisory lock on its own
 * connection; others stand by and retry every `standbyRetryMs`. If the leader's connection dies,
 * PostgreSQL releases the lock and a standby takes over. Runs inside the projector process
 * (`apps/projector/src/main.ts`), which calls {@link wake} after each committed projection
 * transaction; polling is the fallback.
 *
 * Kafka record = the stored row: key `record_key` (the table id), value `value`, headers
 * `headers` (CloudEvents binary mode); topic chosen by `kind` ({@link AnalyticsTopicNames}).
 */
export class AnalyticsPublisher {
  /** Topic per kind in use. */
  readonly topics: AnalyticsTopicNames;
  readonly schema: string;
  private readonly kafka: Kafka;
  private readonly databaseUrl: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly standbyRetryMs: number;
  private readonly maxRequestBytes: number;
  private readonly retainPublishedMs: number | null;
  private readonly log: ProjectionLogger;
  private readonly crashPoint: AnalyticsCrashPoint | null;
  private readonly exit: (code: number) => void;

  private client: Client | null = null;
  private producer: Producer | null = null;
  private leader = false;
  private running = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeSleep: (() => void) | null = null;
  private pendingWake = false;
  private busy: Promise<unknown> = Promise.resolve();
  private lastPrune = 0;
  private totalPublished = 0;

  /** @param options Kafka client, database, schema, topics, batching; see {@link AnalyticsPublisherOptions} */
  constructor(options: AnalyticsPublisherOptions) {
    this.kafka = options.kafka;
    this.databaseUrl = options.databaseUrl ?? DEFAULT_DATABASE_URL;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.topics = { ...DEFAULT_ANALYTICS_TOPICS, ...options.topics };
    this.batchSize = Math.min(Math.max(1, options.batchSize ?? 500), 5000);
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.standbyRetryMs = options.standbyRetryMs ?? 1000;
    this.maxRequestBytes = options.maxRequestBytes ?? 512 * 1024;
    this.retainPublishedMs = options.retainPublishedMs === undefined ? 7 * 24 * 3600 * 1000 : options.retainPublishedMs;
    this.log = options.logger ?? SILENT_LOGGER;
    this.crashPoint = options.crashPoint ?? null;
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  /** Whether this instance holds the lock and publishes. */
  get isLeader(): boolean {
    return this.leader;
  }

  /** Rows this instance has published since it was constructed. */
  get published(): number {
    return this.totalPublished;
  }

  /**
   * Publishes everything pending now, batch after batch, then returns (tests, tools). Holds the
   * lock for its duration and releases it afterwards unless {@link start} runs.
   * @throws the PostgreSQL or Kafka error that stopped it (the batch in hand is rolled back)
   */
  async runOnce(): Promise<AnalyticsPublishResult> {
    const work = this.busy.then(async () => {
      await this.connect();
      if (!(await this.acquire())) return { leader: false, published: 0, batches: 0 };
      try {
        return { leader: true, ...(await this.drain()) };
      } finally {
        if (!this.running) await this.release();
      }
    });
    this.busy = work.catch(() => undefined);
    return work;
  }

  /**
   * Starts the loop in the background: connect, try to lead, publish, wait for {@link wake} or
   * `pollIntervalMs`, repeat. Errors (database or broker down, a topic missing) are logged and
   * retried with back-off up to 5 s. Idempotent.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loop = this.run();
    this.log.info({ schema: this.schema, topics: this.topics, batchSize: this.batchSize }, 'analytics publisher started');
  }

  /** Ends the loop after the batch in hand (it commits or rolls back whole), releases the lock, disconnects. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    if (this.loop) await this.loop;
    this.loop = null;
    this.running = false;
    await this.busy;
    await this.release();
    await this.disconnect();
    this.log.info({ published: this.totalPublished }, 'analytics publisher stopped');
  }

  /** Asks the loop to look at the outbox now (called after each committed projection transaction). */
  wake(): void {
    this.pendingWake = true;
    this.wakeSleep?.();
  }

  // -------------------------------------------------------------------------------------------- loop

  private async run(): Promise<void> {
    let backoffMs = 100;
    let wasStandby = false;
    while (!this.stopping) {
      try {
        await this.connect();
        if (!(await this.acquire())) {
          if (!wasStandby) this.log.info({ schema: this.schema }, 'another analytics publisher holds the outbox: standing by');
          wasStandby = true;
          await this.sleep(this.standbyRetryMs, false);
          continue;
        }
        wasStandby = false;
        const work = this.busy.then(() => this.drain());
        this.busy = work.catch(() => undefined);
        await work;
        await this.pruneIfDue();
        backoffMs = 100;
        await this.sleep(this.pollIntervalMs, true);
      } catch (err) {
        this.log.error({ err: String(err), retryInMs: backoffMs }, 'analytics publisher failed; reconnecting');
        await this.disconnect();
        await this.sleep(backoffMs, false);
        backoffMs = Math.min(backoffMs * 2, 5000);
      }
    }
  }

  private async drain(): Promise<{ published: number; batches: number }> {
    let published = 0;
    let batches = 0;
    for (;;) {
      const n = await this.publishBatch();
      if (n > 0) {
        published += n;
        batches++;
      }
      if (n < this.batchSize || this.stopping) break;
    }
    this.totalPublished += published;
    return { published, batches };
  }

  /** One transaction: claim, send, mark, commit. @returns rows published */
  private async publishBatch(): Promise<number> {
    const client = this.client!;
    const outbox = qualified(this.schema, 'analytics_outbox');
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<OutboxRow>(
        // ORDER BY the bigint column (o.…), not the text alias of the same name: '100' < '98'
        `SELECT o.global_position::text AS global_position, o.ordinal, o.kind, o.record_key, o.headers, o.value FROM ${outbox} o
         WHERE o.published_at IS NULL ORDER BY o.global_position, o.ordinal LIMIT $1 FOR UPDATE`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      this.crashIf('before-send', rows);
      await this.send(rows);
      this.crashIf('after-send', rows);
      await client.query(
        `UPDATE ${outbox} o SET published_at = now() FROM unnest($1::bigint[], $2::smallint[]) AS k(global_position, ordinal)
         WHERE o.global_position = k.global_position AND o.ordinal = k.ordinal`,
        [rows.map((r) => r.global_position), rows.map((r) => r.ordinal)],
      );
      await client.query('COMMIT');
      this.log.debug({ count: rows.length, first: rows[0].global_position, last: rows[rows.length - 1].global_position }, 'analytics batch published');
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** Sends rows in order: consecutive rows of one topic per request, each ≤ maxRequestBytes, one request at a time. */
  private async send(rows: readonly OutboxRow[]): Promise<void> {
    const producer = await this.getProducer();
    let topic = this.topics[rows[0].kind];
    let chunk: Message[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      try {
        await producer.send({ topic, acks: -1, messages: chunk });
      } catch (err) {
        // an idempotent producer that failed mid-sequence is not reused: a fresh one gets a fresh producer id
        await this.dropProducer();
        throw err;
      }
      chunk = [];
      bytes = 0;
    };
    for (const row of rows) {
      const rowTopic = this.topics[row.kind];
      if (rowTopic !== topic || (chunk.length > 0 && bytes + row.value.length > this.maxRequestBytes)) {
        await flush();
        topic = rowTopic;
      }
      chunk.push({ key: row.record_key, value: row.value, headers: { ...row.headers } });
      bytes += row.value.length;
    }
    await flush();
  }

  private crashIf(point: AnalyticsCrashPoint, rows: readonly OutboxRow[]): void {
    if (this.crashPoint !== point) return;
    this.log.warn({ crashPoint: point, first: rows[0].global_position, count: rows.length }, 'ANALYTICS_PUBLISHER_CRASH_POINT reached: exiting with 137 (test hook)');
    this.exit(137);
  }

  private async pruneIfDue(): Promise<void> {
    if (this.retainPublishedMs === null || Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    const res = await this.client!.query(
      `DELETE FROM ${qualified(this.schema, 'analytics_outbox')} WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [this.retainPublishedMs],
    );
    if (res.rowCount) this.log.info({ deleted: res.rowCount }, 'analytics outbox: old published rows deleted');
  }

  // ------------------------------------------------------------------------------------ connections

  private async connect(): Promise<void> {
    if (this.client) return;
    const client = new Client({ connectionString: this.databaseUrl, application_name: `ledger-analytics-publisher:${this.schema}`.slice(0, 63) });
    client.on('error', (err) => {
      // the session is gone, and with it the advisory lock: the loop reconnects and competes again
      this.log.error({ err: String(err) }, 'analytics publisher database connection failed');
      if (this.client === client) {
        this.client = null;
        this.leader = false;
      }
      this.wake();
    });
    await client.connect();
    this.client = client;
  }

  private async acquire(): Promise<boolean> {
    if (this.leader) return true;
    const { rows } = await this.client!.query(LOCK_SQL('pg_try_advisory_lock'), [this.schema]);
    this.leader = rows[0].ok === true;
    if (this.leader) this.log.info({ schema: this.schema }, 'analytics publisher is the leader');
    return this.leader;
  }

  private async release(): Promise<void> {
    const was = this.leader;
    this.leader = false;
    if (was && this.client) await this.client.query(LOCK_SQL('pg_advisory_unlock'), [this.schema]).catch(() => undefined);
  }

  private async getProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // Java-compatible murmur2: a table id lands on the same partition for every client
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    this.producer = producer;
    return producer;
  }

  private async dropProducer(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    await p?.disconnect().catch(() => undefined);
  }

  private async disconnect(): Promise<void> {
    this.leader = false;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
    await this.dropProducer();
  }

  /** Waits `ms`; {@link wake} ends the wait early when `wakeable`; stop() always does. */
  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (wakeable && this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakeSleep = null;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wakeSleep = () => {
        if (wakeable || this.stopping) finish();
      };
    }).then(() => {
      if (wakeable) this.pendingWake = false;
    });
  }
}
