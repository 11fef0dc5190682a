import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { QueryRunner } from 'typeorm';
import type { Projection, ProjectionName, ProjectionTable } from './projection';
import { assertSchemaName, qualified } from './schema-name';

/** Checksum of one projection: its rows and their SHA-256. */
export interface ProjectionChecksum {
  /** Rows over all the projection's tables. */
  readonly rows: number;
  /** SHA-256 (hex) over every row of every table of the projection, in a deterministic order. */
  readonly sha256: string;
}

/** Checksums by projection name. */
export type ProjectionChecksums = Record<ProjectionName, ProjectionChecksum>;

const FETCH = 5000;

/**
 * Checksums of every projection of a schema (docs/guarantees.md §7: a rebuild must give
 * identical state). Read in ONE repeatable-read, read-only transaction, so all projections are
 * taken at the same snapshot even while a projector writes.
 *
 * Per table: the table name, then each row as PostgreSQL's text form of the row of its columns
 * (in column order, wall-clock columns excluded), in the table's key order, each followed by a
 * newline. Types render independently of the client (`TimeZone` UTC, `DateStyle` ISO, jsonb in
 * its canonical key order), so two schemas with the same content hash the same. Bookkeeping
 * (`checkpoints`, `applied_events`, `migrations`) is not part of any projection.
 *
 * @param ds an initialised PostgreSQL DataSource
 * @param schema the schema to read (the live one is `read`)
 * @param projections whose tables to hash, in this order (the read model's `ALL_PROJECTIONS`)
 */
export async function projectionChecksums(ds: DataSource, schema: string, projections: readonly Projection[]): Promise<ProjectionChecksums> {
  assertSchemaName(schema);
  const qr = ds.createQueryRunner();
  await qr.connect();
  const out: Partial<ProjectionChecksums> = {};
  try {
    await beginChecksumSnapshot(qr);
    for (const p of projections) {
      const hash = createHash('sha256');
      let rows = 0;
      for (const t of p.tables) rows += await hashTable(qr, schema, t, hash);
      out[p.name] = { rows, sha256: hash.digest('hex') };
    }
    await qr.query('COMMIT');
  } catch (e) {
    await qr.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    await qr.release();
  }
  return out as ProjectionChecksums;
}

/** Projections whose checksums differ between two results (empty when identical). */
export function diffChecksums(a: ProjectionChecksums, b: ProjectionChecksums): ProjectionName[] {
  return (Object.keys(a) as ProjectionName[]).filter((k) => a[k].sha256 !== b[k]?.sha256 || a[k].rows !== b[k]?.rows);
}

/** Opens the checksums' transaction: one repeatable-read, read-only snapshot, types rendered independently of the client. */
async function beginChecksumSnapshot(qr: QueryRunner): Promise<void> {
  await qr.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await qr.query(`SET LOCAL TimeZone = 'UTC'`);
  await qr.query(`SET LOCAL DateStyle = 'ISO, YMD'`);
  await qr.query(`SET LOCAL IntervalStyle = 'iso_8601'`);
  await qr.query(`SET LOCAL extra_float_digits = 3`);
}

/**
 * Feeds one table's rows (optionally only those matching `where`, with `params`) into `hash`, in
 * the table's key order, as {@link projectionChecksums} describes; returns the rows read.
 */
async function hashTable(qr: QueryRunner, schema: string, t: ProjectionTable, hash: ReturnType<typeof createHash>, where?: string, params: unknown[] = []): Promise<number> {
  const cols: { column_name: string }[] = await qr.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [schema, t.name]);
  const included = cols.map((c) => c.column_name).filter((c) => !(t.excludeColumns ?? []).includes(c));
  hash.update(`# ${t.name} (${included.join(',')})\n`);
  await qr.query(`DECLARE checksum_cursor NO SCROLL CURSOR FOR SELECT ROW(${included.map((c) => `"${c}"`).join(',')})::text AS r FROM ${qualified(schema, t.name)}${where ? ` WHERE ${where}` : ''} ORDER BY ${t.orderBy}`, params);
  let rows = 0;
  for (;;) {
    const chunk: { r: string }[] = await qr.query(`FETCH ${FETCH} FROM checksum_cursor`);
    for (const { r } of chunk) hash.update(r + '\n');
    rows += chunk.length;
    if (chunk.length < FETCH) break;
  }
  await qr.query('CLOSE checksum_cursor');
  return rows;
}

