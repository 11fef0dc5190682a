import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Projection, ProjectionName } from './projection';
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
    await qr.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await qr.query(`SET LOCAL TimeZone = 'UTC'`);
    await qr.query(`SET LOCAL DateStyle = 'ISO, YMD'`);
    await qr.query(`SET LOCAL IntervalStyle = 'iso_8601'`);
    await qr.query(`SET LOCAL extra_float_digits = 3`);
    for (const p of projections) {
      const hash = createHash('sha256');
      let rows = 0;
      for (const t of p.tables) {
        const cols: { column_name: string }[] = await qr.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [schema, t.name]);
        const included = cols.map((c) => c.column_name).filter((c) => !(t.excludeColumns ?? []).includes(c));
        hash.update(`# ${t.name} (${included.join(',')})\n`);
        await qr.query(`DECLARE checksum_cursor NO SCROLL CURSOR FOR SELECT ROW(${included.map((c) => `"${c}"`).join(',')})::text AS r FROM ${qualified(schema, t.name)} ORDER BY ${t.orderBy}`);
        for (;;) {
          const chunk: { r: string }[] = await qr.query(`FETCH ${FETCH} FROM checksum_cursor`);
          for (const { r } of chunk) hash.update(r + '\n');
          rows += chunk.length;
          if (chunk.length < FETCH) break;
        }
        await qr.query('CLOSE checksum_cursor');
      }
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
