import type { KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { DEFAULT_PROJECTOR_GROUP } from './applier';
import { type RowScope, scopedChecksums, type ScopedTableChecksum } from './checksums';
import { ProjectionError } from './errors';
import type { EventRecord } from './event-record';
import { DEFAULT_GAMING_DAY, type GamingDayConfig } from './gaming-day';
import { type ProjectionLogger, SILENT_LOGGER } from './logger';
import { dropProjectionSchema, type ProjectionMigrationClass, runProjectionMigrations } from './migrations';
import type { Projection, ProjectionName } from './projection';
import { ProjectionRunner, type RunnerProgress, schemaLockSql } from './runner';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from './schema-name';

/** What a scoped rebuild replays and compares: projections, and the rows of a table and/or a gaming day. */
export interface RebuildScope extends RowScope {
  /** Names of the projections to compare (those they read are replayed too); empty or absent: all. */
  readonly projections?: readonly ProjectionName[];
}

/** Progress of a scoped rebuild, after each committed transaction of the replay. */
export interface ScopedRebuildProgress {
  /** Records of the topic passed (applied, skipped or out of scope) up to the stop offsets. */
  readonly done: number;
  readonly total: number;
  /** Events applied to the scratch schema so far. */
  readonly applied: number;
  readonly recordsPerSecond: number;
  /** Seconds left at the rate so far (null before any progress). */
  readonly etaSeconds: number | null;
}

/** Options of {@link scopedRebuild}. */
export interface ScopedRebuildOptions {
  readonly ds: DataSource;
  readonly kafka: KafkaClient;
  readonly topic: string;
  /** The read model's projections (`ALL_PROJECTIONS`); the scope picks among them. */
  readonly projections: readonly Projection[];
  /** The read model's migrations (`READ_MODEL_MIGRATIONS`): the scratch schema is created with them. */
  readonly migrations: readonly ProjectionMigrationClass[];
  readonly scope: RebuildScope;
  /** The live schema, read only (never locked, never written). @default 'read' */
  readonly liveSchema?: string;
  /** The scratch schema, dropped and recreated. @default `<liveSchema>_scoped` */
  readonly scratchSchema?: string;
  /** The live projector's checkpoint owner: its checkpoints at start are the stop offsets. @default 'ledger-projector' */
  readonly checkpointGroup?: string;
  /** Must equal the live projector's. @default UTC, cut-off 6 */
  readonly gamingDay?: GamingDayConfig;
  /** Must equal the live projector's `RECORD_SIGNING_KEY`. @default the public development key */
  readonly recordSigningKey?: string;
  readonly logger?: ProjectionLogger;
  /** @default 2 */
  readonly partitionsConsumedConcurrently?: number;
  /** @default 5000 */
  readonly maxRecordsPerTransaction?: number;
  /** Drop the scratch schema when done (else it is kept for inspection). @default false */
  readonly dropAfter?: boolean;
  readonly onProgress?: (p: ScopedRebuildProgress) => void;
}

/** One table's comparison: `equal` null when the table cannot be scoped so (a shoe's row in a gaming day's scope). */
export interface ScopedTableComparison {
  readonly projection: ProjectionName;
  readonly table: string;
  readonly live: { readonly rows: number; readonly sha256: string } | null;
  readonly rebuilt: { readonly rows: number; readonly sha256: string } | null;
  readonly equal: boolean | null;
}

/** What {@link scopedRebuild} did and found. */
export interface ScopedRebuildResult {
  readonly scope: RebuildScope;
  readonly liveSchema: string;
  readonly scratchSchema: string;
  /** The projections compared, and those replayed (the compared ones and what they read). */
  readonly compared: readonly ProjectionName[];
  readonly replayed: readonly ProjectionName[];
  /** partition → the live checkpoint read at start (exclusive): both sides are taken exactly there. */
  readonly stopOffsets: Record<number, string>;
  /** Records of the topic up to the stop offsets, and of them the events applied (in scope). */
  readonly records: number;
  readonly events: number;
  readonly quarantined: number;
  /** Replay time (schema creation and checksums excluded), ms, and records / s over it. */
  readonly durationMs: number;
  readonly recordsPerSecond: number;
  /** The checksums of both sides, ms. */
  readonly checksumMs: number;
  readonly tables: readonly ScopedTableComparison[];
  /** True when every comparable table is equal. */
  readonly equal: boolean;
}

/**
 * A scoped rebuild (docs/guarantees.md §7): rebuilds the rows of one projection (and what it reads),
 * of one gaming table, of one gaming day, or of one gaming day of one table, into a scratch schema,
 * and compares them with the live rows of the same scope AS OF THE SAME OFFSETS, while the live
 * projector goes on (it is neither stopped nor locked: only the scratch schema's lock is taken).
 *
 * 1. In ONE repeatable-read snapshot of the live schema: reads the live projector's checkpoints
 *    (`checkpointGroup`, `topic`) and the checksums of the scope's live rows ({@link scopedChecksums}).
 *    Rows and checkpoint commit in one transaction per partition, so those rows are exactly the
 *    fold of the records below those checkpoints, whatever live does afterwards: the checkpoints are
 *    the stop offsets, and the comparison needs no waiting and no lock.
 * 2. Drops and recreates the scratch schema with the migrations, then replays the topic from its
 *    log start up to the stop offsets with a throw-away consumer group, through the live applier
 *    with the projections of the scope (the chosen ones, those whose tables they read, `shoe_state`,
 *    and, for a gaming day, those the day's predicates read, e.g. `hand_outcomes`), side effects off;
 *    with a table scope, records whose Kafka key (the table id) is another table's are passed over
 *    unparsed (`ProjectionApplierOptions.accept`). A table's rows depend only on its own events:
 *    its shoes' streams and their rounds (ledger-wide events, key `*`, write only their own rows).
 *    A gaming day's rows are rebuilt from the whole of the table's (or the topic's) events, since a
 *    round's bets may be settled after the day and a shoe may span two days.
 * 3. Computes the same scoped checksums on the scratch schema and compares them per table.
 *
 * Live is only read; repairing it is left to an in-place rebuild (`rebuildProjections`).
 *
 * @throws ProjectionError `PROJECTION.BAD_CONFIG` (unknown projection, scratch = live, bad day),
 *   `PROJECTION.SCHEMA_IN_USE` (another scoped rebuild uses the scratch schema),
 *   `PROJECTION.REBUILD_INCOMPLETE`, or the data error that stopped the replay
 */
export async function scopedRebuild(options: ScopedRebuildOptions): Promise<ScopedRebuildResult> {
  const live = assertSchemaName(options.liveSchema ?? DEFAULT_READ_SCHEMA);
  const scratch = assertSchemaName(options.scratchSchema ?? `${live}_scoped`);
  if (scratch === live) throw new ProjectionError('PROJECTION.BAD_CONFIG', `the scratch schema must not be the live one (${live})`, { schema: scratch });
  const group = options.checkpointGroup ?? DEFAULT_PROJECTOR_GROUP;
  const logger = options.logger ?? SILENT_LOGGER;
  const { ds, topic, scope } = options;
  if (scope.gamingDay !== undefined && !isCalendarDate(scope.gamingDay)) {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `gaming day ${JSON.stringify(scope.gamingDay)} is not a date YYYY-MM-DD`, { gamingDay: scope.gamingDay });
  }
  const { compared, replayed } = scopeProjections(options.projections, scope);
  const rowScope: RowScope = { tableId: scope.tableId, gamingDay: scope.gamingDay };

  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    const got = await lock.query(schemaLockSql('pg_try_advisory_lock'), [scratch]);
    if (!got[0].ok) throw new ProjectionError('PROJECTION.SCHEMA_IN_USE', `scratch schema ${scratch} is in use by another rebuild`, { schema: scratch });

    const checksumStart = Date.now();
    const liveSums = await scopedChecksums(ds, live, compared, rowScope, { group, topic });
    let checksumMs = Date.now() - checksumStart;

    await ds.query(`DROP SCHEMA IF EXISTS "${scratch}" CASCADE`);
    await runProjectionMigrations(ds, { schema: scratch, migrations: options.migrations });
    const { progress, stopAt, total, durationMs } = await replayScope(options, { scratch, group, logger, replayed, checkpoints: liveSums.checkpoints });

    const rebuiltStart = Date.now();
    const rebuiltSums = await scopedChecksums(ds, scratch, compared, rowScope);
    checksumMs += Date.now() - rebuiltStart;
    const tables = liveSums.tables.map((l, i) => compareTable(l, rebuiltSums.tables[i]));
    if (options.dropAfter) await dropProjectionSchema(ds, scratch);
    return {
      scope,
      liveSchema: live,
      scratchSchema: scratch,
      compared: compared.map((p) => p.name),
      replayed: replayed.map((p) => p.name),
      stopOffsets: Object.fromEntries([...stopAt].map(([p, o]) => [p, o.toString()])),
      records: total,
      events: progress.applied,
      quarantined: progress.quarantined,
      durationMs,
      recordsPerSecond: durationMs > 0 ? Math.round((total * 1000) / durationMs) : total,
      checksumMs,
      tables,
      equal: tables.every((t) => t.equal !== false),
    };
  } finally {
    await lock.query(schemaLockSql('pg_advisory_unlock'), [scratch]).catch(() => undefined);
    await lock.release();
  }
}

