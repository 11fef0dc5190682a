/**
 * The machinery every transactional-outbox publisher of the ledger shares (the write side's
 * `OutboxRelay`, the read side's `AnalyticsPublisher`): one dedicated PostgreSQL session, leadership
 * by a lease row in PostgreSQL (`./lease.ts`), the start/stop/run loop with back-off, wake-up by
 * LISTEN/NOTIFY or by {@link LeaderOutboxPublisher.wake} with polling as the fallback, claim → send →
 * fenced mark, the idempotent Kafka producer, and the crash points the tests use
 * (docs/guarantees.md §4, no dual-write loss).
 *
 * What stays with each publisher (given as {@link OutboxSource} hooks): its SQL (which table, which
 * order, how rows are claimed and marked), its Kafka records (topic, key, value, headers), its log
 * lines and its result shape.
 */
import { Client, type Notification } from 'pg';
import type { KafkaClient, KafkaProducer, OutgoingMessage } from '@ledger/kafka';
import { currentDatabaseSessionSettings, pgClientConfig } from '../database/session-settings';
import { Lease, LeaseLostError } from './lease';
import {
  DEFAULT_OUTBOX_MAX_REQUEST_BYTES,
  DEFAULT_OUTBOX_POLL_INTERVAL_MS,
  DEFAULT_OUTBOX_STANDBY_RETRY_MS,
  type LeaderOutboxPublisherOptions,
  type OutboxCrashPoint,
  type OutboxDrainResult,
  type OutboxPublisherLogger,
  type OutboxPublisherMessages,
  type OutboxRecord,
  type OutboxRunResult,
  type OutboxSource,
} from './outbox-publisher-types';

export * from './outbox-publisher-types';
export * from './lease';

/** First back-off of the loop after a failure, in milliseconds; doubled per failure in a row. */
const FIRST_BACKOFF_MS = 100;
/** Longest back-off of the loop, in milliseconds. */
const MAX_BACKOFF_MS = 5000;
/** Exit code of a crash point: what a shell reports for SIGKILL (128 + 9). */
const CRASH_EXIT_CODE = 137;

/**
 * Publishes one transactional outbox to Kafka, at least once, in claim order, one instance at a time.
 *
 * Batch (leader only): {@link OutboxSource.claim} (no transaction held open: a frozen leader holds
 * no row lock); renew the lease (a deposed leader stops here, before sending); send the records in
 * row order, waiting for the acks of each request before the next (consecutive rows of one topic per
 * request, each request ≤ `maxRequestBytes`); then BEGIN; {@link Lease.fence} (the lease row still
 * has this instance's holder and generation: nobody took it over);
 * {@link OutboxSource.markPublished}; COMMIT. The producer is the Kafka port's idempotent one
 * (acks = all, one request in flight, no topic auto-creation, Java-compatible murmur2 partitioning;
 * docs/architecture.md §6), so per-partition order holds and producer retries add no duplicates;
 * after a failed send it is dropped and the next batch gets a fresh one (fresh producer id). A crash
 * or a lost lease before COMMIT leaves the rows unpublished and the next leader sends them again:
 * duplicates are byte-identical, never a loss.
 *
 * Leadership: a lease row ({@link LeaderOutboxPublisherOptions.lease}, `./lease.ts`) renewed while
 * the leader makes progress; others stand by and retry every `standbyRetryMs`. A leader that stops
 * renewing (frozen, partitioned, stuck) loses it `ttlMs` after its last renewal and a standby takes
 * it (generation + 1); the deposed leader cannot mark rows any more (the fence) and gives up before
 * its next send. Only a leader frozen between its pre-send renewal and the broker's ack can still
 * add records after losing the lease: byte-identical duplicates of rows the new leader sends too.
 * The session runs with `idle_in_transaction_session_timeout` and `lock_timeout` = `ttlMs`, so a
 * leader frozen inside its (short) mark transaction cannot keep the lease row locked either.
 *
 * Loop ({@link start}): connect (and LISTEN), try to lead, drain, wait for a NOTIFY / {@link wake}
 * or `pollIntervalMs`, repeat. Errors are logged and retried with back-off 100 ms doubling to 5 s:
 * the loop never dies of them. {@link runOnce} and the loop's drains never overlap.
 *
 * Used by composition: the owning class keeps its public API and maps {@link OutboxRunResult} to
 * its own result shape.
 * @typeParam Row one claimed outbox row
 */
