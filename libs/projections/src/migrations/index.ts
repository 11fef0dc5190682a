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
import { AuditKeysetIndexes1797020000000 } from './1797020000000-audit-keyset-indexes';
import { AnalyticsOutboxReferences1797040000000 } from './1797040000000-analytics-outbox-references';
import { AsOfIndexes1799000100000 } from './1799000100000-as-of-indexes';
import { LedgerEntries1799000200000 } from './1799000200000-ledger-entries';
import { LedgerWideEvents1799000400000 } from './1799000400000-ledger-wide-events';

export { CreateReadModel1733000000000, createReadModelSql } from './1733000000000-create-read-model';
export { CreateAnalyticsOutbox1733100000000, createAnalyticsOutboxSql } from './1733100000000-create-analytics-outbox';
export { GrantReadModel1733900000000, grantReadModelSql } from './1733900000000-grant-read-model';
export { VerifyRecords1734000000000, verifyRecordsSql, QUARANTINE_MAX_VALUE_BYTES } from './1734000000000-verify-records';
export { CreateOutboxLeases1796000500100, createOutboxLeasesSql, grantOutboxLeasesSql } from './1796000500100-create-outbox-leases';
export { ProjectionIncidents1796000700000, projectionIncidentsSql } from './1796000700000-projection-incidents';
export { AppliedAtClock1797010000000, appliedAtClockSql } from './1797010000000-applied-at-clock';
export { AuditKeysetIndexes1797020000000, auditKeysetIndexesSql, AUDIT_DECISION_TYPES, AUDIT_KEYSET_INDEX_NAMES } from './1797020000000-audit-keyset-indexes';
export { AnalyticsOutboxReferences1797040000000, analyticsOutboxReferencesSql } from './1797040000000-analytics-outbox-references';
export { AsOfIndexes1799000100000, asOfIndexesSql } from './1799000100000-as-of-indexes';
export { LedgerEntries1799000200000, ledgerEntriesGrantsSql, ledgerEntriesSql } from './1799000200000-ledger-entries';
export { LedgerWideEvents1799000400000, ledgerWideEventsSql } from './1799000400000-ledger-wide-events';

/** A migration class of the read model: constructed with the target schema (default `read`). */
export type ProjectionMigrationClass = new (schema?: string) => MigrationInterface & { readonly name: string };

/**
 * Every migration of the read model, oldest first. Each takes the target schema as its only
 * constructor argument (default `read`), so the same classes build the live schema and a
 * scratch schema for a side-by-side rebuild. They are idempotent (`IF NOT EXISTS`), so a TypeORM
 * DataSource may also list them, but {@link runProjectionMigrations} is the supported way.
 */
export const PROJECTION_MIGRATIONS: readonly ProjectionMigrationClass[] = [
  CreateReadModel1733000000000,
  CreateAnalyticsOutbox1733100000000,
  GrantReadModel1733900000000,
  VerifyRecords1734000000000,
  CreateOutboxLeases1796000500100,
  ProjectionIncidents1796000700000,
  AppliedAtClock1797010000000,
  AuditKeysetIndexes1797020000000,
  AnalyticsOutboxReferences1797040000000,
  AsOfIndexes1799000100000,
  LedgerEntries1799000200000,
  LedgerWideEvents1799000400000,
];

/** Result of {@link runProjectionMigrations}. */
export interface ProjectionMigrationsResult {
  readonly schema: string;
  /** Names of the migrations run now (empty when the schema was up to date). */
  readonly applied: string[];
}

/**
 * Brings a read-model schema up to date (never `synchronize`).
 *
 * The read model keeps its own migration ledger, `<schema>.migrations`, so that (a) a scratch
 * schema carries its own version and (b) dropping a schema drops its history with it; the
 * write side's TypeORM `migrations` table is not touched. Runs in one transaction under a
 * transaction-level advisory lock, so concurrent starters (two projector instances) serialise and
 * the second finds nothing to do.
 *
 * @param ds an initialised PostgreSQL DataSource
 * @param options.schema target schema; `read` by default
 * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME`; database errors roll everything back
 */
export async function runProjectionMigrations(ds: DataSource, options: { schema?: string } = {}): Promise<ProjectionMigrationsResult> {
  const schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
  const q = ds.createQueryRunner();
  const applied: string[] = [];
  try {
    await q.connect();
    await q.startTransaction();
    await q.query(`SELECT pg_advisory_xact_lock(hashtext('ledger-projections-migrate'), hashtext($1))`, [schema]);
    await q.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "${schema}".migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set<string>((await q.query(`SELECT name FROM "${schema}".migrations`)).map((r: { name: string }) => r.name));
    for (const M of PROJECTION_MIGRATIONS) {
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