/**
 * Replays the topic from its log start up to the live `checkpoints` (every partition of the topic:
 * one live never consumed stops at 0) into the scratch schema, with the scope's projections and,
 * with a table scope, only that table's records; checks every partition reached its stop offset.
 */
async function replayScope(
  options: ScopedRebuildOptions,
  s: { scratch: string; group: string; logger: ProjectionLogger; replayed: readonly Projection[]; checkpoints: ReadonlyMap<number, bigint> },
): Promise<{ progress: RunnerProgress; stopAt: Map<number, bigint>; total: number; durationMs: number }> {
  const { ds, kafka, topic, scope } = options;
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${s.group}-scoped-${s.scratch}-${Date.now()}-${process.pid}`;
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    const stopAt = new Map(offsets.map((o) => [o.partition, s.checkpoints.get(o.partition) ?? 0n]));
    const low = new Map(offsets.map((o) => [o.partition, BigInt(o.low)]));
    let total = 0;
    for (const [p, stop] of stopAt) total += Math.max(0, Number(stop - (low.get(p) ?? 0n)));
    s.logger.info({ topic, scratch: s.scratch, scope, total, groupId }, 'scoped rebuild: replaying');
    const tableKey = scope.tableId;
    const started = Date.now();
    const runner = new ProjectionRunner({
      kafka,
      ds,
      topic,
      groupId,
      checkpointGroup: s.group,
      schema: s.scratch,
      gamingDay: options.gamingDay ?? DEFAULT_GAMING_DAY,
      logger: s.logger,
      stopAt,
      holdSchemaLock: false,
      projections: s.replayed,
      notify: false,
      onDataError: 'fail',
      checkLogStart: false,
      deadLetterTopic: null,
      recordSigningKey: options.recordSigningKey,
      applierMode: { dedupe: 'memory', synchronousCommit: false, accept: tableKey === undefined ? undefined : (r: EventRecord) => recordKey(r) === tableKey },
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 2,
      maxRecordsPerTransaction: options.maxRecordsPerTransaction ?? 5000,
      maxBytesPerPartition: 4 * 1_048_576,
      onProgress: (p) => {
        if (!options.onProgress) return;
        let done = 0;
        for (const [partition, next] of p.positions) {
          const stop = stopAt.get(partition) ?? 0n;
          done += Math.max(0, Number((next < stop ? next : stop) - (low.get(partition) ?? 0n)));
        }
        const rate = (done * 1000) / Math.max(1, Date.now() - started);
        options.onProgress({ done, total, applied: p.applied, recordsPerSecond: Math.round(rate), etaSeconds: rate > 0 ? Math.max(0, total - done) / rate : null });
      },
    });
    let progress: RunnerProgress;
    try {
      await runner.start();
      await Promise.race([runner.done, runner.failed]);
      progress = runner.progress;
    } finally {
      await runner.stop();
    }
    const durationMs = Date.now() - started;
    await admin.deleteGroups([groupId]).catch((err) => s.logger.warn({ err: String(err), groupId }, 'scoped rebuild: could not delete the throw-away group'));
    for (const [partition, stop] of stopAt) {
      const reached = progress.positions.get(partition) ?? 0n;
      if (stop > 0n && reached < stop) throw new ProjectionError('PROJECTION.REBUILD_INCOMPLETE', `partition ${partition} replayed to ${reached}, stop offset ${stop}`, { partition });
    }
    return { progress, stopAt, total, durationMs };
  } finally {
    await admin.disconnect();
  }
}

/**
 * The projections of a scope: `compared`, the chosen ones (all when none is named), in the given
 * order; `replayed`, those plus, transitively, the owners of the tables they read (`reads`), of
 * `shoe_state` (the applier's stream bookkeeping) and, for a gaming day, of the tables their day
 * predicates read (`scope.uses`).
 * @throws ProjectionError `PROJECTION.BAD_CONFIG` for an unknown projection name
 */
export function scopeProjections(all: readonly Projection[], scope: RebuildScope): { compared: Projection[]; replayed: Projection[] } {
  const byName = new Map(all.map((p) => [p.name, p]));
  const owner = new Map(all.flatMap((p) => p.tables.map((t) => [t.name, p] as const)));
  const names = scope.projections?.length ? scope.projections : all.map((p) => p.name);
  for (const n of names) if (!byName.has(n)) throw new ProjectionError('PROJECTION.BAD_CONFIG', `unknown projection ${JSON.stringify(n)} (known: ${all.map((p) => p.name).join(', ')})`, { projection: n });
  const compared = all.filter((p) => names.includes(p.name));
  const wanted = new Set<Projection>(compared);
  const needs = (p: Projection) => [...(p.reads ?? []), 'shoe_state', ...(scope.gamingDay !== undefined ? p.tables.flatMap((t) => t.scope?.uses ?? []) : [])];
  for (let grew = true; grew;) {
    grew = false;
    for (const p of [...wanted]) {
      for (const table of needs(p)) {
        const o = owner.get(table);
        if (o && !wanted.has(o)) {
          wanted.add(o);
          grew = true;
        }
      }
    }
  }
  return { compared, replayed: all.filter((p) => wanted.has(p)) };
}

function compareTable(live: ScopedTableChecksum, rebuilt: ScopedTableChecksum): ScopedTableComparison {
  const side = (c: ScopedTableChecksum) => (c.rows === null || c.sha256 === null ? null : { rows: c.rows, sha256: c.sha256 });
  const l = side(live);
  const r = side(rebuilt);
  return { projection: live.projection, table: live.table, live: l, rebuilt: r, equal: l && r ? l.sha256 === r.sha256 && l.rows === r.rows : null };
}

function recordKey(r: EventRecord): string | null {
  if (r.key === undefined || r.key === null) return null;
  return typeof r.key === 'string' ? r.key : r.key.toString('utf8');
}

/** `YYYY-MM-DD` naming a real calendar date. */
function isCalendarDate(day: string): boolean {
  const t = Date.parse(`${day}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === day;
}
