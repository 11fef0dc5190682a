import type { DataSource, MigrationInterface } from 'typeorm';
import { ProjectionError } from '../errors';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';
import { CreateReadModel1733000000000 } from './1733000000000-create-read-model';
import { CreateAnalyticsOutbox1733100000000 } from './1733100000000-create-analytics-outbox';
import { GrantReadModel1733900000000 } from './1733900000000-grant-read-model';
import { VerifyRecords1734000000000 } from './1734000000000-verify-records';
import { CreateOutboxLeases1796000500100 } from './1796000500100-create-outbox-leases';
import { ProjectionIncidents1796000700000 } from './1796000700000-projection-incidents';
import { AppliedAtClock1797010000000 } from './1797010000000-applied-at-clock';
import { AnalyticsOutboxReferences1797040000000 } from './1797040000000-analytics-outbox-references';
import { AsOfIndexes1799000100000 } from './1799000100000-as-of-indexes';

export { CreateReadModel1733000000000, createReadModelSql } from './1733000000000-create-read-model';
export { CreateAnalyticsOutbox1733100000000, createAnalyticsOutboxSql } from './1733100000000-create-analytics-outbox';
export { GrantReadModel1733900000000, grantReadModelSql } from './1733900000000-grant-read-model';
export { VerifyRecords1734000000000, verifyRecordsSql, QUARANTINE_MAX_VALUE_BYTES } from './1734000000000-verify-records';
export { CreateOutboxLeases1796000500100, createOutboxLeasesSql, grantOutboxLeasesSql } from './1796000500100-create-outbox-leases';
export { ProjectionIncidents1796000700000, projectionIncidentsSql } from './1796000700000-projection-incidents';
export { AppliedAtClock1797010000000, appliedAtClockSql } from './1797010000000-applied-at-clock';
export { AnalyticsOutboxReferences1797040000000, analyticsOutboxReferencesSql } from './1797040000000-analytics-outbox-references';
export { AsOfIndexes1799000100000, asOfIndexesSql } from './1799000100000-as-of-indexes';

/** A migration class of the read model: constructed with the target schema (default `read`). */
export type ProjectionMigrationClass = new (schema?: string) => MigrationInterface & { readonly name: string };

/**
 * The engine's own migrations, oldest first: its bookkeeping (`checkpoints`, `applied_events`,
 * `stream_heads`, `quarantine`, `projection_incidents`, `outbox_leases`, `analytics_outbox`), the
 * schema's grants, and two historical migrations that create or index read-model tables beside its
 * own (1733000000000 creates both; 1799000100000 indexes `applied_events` and two revision tables),
 * kept here under their recorded names. The read model's own are `READ_MODEL_MIGRATIONS` of
 * `@ledger/read-model`; {@link projectionMigrations} merges both.
 */
export const ENGINE_MIGRATIONS: readonly ProjectionMigrationClass[] = [
  CreateReadModel1733000000000,
  CreateAnalyticsOutbox1733100000000,
  GrantReadModel1733900000000,
  VerifyRecords1734000000000,
  CreateOutboxLeases1796000500100,
  ProjectionIncidents1796000700000,
  AppliedAtClock1797010000000,
  AnalyticsOutboxReferences1797040000000,
  AsOfIndexes1799000100000,
];

/** The timestamp a migration's name ends with (TypeORM's convention: `<Name><13-digit ms>`). */
function migrationTimestamp(name: string): number {
  const m = /(\d{13})$/.exec(name);
  if (!m) throw new ProjectionError('PROJECTION.BAD_CONFIG', `migration ${name} does not end with a 13-digit timestamp`, { migration: name });
  return Number(m[1]);
}

