import type { BatchPayload, KafkaClient, KafkaConsumer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { ApplyBatchResult, DEFAULT_PROJECTOR_GROUP, ProjectionApplier } from './applier';
import { ProjectionError } from './errors';
import { DEFAULT_GAMING_DAY, GamingDayConfig } from './gaming-day';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import type { Projection } from './projections';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from './schema-name';

/** Options of a {@link ProjectionRunner}. */
export interface ProjectionRunnerOptions {
  readonly kafka: KafkaClient;
  /** An initialised PostgreSQL DataSource (its pool should allow `partitionsConsumedConcurrently + 2` connections). */
  readonly ds: DataSource;
  /** The ledger events topic. */
  readonly topic: string;
  /** Kafka consumer group. @default 'ledger-projector' */
  readonly groupId?: string;
  /** Owner of the checkpoint rows. @default groupId */
  readonly checkpointGroup?: string;
  /** Target schema. @default 'read' */
  readonly schema?: string;
  /** @default UTC, cut-off 6 */
  readonly gamingDay?: GamingDayConfig;
  readonly projections?: readonly Projection[];
  readonly logger?: ProjectionLogger;
  /** Partitions processed in parallel, each in its own transactions. @default 1 */
  readonly partitionsConsumedConcurrently?: number;
  /** Records per database transaction (a Kafka batch is split into chunks of this size). @default 2000 */
  readonly maxRecordsPerTransaction?: number;
  /** Bytes fetched per partition per request. @default 1048576 */
  readonly maxBytesPerPartition?: number;
  /**
   * Rebuild mode: partition → offset to stop at (exclusive; the high watermark captured at start).
   * Records at or beyond are not applied; {@link ProjectionRunner.done} resolves when every
   * partition has reached its offset.
   */
  readonly stopAt?: ReadonlyMap<number, bigint>;
  /** Hold a shared advisory lock on the schema while running, so an in-place rebuild refuses to start. @default true */
  readonly holdSchemaLock?: boolean;
  /** Called after every committed transaction (progress bars, metrics). */
  readonly onProgress?: (p: RunnerProgress) => void;
  /** FAULT INJECTION for tests only (see ProjectionApplierOptions.faultDelayInTxMs). */
  readonly faultDelayInTxMs?: number;
  /** Write analytics records to the outbox (see ProjectionApplierOptions.analytics); off for rebuilds. @default true */
  readonly analytics?: boolean;
}

/** Counters of a runner, cumulative since start. */
export interface RunnerProgress {
  readonly applied: number;
  readonly skippedBelowCheckpoint: number;
  readonly skippedDuplicates: number;
  readonly transactions: number;
  /** partition → next offset committed to the database by this runner. */
  readonly positions: ReadonlyMap<number, bigint>;
}

/** Advisory-lock key pair of a schema: live projectors hold it shared, an in-place rebuild exclusively. */
export const schemaLockSql = (fn: string) => `SELECT ${fn}(hashtext('ledger-projections'), hashtext($1)) AS ok`;

/**
 * Runs the projections as a Kafka consumer with exactly-once effect (docs/guarantees.md §6).
 *
 * - Kafka consumer group (`ledger-projector` by default) through the Kafka port (`@ledger/kafka`),
 *   `autoCommit: false`, `eachBatch` with manual `resolveOffset`.
 * - Each Kafka batch (one partition) is applied in transactions of up to
 *   `maxRecordsPerTransaction` records by {@link ProjectionApplier}: rows of every projection AND the
 *   checkpoint `read.checkpoints(consumer_group, topic, partition, next_offset)` commit together;
 *   records below the checkpoint and duplicate eventIds are skipped.
 * - The database checkpoint is the truth. On every assignment (GROUP_JOIN) each assigned partition
 *   is sought to its stored checkpoint (offset 0 when none). Batches wait for those seeks, and a
 *   batch that still starts beyond the checkpoint (Kafka's committed offset ran ahead of the
 *   database, e.g. after a rebuild reset it) is dropped and the partition sought back once.
 * - Offsets are committed to Kafka after each database commit, for monitoring only (consumer lag).
 * - {@link stop} (SIGTERM) lets the batch in hand finish its transaction, then leaves the group.
 * - A data error (ProjectionError) stops the consumer without restart: {@link failed} rejects and
 *   the process should exit non-zero; the records stay unapplied until the cause is fixed.
 *   Other errors (database or broker down) are retried by the Kafka client with back-off.
 */
export class ProjectionRunner {
  readonly applier: ProjectionApplier;
  readonly groupId: string;
  readonly topic: string;
  /** Resolves when every partition reached `stopAt` (rebuild mode); never in live mode. */
  readonly done: Promise<void>;
  /** Rejects with the data error that stopped the consumer. */
  readonly failed: Promise<never>;

  private readonly consumer: KafkaConsumer;
  private readonly options: ProjectionRunnerOptions;
  private readonly logger: ProjectionLogger;
  private readonly schema: string;
  private joinSeeks: Promise<void> = Promise.resolve();
  private readonly soughtTo = new Map<number, bigint>();
  private readonly positions = new Map<number, bigint>();
  private readonly counters = { applied: 0, skippedBelowCheckpoint: 0, skippedDuplicates: 0, transactions: 0 };
  private resolveDone!: () => void;
  private rejectFailed!: (e: unknown) => void;
  private lockConnection: { release(): Promise<void>; query(sql: string, params?: unknown[]): Promise<any> } | null = null;
  private started = false;
  private stopped = false;

  constructor(options: ProjectionRunnerOptions) {
    this.options = options;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.groupId = options.groupId ?? DEFAULT_PROJECTOR_GROUP;
    this.topic = options.topic;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.applier = new ProjectionApplier({
      ds: options.ds,
      schema: this.schema,
      checkpointGroup: options.checkpointGroup ?? this.groupId,
      gamingDay: options.gamingDay ?? DEFAULT_GAMING_DAY,
      projections: options.projections,
      logger: this.logger,
      faultDelayInTxMs: options.faultDelayInTxMs,
      analytics: options.analytics ?? true,
    });
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => undefined); // observed by whoever awaits it
    this.consumer = options.kafka.consumer({
      groupId: this.groupId,
      maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
      // a fetch returns as soon as data is there; the wait only bounds how long a stop() waits
      maxWaitTimeInMs: 1000,
      retry: {
        retries: 8,
        // a data error will fail the same way again: stop instead of looping
        restartOnFailure: async (e: Error) => !isDataError(e),
      },
    });
  }

  /** Counters so far. */
  get progress(): RunnerProgress {
    return { ...this.counters, positions: new Map(this.positions) };
  }

  /**
   * Connects, takes the schema's shared lock, subscribes and starts consuming. Resolves once the
   * consumer runs (not when it catches up).
   * @throws ProjectionError `PROJECTION.SCHEMA_IN_USE` when an in-place rebuild holds the schema
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.options.holdSchemaLock ?? true) await this.takeSharedLock();
    const { stopAt } = this.options;
    if (stopAt && [...stopAt.values()].every((o) => o <= 0n)) this.resolveDone();

    this.consumer.onPartitionsAssigned((assignment) => {
      const assigned = assignment[this.topic] ?? [];
      this.logger.info({ groupId: this.groupId, partitions: assigned }, 'partitions assigned');
      this.soughtTo.clear();
      this.applier.forgetStreamVersions();
      this.joinSeeks = this.seekToCheckpoints(assigned).catch((err) => {
        this.logger.error({ err: String(err) }, 'seek to checkpoints failed; batches are checked against the checkpoint anyway');
      });
    });
    this.consumer.onCrash((e) => {
      const err = e.error;
      if (!e.restart) {
        this.logger.error({ err: String(err), code: (rootCause(err) as ProjectionError).code }, 'projector stopped');
        this.rejectFailed(rootCause(err));
      } else this.logger.warn({ err: String(err) }, 'consumer crashed; kafkajs restarts it');
    });

    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      autoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Finishes the transaction in hand, leaves the group, releases the schema lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.consumer.disconnect().catch((err) => this.logger.warn({ err: String(err) }, 'consumer disconnect failed'));
    if (this.lockConnection) {
      await this.lockConnection.release().catch(() => undefined);
      this.lockConnection = null;
    }
  }

  private async takeSharedLock(): Promise<void> {
    const qr = this.options.ds.createQueryRunner();
    await qr.connect();
    const rows = await qr.query(schemaLockSql('pg_try_advisory_lock_shared'), [this.schema]);
    if (!rows[0].ok) {
      await qr.release();
      throw new ProjectionError('PROJECTION.SCHEMA_IN_USE', `schema ${this.schema} is being rebuilt in place; start the projector after the rebuild`, {
        schema: this.schema,
      });
    }
    this.lockConnection = qr;
  }

  private async seekToCheckpoints(partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    const stored = await this.applier.checkpoints(this.topic);
    for (const p of partitions) {
      const offset = stored.get(p) ?? 0n;
      this.consumer.seek({ topic: this.topic, partition: p, offset: offset.toString() });
      this.soughtTo.set(p, offset);
      this.logger.debug({ partition: p, offset: offset.toString() }, 'sought to checkpoint');
    }
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsets, pause }: BatchPayload): Promise<void> {
    await this.joinSeeks;
    if (!isRunning() || isStale()) return;
    const { partition } = batch;
    const stopAt = this.options.stopAt?.get(partition);
    let messages = batch.messages;
    if (stopAt !== undefined) messages = messages.filter((m) => BigInt(m.offset) < stopAt);
    const chunk = this.options.maxRecordsPerTransaction ?? 2000;

    for (let i = 0; i < messages.length; i += chunk) {
      const records = messages.slice(i, i + chunk).map((m) => ({ topic: batch.topic, partition, offset: m.offset, value: m.value, headers: m.headers }));
      const sought = this.soughtTo.get(partition);
      let result: ApplyBatchResult;
      try {
        result = await this.applier.applyBatch(batch.topic, partition, records, { onGap: 'report' });
        if (result.gap && sought === result.checkpointBefore) {
          // already sought to this checkpoint and the data still starts later: the offsets in
          // between hold no data records (transaction markers); accept
          result = await this.applier.applyBatch(batch.topic, partition, records, { onGap: 'apply' });
        }
      } catch (err) {
        if (isDataError(err)) this.logger.error({ err: String(err), code: (err as ProjectionError).code, details: (err as ProjectionError).details }, 'projection failed');
        throw err;
      }
      if (result.gap) {
        this.logger.warn({ partition, checkpoint: result.checkpointBefore.toString(), batchFirst: records[0].offset }, 'batch starts beyond the checkpoint; seeking back');
        this.soughtTo.set(partition, result.checkpointBefore);
        this.consumer.seek({ topic: batch.topic, partition, offset: result.checkpointBefore.toString() });
        return;
      }
      this.counters.transactions++;
      this.counters.applied += result.applied;
      this.counters.skippedBelowCheckpoint += result.skippedBelowCheckpoint;
      this.counters.skippedDuplicates += result.skippedDuplicates;
      if (result.nextOffset > (this.positions.get(partition) ?? -1n)) this.positions.set(partition, result.nextOffset);
      resolveOffset(records[records.length - 1].offset);
      // informational only: Kafka's committed offset shows lag; the database checkpoint is the truth
      await commitOffsets([{ topic: batch.topic, partition, offset: result.nextOffset.toString() }]).catch((err) =>
        this.logger.debug({ err: String(err), partition }, 'offset commit to Kafka failed (informational only)'),
      );
      this.options.onProgress?.(this.progress);
      await heartbeat();
      if (!isRunning() || isStale()) return;
    }
    if (stopAt !== undefined) this.checkStopAt(partition, BigInt(batch.lastOffset()) + 1n, pause);
  }

  private checkStopAt(partition: number, fetchedUpTo: bigint, pause: () => () => void): void {
    const stopAt = this.options.stopAt!;
    const target = stopAt.get(partition)!;
    const reached = (this.positions.get(partition) ?? 0n) >= target || fetchedUpTo >= target;
    if (!reached) return;
    if ((this.positions.get(partition) ?? -1n) < target) this.positions.set(partition, target);
    pause();
    const all = [...stopAt].every(([p, o]) => o <= 0n || (this.positions.get(p) ?? 0n) >= o);
    if (all) this.resolveDone();
  }
}

function rootCause(e: unknown): unknown {
  let x = e as { cause?: unknown; originalError?: unknown } | undefined;
  for (let i = 0; i < 10 && x; i++) {
    if (x instanceof ProjectionError) return x;
    const next = (x.cause ?? x.originalError) as typeof x;
    if (!next) break;
    x = next;
  }
  return x ?? e;
}

/** True for errors that will recur on retry: malformed or inconsistent events. */
export function isDataError(e: unknown): boolean {
  return rootCause(e) instanceof ProjectionError;
}
