import { deadLetterTopicOf } from '@ledger/config';
import type { BatchPayload, KafkaAdmin, KafkaClient, KafkaConsumer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { ApplyBatchResult, DEFAULT_PROJECTOR_GROUP, ProjectionApplier, type ProjectionApplierOptions } from './applier';
import { ProjectionError } from './errors';
import { endApplySpans, startApplySpans } from './apply-tracing';
import { isDataError, rootCause } from './data-error';
import { DEFAULT_GAMING_DAY, GamingDayConfig } from './gaming-day';
import type { ProjectionIncident } from './incidents';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import type { AppliedEventEffect, Projection } from './projection';
import type { EventRecord } from './event-record';
import { OffsetCommitter } from './offset-committer';
import { PartitionHalts } from './partition-halts';
import { DeadLetterPublisher } from './quarantine';
import { ProgressCounters, type RunnerProgress } from './runner-progress';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from './schema-name';
import { TopicChecks } from './topic-checks';

// the runner's pieces: its halted partitions and their incidents (partition-halts.ts), the checks
// of the topic under its checkpoints (topic-checks.ts), its counters (runner-progress.ts)
export { isDataError } from './data-error';
export type { RunnerProgress } from './runner-progress';

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
  /** The projections to apply (the read model's `ALL_PROJECTIONS`; see ProjectionApplierOptions.projections). */
  readonly projections: readonly Projection[];
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
  /** Rebuild mode: see ProjectionApplierOptions.dedupe, .synchronousCommit and .accept. @default 'table', true, every record */
  readonly applierMode?: { readonly dedupe?: 'table' | 'memory'; readonly synchronousCommit?: boolean; readonly accept?: ProjectionApplierOptions['accept'] };
  /** Side effects per applied event (see ProjectionApplierOptions.effects); none for rebuilds. @default none */
  readonly effects?: readonly AppliedEventEffect[];
  /** Notify the tables each transaction changed (see ProjectionApplierOptions.notify); off for rebuilds. @default true */
  readonly notify?: boolean;
  /**
   * The key every record must be signed with (`ledger-sig`; see ProjectionApplierOptions.recordSigningKey):
   * the projector process passes its validated `RECORD_SIGNING_KEY`. @default the public development key
   */
  readonly recordSigningKey?: string;
  /**
   * Dead-letter topic the quarantined records are copied to (created when missing), or `null` for
   * none: the copies stay pending in `quarantine` (rebuilds, which mark them not to send).
   * @default `topic` with `.dlq` before its `.vN` suffix (`baccarat.ledger.events.dlq.v1`)
   */
  readonly deadLetterTopic?: string | null;
  /**
   * How often the runner reads the open incidents of its group (a halted partition whose incident
   * was resolved resumes from its checkpoint; docs/guarantees.md §6) and checks the topic's id while
   * idle, in ms. At least 1000. @default 5000
   */
  readonly incidentPollMs?: number;
  /**
   * Check the topic id (KIP-516) of every batch against the one stored with the checkpoint (and
   * while idle): a re-created topic halts its partitions with `PROJECTION.TOPIC_RECREATED`. @default true
   */
  readonly checkTopicId?: boolean;
  /**
   * What a data error does: `halt` the partition with an incident (the live projector), or `fail`:
   * reject {@link ProjectionRunner.failed} with it and pause the partition (a rebuild, which must
   * not report a partial schema as done). @default 'halt'
   */
  readonly onDataError?: 'halt' | 'fail';
  /**
   * Halt a partition whose log starts beyond its checkpoint (`PROJECTION.LOG_TRUNCATED`). Off for a
   * rebuild, which replays the topic as it is, from its log start. @default true
   */
  readonly checkLogStart?: boolean;
  /** Called when this runner opens an incident (a partition halts). */
  readonly onHalt?: (incident: ProjectionIncident) => void;
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
 * - A record that fails verification (signature, hash, link to its stream's head; see
 *   `record-verification.ts`) is quarantined in the same transaction, never applied; after the
 *   commit its copy goes to the dead-letter topic ({@link DeadLetterPublisher}); the partition and
 *   every other stream go on (docs/guarantees.md §8).
 * - A data error (ProjectionError: an event the projections cannot apply, or a topic that is not
 *   the one the checkpoint was taken on) HALTS THAT PARTITION (docs/guarantees.md §6): nothing of the
 *   batch is applied, an incident is opened in `projection_incidents` (code, message, offset, event
 *   id, global position, projection; `incidents.ts`), `ledger_projection_halts_total{code}` counts
 *   it, the partition is paused, and every other partition goes on; the process does not exit.
 *   The partition resumes, from its checkpoint, when the incident is resolved (`projections:resume`;
 *   seen within {@link ProjectionRunnerOptions.incidentPollMs}) or at the next start if resolved
 *   meanwhile; while it is open, a restart keeps the partition halted.
 * - Topic loss (docs/guarantees.md §6): the topic id is read after each fetch and checked against
 *   the checkpoint's (`PROJECTION.TOPIC_RECREATED`); a batch wholly below the checkpoint is checked
 *   against the high watermark (`PROJECTION.OFFSET_REGRESSED`), a batch that still starts beyond
 *   it after a seek against the log start offset (`PROJECTION.LOG_TRUNCATED`). Each halts the
 *   partition as above instead of skipping.
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
  private readonly counters = new ProgressCounters();
  private readonly offsets: OffsetCommitter;
  private readonly deadLetters: DeadLetterPublisher | null;
  /** Partitions halted by an open incident, and their incidents. */
  private readonly halts: PartitionHalts;
  /** The checks of the topic under the checkpoints, on each batch and while idle. */
  private readonly checks: TopicChecks;
  private resolveDone!: () => void;
  private rejectFailed!: (e: unknown) => void;
  private lockConnection: { release(): Promise<void>; query(sql: string, params?: unknown[]): Promise<any> } | null = null;
  private started = false;
  private stopped = false;
  private assigned = new Set<number>();
  private admin: KafkaAdmin | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(options: ProjectionRunnerOptions) {
    this.options = options;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.offsets = new OffsetCommitter(this.logger);
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
      effects: options.effects,
      notify: options.notify ?? true,
      recordSigningKey: options.recordSigningKey,
      deadLetter: options.deadLetterTopic !== null,
      ...options.applierMode, // dedupe, synchronousCommit, accept
    });
    const dlqTopic = options.deadLetterTopic === undefined ? deadLetterTopicOf(options.topic) : options.deadLetterTopic;
    this.deadLetters = dlqTopic === null ? null : new DeadLetterPublisher({ kafka: options.kafka, ds: options.ds, topic: dlqTopic, schema: this.schema, logger: this.logger });
    const where = { ds: options.ds, schema: this.schema, consumerGroup: this.applier.checkpointGroup, topic: this.topic, logger: this.logger };
    const isAssigned = (partition: number) => this.assigned.has(partition);
    this.halts = new PartitionHalts({ ...where, checkpoints: () => this.applier.checkpoints(this.topic), isAssigned, onHalt: options.onHalt });
    this.checks = new TopicChecks({ ...where, admin: () => this.admin!, halts: this.halts, isAssigned, checkTopicId: options.checkTopicId ?? true, checkLogStart: options.checkLogStart ?? true });
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
    return this.counters.snapshot();
  }

  /**
   * Connects, takes the schema's shared lock, subscribes and starts consuming. Resolves once the
   * consumer runs (not when it catches up).
   * @throws ProjectionError `PROJECTION.SCHEMA_IN_USE` when an in-place rebuild holds the schema
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const pollMs = this.options.incidentPollMs ?? 5000;
    if (!Number.isInteger(pollMs) || pollMs < 1000) throw new ProjectionError('PROJECTION.BAD_CONFIG', `incidentPollMs must be an integer ≥ 1000, got ${pollMs}`, { name: 'incidentPollMs' });
    if (this.options.holdSchemaLock ?? true) await this.takeSharedLock();
    this.admin = this.options.kafka.admin();
    await this.connectPatiently('admin', () => this.admin!.connect());
    const { stopAt } = this.options;
    if (stopAt && [...stopAt.values()].every((o) => o <= 0n)) this.resolveDone();

    this.listenToConsumer();
    await this.connectPatiently('consumer', () => this.consumer.connect());
    // copies a previous run quarantined but could not send
    this.sendDeadLetters();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      autoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.pollTimer = setInterval(() => {
      if (this.polling || this.stopped) return;
      this.polling = this.poll()
        .catch((err) => this.logger.warn({ err: String(err) }, 'incident poll failed; next poll retries'))
        .finally(() => (this.polling = null));
    }, pollMs);
    this.pollTimer.unref();
  }

  /** Partitions of the topic assigned to this runner by its group (empty before the first assignment), ascending. */
  get assignedPartitions(): readonly number[] {
    return [...this.assigned].sort((a, b) => a - b);
  }

  /** Partitions of this runner halted by an open incident: partition → code. */
  get haltedPartitions(): ReadonlyMap<number, string> {
    return this.halts.codes();
  }

  /** On every assignment, seeks the assigned partitions to their checkpoints; on a crash, stops on a data error. */
  private listenToConsumer(): void {
    this.consumer.onPartitionsAssigned((assignment) => {
      const assigned = assignment[this.topic] ?? [];
      this.logger.info({ groupId: this.groupId, partitions: assigned }, 'partitions assigned');
      this.soughtTo.clear();
      this.assigned = new Set(assigned);
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
  }

  /**
   * `connect()` again and again while the brokers cannot be reached (kafkajs gives up after its own
   * retries with a KafkaJS* error): a projector started during a Kafka outage waits for Kafka, not
   * ready on /health/ready (no partitions assigned, docs/architecture.md §8), instead of exiting. Waits
   * 0.5 s more per attempt, at most 5 s. Gives up only when {@link stop} was called.
   * @throws the last error when stopped meanwhile, or any error that is not kafkajs's
   */
  private async connectPatiently(what: string, connect: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await connect();
        return;
      } catch (err) {
        if (this.stopped || !/^KafkaJS/.test((err as Error)?.name ?? '')) throw err;
        this.logger.warn({ err: String(err), attempt }, `Kafka unreachable (${what} connect); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5000, 500 * attempt)));
      }
    }
  }

  /** Finishes the transaction in hand, leaves the group, releases the schema lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.polling;
    await this.consumer.disconnect().catch((err) => this.logger.warn({ err: String(err) }, 'consumer disconnect failed'));
    await this.deadLetters?.stop().catch((err) => this.logger.warn({ err: String(err) }, 'dead-letter producer disconnect failed'));
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = null;
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
    await this.halts.load(partitions);
    const stored = await this.applier.checkpoints(this.topic);
    for (const p of partitions) {
      const offset = stored.get(p) ?? 0n;
      this.consumer.seek({ topic: this.topic, partition: p, offset: offset.toString() });
      this.soughtTo.set(p, offset);
      this.logger.debug({ partition: p, offset: offset.toString() }, 'sought to checkpoint');
    }
  }

  private async eachBatch(payload: BatchPayload): Promise<void> {
    const { batch, isRunning, isStale, pause } = payload;
    await this.joinSeeks;
    if (!isRunning() || isStale()) return;
    const { partition } = batch;
    // halted by an open incident: fetch nothing more until it is resolved (see poll)
    if (this.halts.holdBatch(partition, pause)) return;
    // read after the fetch: a batch from a topic re-created since carries the new id or a later one
    const topicId = (this.options.checkTopicId ?? true) ? await this.checks.topicId() : null;
    const stopAt = this.options.stopAt?.get(partition);
    let messages = batch.messages;
    if (stopAt !== undefined) messages = messages.filter((m) => BigInt(m.offset) < stopAt);
    const chunk = this.options.maxRecordsPerTransaction ?? 2000;

    for (let i = 0; i < messages.length; i += chunk) {
      const records = messages.slice(i, i + chunk).map((m) => ({ topic: batch.topic, partition, offset: m.offset, key: m.key, value: m.value, headers: m.headers }));
      if (!(await this.applyTransaction(payload, records, topicId))) return;
    }
    if (stopAt !== undefined) this.checkStopAt(partition, BigInt(batch.lastOffset()) + 1n, pause);
  }

  /**
   * Applies one transaction's records of a batch, then counts it, sends the dead-letter copies it
   * quarantined, resolves and commits its offset, and heartbeats.
   * @param topicId the topic's id read after the fetch (null when not checked)
   * @returns whether the batch goes on: false after a data error, a seek back, a stop or a rebalance
   */
  private async applyTransaction(payload: BatchPayload, records: readonly EventRecord[], topicId: string | null): Promise<boolean> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsets, pause } = payload;
    const { partition } = batch;
    const sought = this.soughtTo.get(partition);
    let result: ApplyBatchResult;
    let applyStarted = process.hrtime.bigint();
    const spans = startApplySpans(records); // tracing (docs/architecture.md §11): [] when off
    try {
      applyStarted = process.hrtime.bigint();
      result = await this.applier.applyBatch(batch.topic, partition, records, { onGap: 'report', topicId });
      if (result.gap && sought === result.checkpointBefore) {
        // already sought to this checkpoint and the data still starts later: unless the log
        // starts beyond the checkpoint (records deleted), the offsets in between hold no data
        // records (transaction markers); accept
        if (this.options.checkLogStart ?? true) await this.checks.checkLogStart(partition, result.checkpointBefore, records[0].offset);
        applyStarted = process.hrtime.bigint();
        result = await this.applier.applyBatch(batch.topic, partition, records, { onGap: 'apply', topicId });
      }
      if (!result.gap && result.skippedBelowCheckpoint === records.length) await this.checks.checkHighWatermark(partition, result.checkpointBefore, records[0].offset);
    } catch (err) {
      endApplySpans(spans, 'retried', err);
      if (!isDataError(err)) throw err;
      await this.dataError(partition, rootCause(err) as ProjectionError, pause, topicId);
      return false;
    }
    endApplySpans(spans, result.gap ? 'retried' : 'applied');
    if (result.gap) {
      this.logger.warn({ partition, checkpoint: result.checkpointBefore.toString(), batchFirst: records[0].offset }, 'batch starts beyond the checkpoint; seeking back');
      this.soughtTo.set(partition, result.checkpointBefore);
      this.consumer.seek({ topic: batch.topic, partition, offset: result.checkpointBefore.toString() });
      return false;
    }
    this.counters.committed(result, Number(process.hrtime.bigint() - applyStarted) / 1e9);
    if (result.quarantined > 0) await this.sendDeadLetters();
    this.counters.advance(partition, result.nextOffset);
    resolveOffset(records[records.length - 1].offset);
    // informational only (Kafka's committed offset shows lag; the database checkpoint is the
    // truth): sent without waiting, one in flight per partition (offset-committer.ts)
    this.offsets.commit(commitOffsets, batch.topic, partition, result.nextOffset.toString());
    this.options.onProgress?.(this.progress);
    await heartbeat();
    return isRunning() && !isStale();
  }

  /**
   * A data error (see {@link ProjectionRunnerOptions.onDataError}): halts the partition with an
   * incident, or pauses it and rejects {@link failed}. Nothing of the batch was applied.
   * @throws the database error when the incident cannot be written (the batch is then retried)
   */
  private async dataError(partition: number, cause: ProjectionError, pause: () => () => void, topicId: string | null): Promise<void> {
    if (this.options.onDataError === 'fail') {
      this.logger.error({ err: String(cause), code: cause.code, details: cause.details }, 'projection failed');
      pause();
      this.rejectFailed(cause);
      return;
    }
    await this.halts.haltOnError(partition, cause, pause, topicId);
  }

  /**
   * Every {@link ProjectionRunnerOptions.incidentPollMs}: resumes the halted partitions whose
   * incident was resolved (from their checkpoint, which the resume command may have moved), halts
   * those with an incident another process opened, and, while idle too, checks the topic.
   */
  private async poll(): Promise<void> {
    await this.halts.refresh((partition, offset) => {
      this.soughtTo.set(partition, offset);
      if (this.assigned.has(partition)) this.consumer.seek({ topic: this.topic, partition, offset: offset.toString() });
    });
    if (this.assigned.size === 0) return;
    await this.checks.whileIdle();
  }

  /**
   * Sends the pending dead-letter copies. Never throws: a failure is logged and the copies stay
   * pending for the next quarantine or the next start.
   */
  private sendDeadLetters(): Promise<void> {
    if (!this.deadLetters) return Promise.resolve();
    return this.deadLetters.publishPending().then(
      () => undefined,
      (err) => this.logger.warn({ err: String(err), topic: this.deadLetters!.topic }, 'dead-letter copies not sent; they stay pending'),
    );
  }

  /** Rebuild mode: pauses a partition that reached its offset to stop at; resolves {@link done} once all have. */
  private checkStopAt(partition: number, fetchedUpTo: bigint, pause: () => () => void): void {
    const reached = this.counters.reachedStop(this.options.stopAt!, partition, fetchedUpTo);
    if (!reached.partition) return;
    pause();
    if (reached.all) this.resolveDone();
  }
}
