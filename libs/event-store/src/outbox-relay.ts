import { Client, type Notification } from 'pg';
import { Kafka, logLevel, Partitioners, type LogEntry, type Message, type Producer } from 'kafkajs';
import { canonicalJson } from './hash';
import { defaultLogger, errorFields, type LedgerLogger } from './logger';
import { DEFAULT_DATABASE_URL, OUTBOX_CHANNEL } from './constants';
import { EVENT_COLUMNS, rowToEnvelope, type EventRow } from './rows';

/**
 * Advisory lock (session level) held by the relay instance that publishes; the others are standby.
 * Arbitrary constant, shared by every relay of one database.
 */
export const RELAY_LOCK_KEY = '7305176422193148002';

/** Most outbox rows one batch claims. */
export const MAX_RELAY_BATCH = 500;

/**
 * Where a test makes the relay process die (`process.exit(137)`, like a SIGKILL):
 *  - `before-send`: rows claimed, nothing sent to Kafka;
 *  - `after-send`: Kafka acknowledged the batch, the rows are not yet marked published.
 */
export type RelayCrashPoint = 'before-send' | 'after-send';

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  /** PostgreSQL URL. @default env `DATABASE_URL`, else `postgres://ledger:ledger@127.0.0.1:5432/ledger` */
  readonly databaseUrl?: string;
  /** Kafka bootstrap brokers, `host:port`. @default env `KAFKA_BROKERS` (comma-separated), else `['127.0.0.1:9092']` */
  readonly brokers?: readonly string[];
  /** Kafka client id. @default 'ledger-relay' */
  readonly clientId?: string;
  /** A kafkajs client to use instead of building one from `brokers` (tests). */
  readonly kafka?: Kafka;
  /** Rows per batch, 1–{@link MAX_RELAY_BATCH}. @default 500 */
  readonly batchSize?: number;
  /** Polling fallback when no NOTIFY arrives, in milliseconds. @default 200 */
  readonly pollIntervalMs?: number;
  /** How often a standby instance tries to take over, in milliseconds. @default 1000 */
  readonly standbyRetryMs?: number;
  /** Upper bound of one Kafka produce request, in bytes of message values (keeps under the broker's 1 MiB). @default 524288 */
  readonly maxRequestBytes?: number;
  /** Advisory lock key. @default {@link RELAY_LOCK_KEY} */
  readonly lockKey?: string;
  /** Structured logger. @default pino named `ledger-relay` */
  readonly logger?: LedgerLogger;
  /** Test-only crash hook. @default env `RELAY_CRASH_POINT` when it names a {@link RelayCrashPoint}, else none */
  readonly crashPoint?: RelayCrashPoint | null;
  /** What the crash hook calls. @default `process.exit` */
  readonly exit?: (code: number) => void;
}

/** What {@link OutboxRelay.runOnce} did. */
export interface RelayRunResult {
  /** Whether this instance held the advisory lock (false: another relay is publishing; nothing done). */
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
}

/**
 * The transactional outbox's relay (architecture.md guarantees 4 and 5): publishes every committed
 * event to Kafka, in global-position order, at least once.
 *
 * Loop (leader only): BEGIN; claim ≤ 500 unpublished outbox rows in position order (`FOR UPDATE`);
 * send them to Kafka in that order and wait for the acks (idempotent producer, acks = all, one request
 * in flight, so per-partition order holds and producer retries add no duplicates); mark them
 * published; COMMIT. A crash anywhere before COMMIT leaves the rows unpublished and the next leader
 * sends them again: duplicates are possible, always byte-identical (same event id, same value, same
 * headers), never a loss. Consumers de-duplicate by event id (CloudEvents `ce_id`).
 *
 * Only one instance publishes: the leader holds a session-level PostgreSQL advisory lock on its own
 * connection; the others stay standby and retry every `standbyRetryMs`. If the leader's connection
 * dies, PostgreSQL releases the lock and a standby takes over.
 *
 * Woken by `LISTEN outbox` (each append NOTIFYs on commit), with polling as the fallback.
 *
 * Kafka record: key = outbox key (the table id), value = the stored envelope as canonical JSON (not
 * upcast, so downstream can verify the hash), headers = CloudEvents 1.0 binary mode (`ce_specversion`,
 * `ce_id`, `ce_type` = `baccarat.ledger.<Type>.v<schemaVersion>`, `ce_source` = `/tables/<tableId>`,
 * `ce_time` = occurredAt, `ce_subject` = streamId, `content-type`) plus `schema_version` and
 * `global_position`.
 */
export class OutboxRelay {
  private readonly databaseUrl: string;
  private readonly kafka: Kafka;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly standbyRetryMs: number;
  private readonly maxRequestBytes: number;
  private readonly lockKey: string;
  private readonly log: LedgerLogger;
  private readonly crashPoint: RelayCrashPoint | null;
  private readonly exit: (code: number) => void;