/** A scope of rows: one gaming table, one gaming day (the rounds of that day), or both. */
export interface RowScope {
  /** The gaming table's id (the Kafka key of its events). */
  readonly tableId?: string;
  /** `YYYY-MM-DD`: the rounds whose gaming day it is (`gamingDay`). */
  readonly gamingDay?: string;
}

/** The checksum of one table's rows in a scope; `rows: null` when the table cannot be scoped so (not compared). */
export interface ScopedTableChecksum {
  readonly projection: ProjectionName;
  readonly table: string;
  readonly rows: number | null;
  readonly sha256: string | null;
}

/** What {@link scopedChecksums} read, in one snapshot. */
export interface ScopedChecksums {
  readonly tables: readonly ScopedTableChecksum[];
  /** partition → next offset of `checkpointsOf`'s group and topic in the same snapshot (when asked). */
  readonly checkpoints: ReadonlyMap<number, bigint>;
}

/**
 * The SQL condition selecting a table's rows of `scope` (its parameters are {@link scopeParams}:
 * the table id, then the gaming day, each only when given), or null when the table declares no
 * predicate for a dimension of the scope (see `ProjectionTable.scope`).
 */
export function scopeCondition(schema: string, table: ProjectionTable, scope: RowScope): string | null {
  const t = (name: string) => qualified(schema, name);
  const parts: string[] = [];
  let n = 0;
  if (scope.tableId !== undefined) {
    if (!table.scope?.tableId) return null;
    parts.push(`(${table.scope.tableId(`$${++n}::text`, t)})`);
  }
  if (scope.gamingDay !== undefined) {
    if (!table.scope?.gamingDay) return null;
    parts.push(`(${table.scope.gamingDay(`$${++n}::date`, t)})`);
  }
  return parts.length > 0 ? parts.join(' AND ') : 'true';
}

/** The parameters of {@link scopeCondition}: the table id, then the gaming day, each only when given. */
export function scopeParams(scope: RowScope): unknown[] {
  return [...(scope.tableId !== undefined ? [scope.tableId] : []), ...(scope.gamingDay !== undefined ? [scope.gamingDay] : [])];
}

/**
 * Checksums of the rows of `scope` of every table of `projections`, per table (a scoped rebuild,
 * `scoped-rebuild.ts`), in ONE repeatable-read snapshot like {@link projectionChecksums} and in the
 * same format (a table's scoped hash equals its full hash when every row is in scope). With
 * `checkpointsOf`, the checkpoints of that group and topic are read first in the same snapshot: the
 * rows are then exactly those the projector had committed at those offsets (rows and checkpoint
 * commit together), however far it has moved since.
 *
 * @param ds an initialised PostgreSQL DataSource
 * @param schema the schema to read
 * @param projections whose tables to hash
 * @param scope the rows: a table id, a gaming day, or both (both: the rows of that day of that table)
 */
export async function scopedChecksums(ds: DataSource, schema: string, projections: readonly Projection[], scope: RowScope, checkpointsOf?: { readonly group: string; readonly topic: string }): Promise<ScopedChecksums> {
  assertSchemaName(schema);
  const qr = ds.createQueryRunner();
  await qr.connect();
  const tables: ScopedTableChecksum[] = [];
  let checkpoints = new Map<number, bigint>();
  try {
    await beginChecksumSnapshot(qr);
    if (checkpointsOf) {
      const rows: { partition: number; next_offset: string }[] = await qr.query(`SELECT partition, next_offset::text AS next_offset FROM ${qualified(schema, 'checkpoints')} WHERE consumer_group = $1 AND topic = $2`, [
        checkpointsOf.group,
        checkpointsOf.topic,
      ]);
      checkpoints = new Map(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
    }
    for (const p of projections) {
      for (const t of p.tables) {
        const where = scopeCondition(schema, t, scope);
        if (where === null) {
          tables.push({ projection: p.name, table: t.name, rows: null, sha256: null });
          continue;
        }
        const hash = createHash('sha256');
        const rows = await hashTable(qr, schema, t, hash, where, scopeParams(scope));
        tables.push({ projection: p.name, table: t.name, rows, sha256: hash.digest('hex') });
      }
    }
    await qr.query('COMMIT');
  } catch (e) {
    await qr.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    await qr.release();
  }
  return { tables, checkpoints };
}