export class LeaderOutboxPublisher<Row> {
  /** Most rows per batch, as given. */
  readonly batchSize: number;
  /** Polling fallback in use, in milliseconds. */
  readonly pollIntervalMs: number;
  /** Standby retry in use, in milliseconds. */
  readonly standbyRetryMs: number;
  /** Produce-request bound in use (see {@link DEFAULT_OUTBOX_MAX_REQUEST_BYTES} for the unit). */
  readonly maxRequestBytes: number;

  private readonly source: OutboxSource<Row>;
  private readonly databaseUrl: string;
  private readonly applicationName: string;
  private readonly kafka: KafkaClient;
  private readonly lease: Lease;
  private readonly lockFields: Record<string, unknown>;
  private readonly messages: OutboxPublisherMessages;
  private readonly log: OutboxPublisherLogger;
  private readonly errorFields: (err: unknown) => Record<string, unknown>;
  private readonly listenChannel: string | null;
  private readonly crashPoint: OutboxCrashPoint | null;
  private readonly exit: (code: number) => void;

  private client: Client | null = null;
  private producer: KafkaProducer | null = null;
  private leader = false;
  private running = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeSleep: (() => void) | null = null;
  private pendingWake = false;
  private busy: Promise<unknown> = Promise.resolve();
  /** `performance.now()` of the last successful renewal: renewal is due every ttlMs / 3 (the expiry itself is the database's). */
  private renewedAt = 0;