/**
 * Every migration of a read-model schema, oldest first: the engine's ({@link ENGINE_MIGRATIONS})
 * and the read model's (`readModel`, e.g. `READ_MODEL_MIGRATIONS` of `@ledger/read-model`), each
 * once, ordered by the timestamp their name ends with. Each takes the target schema as its only
 * constructor argument (default `read`), so the same classes build the live schema and a scratch
 * schema for a side-by-side rebuild. They are idempotent (`IF NOT EXISTS`), so a TypeORM
 * DataSource may also list them, but {@link runProjectionMigrations} is the supported way.
 * @throws ProjectionError `PROJECTION.BAD_CONFIG` when a name has no timestamp or two names share one
 */
export function projectionMigrations(readModel: readonly ProjectionMigrationClass[]): ProjectionMigrationClass[] {
  const all = [...new Set([...ENGINE_MIGRATIONS, ...readModel])].map((M) => ({ M, name: new M(DEFAULT_READ_SCHEMA).name }));
  const at = new Map<number, string>();
  for (const { name } of all) {
    const t = migrationTimestamp(name);
    const other = at.get(t);
    if (other) throw new ProjectionError('PROJECTION.BAD_CONFIG', `migrations ${other} and ${name} share the timestamp ${t}`, { migration: name });
    at.set(t, name);
  }
  return all.sort((a, b) => migrationTimestamp(a.name) - migrationTimestamp(b.name)).map((x) => x.M);
}

/** Result of {@link runProjectionMigrations}. */
export interface ProjectionMigrationsResult {
  readonly schema: string;
  /** Names of the migrations run now (empty when the schema was up to date). */
  readonly applied: string[];
}

/**
 * Brings a read-model schema up to date (never `synchronize`): runs what is not yet recorded of
 * {@link projectionMigrations}`(options.migrations)`, oldest first.
 *
 * The read model keeps its own migration ledger, `<schema>.migrations`, so that (a) a scratch
 * schema carries its own version and (b) dropping a schema drops its history with it; the
 * write side's TypeORM `migrations` table is not touched. Runs in one transaction under a
 * transaction-level advisory lock, so concurrent starters (two projector instances) serialise and
 * the second finds nothing to do.
 *
 * @param ds an initialised PostgreSQL DataSource
 * @param options.schema target schema; `read` by default
 * @param options.migrations the read model's migrations (`READ_MODEL_MIGRATIONS` of `@ledger/read-model`); the engine's own always run too
 * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME`, `PROJECTION.BAD_CONFIG`; database errors roll everything back
 */
export async function runProjectionMigrations(ds: DataSource, options: { readonly schema?: string; readonly migrations: readonly ProjectionMigrationClass[] }): Promise<ProjectionMigrationsResult> {
  const schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
  const migrations = projectionMigrations(options.migrations);
  const q = ds.createQueryRunner();
  const applied: string[] = [];
  try {
    await q.connect();
    await q.startTransaction();
    await q.query(`SELECT pg_advisory_xact_lock(hashtext('ledger-projections-migrate'), hashtext($1))`, [schema]);
    await q.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "${schema}".migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set<string>((await q.query(`SELECT name FROM "${schema}".migrations`)).map((r: { name: string }) => r.name));
    for (const M of migrations) {
      const m = new M(schema);
      if (done.has(m.name)) continue;
      await m.up(q);
      await q.query(`INSERT INTO "${schema}".migrations (name) VALUES ($1)`, [m.name]);
      applied.push(m.name);
    }
    await q.commitTransaction();
  } catch (e) {
    if (q.isTransactionActive) await q.rollbackTransaction();
    throw e;
  } finally {
    await q.release();
  }
  return { schema, applied };
}

/**
 * Drops a read-model schema and everything in it (tests, rebuilds). The live `read` schema is
 * dropped only when `allowLive` is set.
 * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME`
 */
export async function dropProjectionSchema(ds: DataSource, schema: string, options: { allowLive?: boolean } = {}): Promise<void> {
  assertSchemaName(schema);
  if (schema === DEFAULT_READ_SCHEMA && !options.allowLive) {
    throw new ProjectionError('PROJECTION.BAD_SCHEMA_NAME', `refusing to drop the live schema "${schema}" without allowLive`);
  }
  await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
