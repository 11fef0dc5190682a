import type { KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { DEFAULT_PROJECTOR_GROUP } from './applier';
import { projectionChecksums, ProjectionChecksums } from './checksums';
import { ProjectionError } from './errors';
import { allChangedPayload, PROJECTION_CHANGES_CHANNEL } from './change-notice';
import { DEFAULT_GAMING_DAY, GamingDayConfig } from './gaming-day';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import { type ProjectionMigrationClass, runProjectionMigrations } from './migrations';
import type { Projection } from './projection';
import { createDeferredIndexes, deferSecondaryIndexes } from './rebuild-indexes';
import { ProjectionRunner, RunnerProgress, schemaLockSql } from './runner';
import { assertSchemaName, DEFAULT_READ_SCHEMA, qualified } from './schema-name';

/** Options of {@link rebuildProjections}. */
export interface RebuildOptions {
  readonly ds: DataSource;
  readonly kafka: KafkaClient;
  readonly topic: string;
  /** The projections to rebuild (the read model's `ALL_PROJECTIONS`): applied, then checksummed. */
  readonly projections: readonly Projection[];
  /** The read model's migrations (`READ_MODEL_MIGRATIONS`), run with the engine's to recreate the schema. */
  readonly migrations: readonly ProjectionMigrationClass[];
  /** Schema to rebuild: `read` (live, in place) or a scratch schema. @default 'read' */
  readonly schema?: string;
  /** Owner written on the checkpoint rows (the live projector's group). @default 'ledger-projector' */
  readonly checkpointGroup?: string;
  /** Must equal the live projector's, or checksums differ. @default UTC, cut-off 6 */
  readonly gamingDay?: GamingDayConfig;
  readonly logger?: ProjectionLogger;
  /** @default 2 */
  readonly partitionsConsumedConcurrently?: number;
  /** @default 5000 */
  readonly maxRecordsPerTransaction?: number;
  /** Called after each committed transaction: records read so far out of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * The schema's `analytics_outbox` may hold records the publisher has not sent yet; dropping the
   * schema would lose them, so the rebuild refuses (`PROJECTION.SCHEMA_IN_USE`) unless this is set.
   * Let the projector's publisher drain them first. @default false
   */
  readonly discardUnpublishedAnalytics?: boolean;
  /**
   * The key the records must be signed with: the live projector's `RECORD_SIGNING_KEY`, or the
   * rebuild quarantines what the live projector applied. @default the public development key
   */
  readonly recordSigningKey?: string;
}

/** What a rebuild did. */
export interface RebuildResult {
  readonly schema: string;
  readonly topic: string;
  /** Records up to the high watermarks captured at start (what was replayed). */
  readonly records: number;
  /** Events applied (records minus duplicates and quarantined ones). */
  readonly events: number;
  /** Records quarantined by the replay (kept in the schema's `quarantine`, not sent to the dead-letter topic again). */
  readonly quarantined: number;
  /** The replay and the index build after it, ms. */
  readonly durationMs: number;
  /** Of which building the secondary indexes and constraints after the load, ms. */
  readonly indexBuildMs: number;
  /** events / second over {@link durationMs} (replay + index build; excluding schema creation and checksums). */
  readonly eventsPerSecond: number;
  /** partition → high watermark replayed up to (exclusive), decimal strings. */
  readonly highWatermarks: Record<number, string>;
  readonly checksums: ProjectionChecksums;
}

/**
 * Rebuilds a read-model schema from the topic (docs/guarantees.md §7):
 *
 * 1. takes the schema's advisory lock EXCLUSIVELY on a dedicated session (live projectors hold it
 *    shared while they run): an in-place rebuild of `read` refuses to start while a projector
 *    runs (`PROJECTION.SCHEMA_IN_USE`), and a projector refuses to start during the rebuild;
 * 2. refuses if the schema's analytics outbox still holds unpublished records (they would be lost),
 *    then drops the schema and recreates it with the migrations (empty projections, no
 *    checkpoints, empty analytics outbox), then drops its secondary indexes (but the ones its
 *    projections look rows up by during the load, `ProjectionTable.keptInRebuild`) and UNIQUE / FOREIGN
 *    KEY constraints and the de-duplication table's key, recording their definitions from the
 *    catalog (`rebuild-indexes.ts`: whatever the migrations created, so an index a later
 *    migration adds is covered);
 * 3. captures every partition's high watermark, then replays the topic from offset 0 up to them
 *    with a fresh, throw-away consumer group (`<group>-rebuild-<schema>-<time>-<pid>`, deleted
 *    afterwards), through the same applier as the live projector, writing checkpoints under
 *    `checkpointGroup`, with side effects OFF: no `effects` (no analytics records are written) and no
 *    dead-letter copies sent (a replay must not re-emit what the live projector already
 *    published); records are verified as live, so `stream_heads` and `quarantine` are rebuilt too;
 *    duplicates are recognised from what the replay applied, kept in memory in a compact index by
 *    global position and id (`applied-index.ts`), not by reading `applied_events` (which is loaded all the same, for the live projector that continues), and
 *    the transactions commit without waiting for the WAL flush (a crashed rebuild starts over);
 * 4. sets every partition's checkpoint to its high watermark (a live projector then continues
 *    exactly where the rebuild stopped), creates the dropped indexes and constraints again on the
 *    loaded rows (then ANALYZE), and computes the checksums. A failed rebuild leaves the schema
 *    incomplete (its indexes are created again on what was loaded, when they can be): rebuild again.
 *
 * Into a scratch schema, the live one is not touched; compare with `projectionChecksums(ds, 'read')`
 * once live has consumed the same offsets (see scripts/rebuild-projections.ts).
 *
 * @throws ProjectionError `PROJECTION.SCHEMA_IN_USE`, `PROJECTION.REBUILD_INCOMPLETE`, or the data
 *   error that stopped the replay
 */
export async function rebuildProjections(options: RebuildOptions): Promise<RebuildResult> {
  const schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
  const checkpointGroup = options.checkpointGroup ?? DEFAULT_PROJECTOR_GROUP;
  const logger = options.logger ?? SILENT_LOGGER;
  const { ds, kafka, topic } = options;

  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    const got = await lock.query(schemaLockSql('pg_try_advisory_lock'), [schema]);
    if (!got[0].ok) {
      throw new ProjectionError('PROJECTION.SCHEMA_IN_USE', `schema ${schema} is in use by a running projector or another rebuild; stop it first`, { schema });
    }
    if (!options.discardUnpublishedAnalytics) {
      const pending = await unpublishedAnalytics(ds, schema);
      if (pending > 0) {
        throw new ProjectionError('PROJECTION.SCHEMA_IN_USE', `schema ${schema} holds ${pending} unpublished analytics record(s); run the projector until its publisher has sent them, then rebuild`, { schema, pending });
      }
    }
    await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await runProjectionMigrations(ds, { schema, migrations: options.migrations });
    const keep = new Set(options.projections.flatMap((p) => p.tables.flatMap((t) => t.keptInRebuild ?? [])));
    const deferred = await deferSecondaryIndexes(ds, schema, { keep });
    let indexed = false;

    const admin = kafka.admin();
    await admin.connect();
    const groupId = `${checkpointGroup}-rebuild-${schema}-${Date.now()}-${process.pid}`;
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      const stopAt = new Map<number, bigint>(offsets.map((o) => [o.partition, BigInt(o.high)]));
      const total = offsets.reduce((n, o) => n + Number(BigInt(o.high) - BigInt(o.low)), 0);
      logger.info({ topic, schema, total, groupId }, 'rebuild: replaying');

      const started = Date.now();
      const runner = new ProjectionRunner({
        kafka,
        ds,
        topic,
        groupId,
        checkpointGroup,
        schema,
        gamingDay: options.gamingDay ?? DEFAULT_GAMING_DAY,
        logger,
        stopAt,
        holdSchemaLock: false,
        projections: options.projections, // and no `effects`: a replay emits nothing
        // no notice per transaction: one `all` notice once the schema is complete (below)
        notify: false,
        // a replay that cannot apply an event is not a rebuild: it fails, it does not halt
        onDataError: 'fail',
        // it replays the topic as it is, from its log start (a truncated topic is complete again once republished)
        checkLogStart: false,
        // the live projector copied them to the dead-letter topic when it first saw them
        deadLetterTopic: null,
        recordSigningKey: options.recordSigningKey,
        applierMode: { dedupe: 'memory', synchronousCommit: false },
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 2,
        maxRecordsPerTransaction: options.maxRecordsPerTransaction ?? 5000,
        maxBytesPerPartition: 4 * 1_048_576,
        onProgress: (p) => options.onProgress?.(p.applied + p.skippedDuplicates + p.skippedBelowCheckpoint + p.quarantined, total),
      });
      let progress: RunnerProgress;
      try {
        await runner.start();
        await Promise.race([runner.done, runner.failed]);
        progress = runner.progress;
      } finally {
        await runner.stop();
      }
      await admin.deleteGroups([groupId]).catch((err) => logger.warn({ err: String(err), groupId }, 'rebuild: could not delete the throw-away group'));

      for (const [partition, high] of stopAt) {
        const reached = progress.positions.get(partition) ?? 0n;
        if (reached < high && high > 0n) {
          throw new ProjectionError('PROJECTION.REBUILD_INCOMPLETE', `partition ${partition} replayed to ${reached}, high watermark ${high}`, { partition });
        }
        await ds.query(
          `INSERT INTO ${qualified(schema, 'checkpoints')} (consumer_group, topic, partition, next_offset) VALUES ($1,$2,$3,$4)
           ON CONFLICT (consumer_group, topic, partition) DO UPDATE SET next_offset = greatest(${qualified(schema, 'checkpoints')}.next_offset, EXCLUDED.next_offset), updated_at = now()`,
          [checkpointGroup, topic, partition, high.toString()],
        );
      }
      const indexStart = Date.now();
      await createDeferredIndexes(ds, schema, deferred);
      indexed = true;
      const durationMs = Date.now() - started;
      const indexBuildMs = Date.now() - indexStart;
      logger.info({ schema, indexes: deferred.length, indexBuildMs }, 'rebuild: indexes and constraints created');
      const events = progress.applied;
      const checksums = await projectionChecksums(ds, schema, options.projections);
      // every table may have changed: listeners of this schema (the API's live stream) re-read them all
      const [{ last }] = await ds.query(`SELECT max(last_global_position)::text AS last FROM ${qualified(schema, 'checkpoints')}`);
      await ds.query(`SELECT pg_notify($1, $2)`, [PROJECTION_CHANGES_CHANNEL, allChangedPayload(schema, last ?? null)]);
      return {
        schema,
        topic,
        records: total,
        events,
        quarantined: progress.quarantined,
        durationMs,
        indexBuildMs,
        eventsPerSecond: durationMs > 0 ? Math.round((events * 1000) / durationMs) : events,
        highWatermarks: Object.fromEntries([...stopAt].map(([p, o]) => [p, o.toString()])),
        checksums,
      };
    } finally {
      await admin.disconnect();
      // a failed replay still leaves a schema with the migrations' indexes (its rows are incomplete: rebuild again)
      if (!indexed) await createDeferredIndexes(ds, schema, deferred).catch((err) => logger.warn({ err: String(err), schema }, 'rebuild: indexes not recreated after a failure'));
    }
  } finally {
    await lock.query(schemaLockSql('pg_advisory_unlock'), [schema]).catch(() => undefined);
    await lock.release();
  }
}

/** Rows of `<schema>.analytics_outbox` not yet published (0 when the table does not exist). */
async function unpublishedAnalytics(ds: DataSource, schema: string): Promise<number> {
  const [{ t }] = await ds.query(`SELECT to_regclass($1) IS NOT NULL AS t`, [`"${schema}".analytics_outbox`]);
  if (!t) return 0;
  const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${qualified(schema, 'analytics_outbox')} WHERE published_at IS NULL`);
  return n;
}