  /** @param options hooks, connections, lease, log texts, timing; see {@link LeaderOutboxPublisherOptions} */
  constructor(options: LeaderOutboxPublisherOptions<Row>) {
    this.source = options.source;
    this.databaseUrl = options.databaseUrl;
    this.applicationName = options.applicationName;
    this.kafka = options.kafka;
    this.lease = new Lease({ table: options.lease.table, name: options.lease.name, ttlMs: options.lease.ttlMs, holder: options.lease.holder });
    this.lockFields = options.lockFields ?? {};
    this.messages = options.messages;
    this.log = options.logger;
    this.errorFields = options.errorFields ?? ((err) => ({ err: String(err) }));
    this.listenChannel = options.listenChannel ?? null;
    this.batchSize = options.batchSize;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_OUTBOX_POLL_INTERVAL_MS;
    this.standbyRetryMs = options.standbyRetryMs ?? DEFAULT_OUTBOX_STANDBY_RETRY_MS;
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_OUTBOX_MAX_REQUEST_BYTES;
    this.crashPoint = options.crashPoint ?? null;
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  /** Whether this instance currently holds the lease (as far as it knows) and publishes. */
  get isLeader(): boolean {
    return this.leader;
  }

  /** The lease handle (its name, holder id, TTL and the generation held). */
  get leaseInfo(): Pick<Lease, 'table' | 'name' | 'holder' | 'ttlMs' | 'generation'> {
    return this.lease;
  }

  /**
   * Publishes everything pending now, batch after batch, then returns. Takes the lease for its
   * duration and, unless {@link start} is running, releases it afterwards. Waits for a drain in
   * progress (loop or another runOnce) first.
   * @returns `leader: false` and nothing published when another instance holds the lease
   * @throws the PostgreSQL or Kafka error that stopped it (the batch in hand is rolled back: no loss)
   */
  async runOnce(): Promise<OutboxRunResult<Row>> {
    const work = this.busy.then(async (): Promise<OutboxRunResult<Row>> => {
      await this.connect();
      if (!(await this.acquire())) return { leader: false, published: 0, batches: 0, lastRow: null };
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
   * Starts the loop in the background (see the class doc) and returns at once.
   * @returns true when it started now, false when it was already running (then nothing changes)
   */
  start(): boolean {
    if (this.running) return false;
    this.running = true;
    this.stopping = false;
    this.loop = this.run();
    return true;
  }

  /**
   * Stops the loop after the batch in progress (it commits or rolls back whole), waits for a
   * runOnce in progress, releases the lease, closes the session and the producer. Safe to call twice
   * or without {@link start}; never throws.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    if (this.loop) await this.loop;
    this.loop = null;
    this.running = false;
    await this.busy;
    await this.release();
    await this.disconnect();
  }

  /** Asks the loop to look at the outbox now (ends a polling wait early; remembered if none is in progress). */
  wake(): void {
    this.pendingWake = true;
    this.wakeSleep?.();
  }

  // -------------------------------------------------------------------------------------------- loop

  private async run(): Promise<void> {
    let backoffMs = FIRST_BACKOFF_MS;
    let wasStandby = false;
    while (!this.stopping) {
      try {
        await this.connect();
        if (!(await this.acquire())) {
          if (!wasStandby) this.log.info({ ...this.lockFields }, this.messages.standby);
          wasStandby = true;
          await this.sleep(this.standbyRetryMs, false);
          continue;
        }
        if (wasStandby && this.messages.tookOver) this.log.info({ ...this.lockFields }, this.messages.tookOver);
        wasStandby = false;
        const work = this.busy.then(() => this.drain());
        this.busy = work.catch(() => undefined);
        await work;
        await this.source.afterLoopDrain?.(this.client!);
        backoffMs = FIRST_BACKOFF_MS;
        await this.sleep(this.pollIntervalMs, true);
      } catch (err) {
        if (err instanceof LeaseLostError) {
          // deposed (logged by lostLease): nothing marked; stand by on the same session
          wasStandby = true;
          await this.sleep(this.standbyRetryMs, false);
          continue;
        }
        this.log.error({ ...this.errorFields(err), retryInMs: backoffMs }, this.messages.loopFailed);
        await this.disconnect();
        await this.sleep(backoffMs, false);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Publishes batches until one comes back short (or stop is asked). */
  private async drain(): Promise<OutboxDrainResult<Row>> {
    let published = 0;
    let batches = 0;
    let lastRow: Row | null = null;
    for (;;) {
      const rows = await this.publishBatch();
      if (rows.length > 0) {
        published += rows.length;
        batches++;
        lastRow = rows[rows.length - 1];
      }
      if (rows.length < this.batchSize || this.stopping) break;
    }
    const result = { published, batches, lastRow };
    this.source.onDrained?.(result);
    return result;
  }

  /** Claim, renew, send, then one transaction: fence, mark, commit. @returns the rows published */
  private async publishBatch(): Promise<readonly Row[]> {
    const client = this.client!;
    const started = Date.now();
    const rows = await this.source.claim(client, this.batchSize);
    if (rows.length === 0) return rows;
    await this.renewLease(); // a deposed leader stops before sending
    this.crashIf('before-send', rows);
    await this.send(rows);
    this.crashIf('after-send', rows);
    await client.query('BEGIN');
    try {
      await this.lease.fence(client); // same transaction as the mark: a deposed leader cannot mark
      await this.source.markPublished(client, rows);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (err instanceof LeaseLostError) this.lostLease();
      throw err;
    }
    this.renewedAt = performance.now();
    this.source.onBatchPublished?.(rows, Date.now() - started);
    return rows;
  }

  /** Renews the lease now. @throws LeaseLostError (and steps down) when it is no longer ours */
  private async renewLease(): Promise<void> {
    try {
      await this.lease.renew(this.client!);
      this.renewedAt = performance.now();
    } catch (err) {
      if (err instanceof LeaseLostError) this.lostLease();
      throw err;
    }
  }

  private lostLease(): void {
    const was = this.leader;
    this.leader = false;
    this.lease.forget();
    if (was) this.log.warn({ ...this.lockFields, lease: this.lease.name, holder: this.lease.holder }, this.messages.lostLease ?? 'lost the lease: standing by');
  }

  /**
   * Sends rows in order: consecutive rows of one topic per request, requests ≤ maxRequestBytes, one
   * after the other, each sent only once the previous one is acknowledged (one request in flight:
   * the idempotent producer's sequence numbers and the per-partition order depend on it). While a
   * request is in flight the records of the next one are built (the CPU of {@link OutboxSource.toRecord}
   * overlaps the broker's round trip). The lease is renewed before every request but the first
   * (renewed by the caller just before): a leader deposed mid-batch stops before its next request,
   * so after losing the lease it can have sent at most the one request it was frozen in
   * (byte-identical duplicates).
   */
  private async send(rows: readonly Row[]): Promise<void> {
    const producer = await this.getProducer();
    /** The request in flight: resolves to its error, or null once acknowledged (never rejects). */
    let inFlight: Promise<unknown> | null = null;
    let requests = 0;
    const settle = async () => {
      if (inFlight === null) return;
      const err = await inFlight;
      inFlight = null;
      if (err !== null) {
        // An idempotent producer that failed mid-sequence is not reused: a fresh one gets a fresh producer id.
        await this.dropProducer();
        throw err;
      }
    };
    const dispatch = async (topic: string, chunk: OutgoingMessage[]) => {
      await settle();
      if (requests++ > 0) await this.renewLease();
      inFlight = producer.send(topic, chunk).then(
        () => null,
        (err: unknown) => err ?? new Error('produce request failed'),
      );
      // let the client encode and write the request before this thread builds the next one
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
    let topic: string | null = null;
    let chunk: OutgoingMessage[] = [];
    let bytes = 0;
    for (const row of rows) {
      const built = this.source.toRecord(row);
      for (const record of Array.isArray(built) ? (built as readonly OutboxRecord[]) : [built as OutboxRecord]) {
        const size = record.message.value?.length ?? 0;
        if (chunk.length > 0 && (record.topic !== topic || bytes + size > this.maxRequestBytes)) {
          await dispatch(topic!, chunk);
          chunk = [];
          bytes = 0;
        }
        topic = record.topic;
        chunk.push(record.message);
        bytes += size;
      }
    }
    if (chunk.length > 0) await dispatch(topic!, chunk);
    await settle();
  }

  private crashIf(point: OutboxCrashPoint, rows: readonly Row[]): void {
    if (this.crashPoint !== point) return;
    this.source.onCrashPoint?.(point, rows);
    this.exit(CRASH_EXIT_CODE);
  }

  // ------------------------------------------------------------------------------------ connections

  private async connect(): Promise<void> {
    if (this.client) return;
    // the process's timeouts and keepalives (docs/architecture.md §5; no idle_session_timeout: the leader
    // idles between batches); a frozen leader must not keep rows locked past its lease (the mark transaction is short)
    const settings = currentDatabaseSessionSettings();
    const idle = settings.idleInTransactionTimeoutMs;
    const client = new Client({
      ...pgClientConfig(this.databaseUrl, this.applicationName, settings),
      idle_in_transaction_session_timeout: idle > 0 ? Math.min(idle, this.lease.ttlMs) : this.lease.ttlMs,
      lock_timeout: this.lease.ttlMs,
    });
    client.on('error', (err) => {
      // The session is gone: the loop reconnects and competes again (the lease, if held, runs out by itself).
      this.log.error(this.errorFields(err), this.messages.connectionFailed);
      if (this.client === client) {
        this.client = null;
        this.leader = false;
      }
      this.wake();
    });
    const channel = this.listenChannel;
    if (channel !== null) {
      client.on('notification', (n: Notification) => {
        if (n.channel === channel) this.wake();
      });
    }
    await client.connect();
    if (channel !== null) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    this.client = client;
  }

  /**
   * Leader: renews the lease when a third of its TTL has passed since the last renewal (false when
   * it was lost meanwhile). Standby: tries to take it once. @returns true when this instance leads
   */
  private async acquire(): Promise<boolean> {
    if (this.lease.generation !== null) {
      // held (perhaps on a session that has been replaced since: the lease is not tied to a session)
      if (this.leader && performance.now() - this.renewedAt < this.lease.ttlMs / 3) return true;
      try {
        await this.renewLease();
      } catch (err) {
        if (err instanceof LeaseLostError) return false;
        throw err;
      }
      if (!this.leader) {
        this.leader = true;
        this.log.info({ ...this.lockFields, lease: this.lease.name, generation: this.lease.generation, holder: this.lease.holder }, this.messages.leader);
      }
      return true;
    }
    const generation = await this.lease.acquire(this.client!);
    this.leader = generation !== null;
    if (this.leader) {
      this.renewedAt = performance.now();
      this.log.info({ ...this.lockFields, lease: this.lease.name, generation, holder: this.lease.holder, ttlMs: this.lease.ttlMs }, this.messages.leader);
    }
    return this.leader;
  }

  private async release(): Promise<void> {
    this.leader = false;
    await this.lease.release(this.client);
  }

  private async getProducer(): Promise<KafkaProducer> {
    if (this.producer) return this.producer;
    // idempotent, acks = all, one request in flight, murmur2 partitioning, no topic auto-creation
    const producer = this.kafka.producer();
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
    this.leader = false; // the generation is kept: a new session renews it if it is still ours
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
    await this.dropProducer();
  }

  // ------------------------------------------------------------------------------------------ waiting

  /** Waits `ms`; a wake-up ends the wait early when `wakeable`; stop() always does. */
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