  private client: Client | null = null;
  private producer: Producer | null = null;
  private leader = false;
  private running = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pendingWake = false;
  private busy: Promise<unknown> = Promise.resolve();

  /** @param options connection, batching, timing, logging; every field has a default */
  constructor(options: OutboxRelayOptions = {}) {
    this.databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
    this.log = options.logger ?? defaultLogger('ledger-relay');
    const brokers = options.brokers ?? parseBrokers(process.env.KAFKA_BROKERS);
    this.kafka =
      options.kafka ??
      new Kafka({
        clientId: options.clientId ?? 'ledger-relay',
        brokers: [...brokers],
        logLevel: logLevel.WARN,
        logCreator: kafkaLogCreator(this.log),
      });
    this.batchSize = Math.min(Math.max(1, options.batchSize ?? MAX_RELAY_BATCH), MAX_RELAY_BATCH);
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.standbyRetryMs = options.standbyRetryMs ?? 1000;
    this.maxRequestBytes = options.maxRequestBytes ?? 512 * 1024;
    this.lockKey = options.lockKey ?? RELAY_LOCK_KEY;
    this.crashPoint = options.crashPoint === undefined ? parseCrashPoint(process.env.RELAY_CRASH_POINT) : options.crashPoint;
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  /** Whether this instance currently holds the advisory lock and publishes. */
  get isLeader(): boolean {
    return this.leader;
  }

  /**
   * Publishes everything unpublished now, batch after batch, then returns (tests, tools). Takes the
   * advisory lock for its duration and, unless {@link start} is running, releases it afterwards.
   * @returns `leader: false` and nothing published when another relay holds the lock
   * @throws the PostgreSQL or Kafka error that stopped it (the current batch is rolled back: no loss)
   */
  async runOnce(): Promise<RelayRunResult> {
    const work = this.busy.then(async () => {
      await this.connect();
      if (!(await this.acquire())) return { leader: false, published: 0, batches: 0, lastPosition: null };
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
   * Starts the loop in the background and returns once it runs: connect, LISTEN, try to lead, publish,
   * wait for a NOTIFY or `pollIntervalMs`, repeat. Errors (database or Kafka down) are logged and
   * retried with back-off up to 5 s; the loop never dies of them. Calling it twice is a no-op.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loop = this.run();
    this.log.info({ batchSize: this.batchSize, pollIntervalMs: this.pollIntervalMs }, 'relay started');
  }

  /**
   * Stops the loop after the batch in progress (that batch commits or rolls back as a whole), releases
   * the advisory lock, disconnects from PostgreSQL and Kafka. Safe to call twice or without start().
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp();
    if (this.loop) await this.loop;
    this.loop = null;
    this.running = false;
    await this.busy;
    await this.release();
    await this.disconnect();
    this.log.info({}, 'relay stopped');
  }

  // -------------------------------------------------------------------------------------------- loop

  private async run(): Promise<void> {
    let backoffMs = 100;
    let wasStandby = false;
    while (!this.stopping) {
      try {
        await this.connect();
        if (!(await this.acquire())) {
          if (!wasStandby) this.log.info({ lockKey: this.lockKey }, 'another relay publishes: standing by');
          wasStandby = true;
          await this.sleep(this.standbyRetryMs, false);
          continue;
        }
        if (wasStandby) this.log.info({ lockKey: this.lockKey }, 'took over publishing');
        wasStandby = false;
        const work = this.busy.then(() => this.drain());
        this.busy = work.catch(() => undefined);
        await work;
        backoffMs = 100;
        await this.sleep(this.pollIntervalMs, true);
      } catch (err) {
        this.log.error({ ...errorFields(err), retryInMs: backoffMs }, 'relay loop failed; reconnecting');
        await this.disconnect();
        await this.sleep(backoffMs, false);
        backoffMs = Math.min(backoffMs * 2, 5000);
      }
    }
  }

  /** Publishes batches until one comes back short. */
  private async drain(): Promise<Omit<RelayRunResult, 'leader'>> {
    let published = 0;
    let batches = 0;
    let lastPosition: string | null = null;
    for (;;) {
      const batch = await this.publishBatch();
      if (batch.count > 0) {
        published += batch.count;
        batches++;
        lastPosition = batch.lastPosition;
      }
      if (batch.count < this.batchSize || this.stopping) break;
    }
    return { published, batches, lastPosition };
  }

  /** One transaction: claim, send, mark, commit. */
  private async publishBatch(): Promise<{ count: number; lastPosition: string | null }> {
    const client = this.client!;
    const started = Date.now();
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<OutboxRow>(
        `SELECT o.topic, o.key, ${EVENT_COLUMNS}
           FROM outbox o JOIN events e ON e.global_position = o.global_position
          WHERE o.published_at IS NULL
          ORDER BY o.global_position
          LIMIT $1
          FOR UPDATE OF o`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return { count: 0, lastPosition: null };
      }
      this.crashIf('before-send', rows);
      await this.send(rows);
      this.crashIf('after-send', rows);
      await client.query(`UPDATE outbox SET published_at = now() WHERE global_position = ANY($1::bigint[])`, [
        rows.map((r) => r.global_position),
      ]);
      await client.query('COMMIT');
      const lastPosition = rows[rows.length - 1].global_position;
      this.log.debug(
        { count: rows.length, firstPosition: rows[0].global_position, lastPosition, ms: Date.now() - started },
        'outbox batch published',
      );
      return { count: rows.length, lastPosition };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** Sends rows in order: consecutive rows of one topic per request, requests ≤ maxRequestBytes, one after the other. */
  private async send(rows: readonly OutboxRow[]): Promise<void> {
    const producer = await this.getProducer();
    let topic = rows[0].topic;
    let chunk: Message[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      try {
        await producer.send({ topic, acks: -1, messages: chunk });
      } catch (err) {
        // An idempotent producer that failed mid-sequence is not reused: a fresh one gets a fresh producer id.
        await this.dropProducer();
        throw err;
      }
      chunk = [];
      bytes = 0;
    };
    for (const row of rows) {
      const message = toKafkaMessage(row);
      const size = (message.value as string).length;
      if (row.topic !== topic || (chunk.length > 0 && bytes + size > this.maxRequestBytes)) {
        await flush();
        topic = row.topic;
      }
      chunk.push(message);
      bytes += size;
    }
    await flush();
  }

  private crashIf(point: RelayCrashPoint, rows: readonly OutboxRow[]): void {
    if (this.crashPoint !== point) return;
    this.log.warn(
      { crashPoint: point, firstPosition: rows[0].global_position, count: rows.length },
      'RELAY_CRASH_POINT reached: exiting with 137 (test hook)',
    );
    this.exit(137);
  }

  // ------------------------------------------------------------------------------------ connections

  private async connect(): Promise<void> {
    if (this.client) return;
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'ledger-relay' });
    client.on('error', (err) => {
      // The connection is gone, and with it the advisory lock: the loop reconnects and competes again.
      this.log.error(errorFields(err), 'relay database connection failed');
      if (this.client === client) {
        this.client = null;
        this.leader = false;
      }
      this.wakeUp();
    });
    client.on('notification', (n: Notification) => {
      if (n.channel === OUTBOX_CHANNEL) this.wakeUp();
    });
    await client.connect();
    await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
    this.client = client;
  }

  /** Tries the advisory lock once; true when this instance holds it. */
  private async acquire(): Promise<boolean> {
    if (this.leader) return true;
    const { rows } = await this.client!.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [
      this.lockKey,
    ]);
    this.leader = rows[0].ok;
    if (this.leader) this.log.info({ lockKey: this.lockKey }, 'relay is the leader');
    return this.leader;
  }

  private async release(): Promise<void> {
    if (!this.leader || !this.client) {
      this.leader = false;
      return;
    }
    this.leader = false;
    await this.client.query('SELECT pg_advisory_unlock($1::bigint)', [this.lockKey]).catch(() => undefined);
  }

  private async getProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // Java-client-compatible murmur2 partitioning: a table id lands on the same partition for every client.
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

  // ------------------------------------------------------------------------------------------ waiting

  /** Waits `ms`; a NOTIFY ends the wait early when `wakeable`; stop() always does. */
  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (wakeable && this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wake = () => {
        if (wakeable || this.stopping) finish();
      };
    }).then(() => {
      if (wakeable) this.pendingWake = false;
    });
  }

  private wakeUp(): void {
    this.pendingWake = true;
    this.wake?.();
  }
}

/** The Kafka record of an outbox row (see {@link OutboxRelay} for the layout). */
export function toKafkaMessage(row: EventRow & { key: string }): Message {
  const envelope = rowToEnvelope(row);
  return {
    key: row.key,
    value: canonicalJson(envelope),
    headers: {
      ce_specversion: '1.0',
      ce_id: envelope.eventId,
      ce_type: `baccarat.ledger.${envelope.type}.v${envelope.schemaVersion}`,
      ce_source: `/tables/${envelope.tableId}`,
      ce_time: envelope.occurredAt,
      ce_subject: envelope.streamId,
      'content-type': 'application/json',
      schema_version: String(envelope.schemaVersion),
      global_position: envelope.globalPosition,
    },
  };
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

/** kafkajs log lines into the structured logger (kafkajs otherwise writes to the console). */
function kafkaLogCreator(log: LedgerLogger) {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...fields } = entry;
      const f = { kafka: fields };
      if (level <= logLevel.ERROR) log.error(f, message);
      else if (level === logLevel.WARN) log.warn(f, message);
      else if (level === logLevel.INFO) log.info(f, message);
      else log.debug(f, message);
    };
}
