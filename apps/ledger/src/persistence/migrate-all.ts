import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '@ledger/event-store';
import { runProjectionMigrations } from '@ledger/projections';
import { PROJECTION_MIGRATIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';
import type { DatabaseSessionSettings } from '@ledger/infra';
import { first, rows } from '../kernel/sql';
import { CreateQueryLog1733100000000 } from './migrations/1733100000000-create-query-log';
import { GrantQueryLog1733100000001 } from './migrations/1733100000001-grant-query-log';
import { CreateStreamSnapshots1797020000100 } from './migrations/1797020000100-create-stream-snapshots';
import { EventsRecordedAtBrin1799000300000 } from './migrations/1799000300000-events-recorded-at-brin';
import { CreateWalletMatch1799000200000 } from './migrations/1799000200000-create-wallet-match';
import { CreateGamingDayCloses1799000100000 } from './migrations/1799000100000-create-gaming-day-closes';
import { GrantGamingDayCloses1799000100001 } from './migrations/1799000100001-grant-gaming-day-closes';
import { ClosesAreEvents1799000400000 } from './migrations/1799000400000-closes-are-events';
import { IntegrityIncidents1799000400001 } from './migrations/1799000400001-integrity-incidents';
import { ExportReceipts1799000500000 } from './migrations/1799000500000-export-receipts';
import { WalletMatchRetention1799200000000 } from './migrations/1799200000000-wallet-match-retention';
import { EvidenceChains1799300000000 } from './migrations/1799300000000-evidence-chains';
import { ExportReceiptSeals1799300000001 } from './migrations/1799300000001-export-receipt-seals';
import { WalletStagingTemp1799400000000 } from './migrations/1799400000000-wallet-staging-temp';
import { WalletValues1799600000000 } from './migrations/1799600000000-wallet-values';

/**
 * The API's migrations beside the event store's, in the same TypeORM `migrations` table: the query
 * log (docs/guarantees.md §12), the shoe snapshots, the gaming-day closes (docs/reports.md §2), the
 * wallet match runs (docs/reports.md §4), the index the exports read by time and the exports' receipts and their seals (docs/reports.md §5), the wallet items' retention (docs/reports.md §4.5),
 * the evidence chains of the access log and the wallet runs (docs/guarantees.md §9) and the wallet upload's staging right (TEMPORARY, docs/reports.md §4.5).
 */
export const API_EXTRA_MIGRATIONS = [
  CreateQueryLog1733100000000,
  GrantQueryLog1733100000001,
  CreateStreamSnapshots1797020000100,
  CreateGamingDayCloses1799000100000,
  GrantGamingDayCloses1799000100001,
  CreateWalletMatch1799000200000,
  EventsRecordedAtBrin1799000300000,
  ClosesAreEvents1799000400000,
  IntegrityIncidents1799000400001,
  ExportReceipts1799000500000,
  WalletMatchRetention1799200000000,
  EvidenceChains1799300000000,
  ExportReceiptSeals1799300000001,
  WalletStagingTemp1799400000000,
  WalletValues1799600000000,
];

/** The schemas {@link migrateAll} brings up to date, in the order it runs them. */
export type MigratedSchema = 'event-store' | 'read-model';

/** What {@link migrateAll} ran, per schema, in order. */
export interface MigrateAllResult {
  /** Event store, query log and shoe snapshots (TypeORM's `public.migrations`). */
  readonly eventStore: string[];
  /** The read model (`<readSchema>.migrations`). */
  readonly readModel: string[];
}

/** Applied and pending migration names of one schema (see {@link migrationStatus}). */
export interface SchemaMigrationStatus {
  readonly schema: MigratedSchema;
  /** The database schema: `public` or the read-model schema. */
  readonly dbSchema: string;
  readonly applied: string[];
  readonly pending: string[];
}

/**
 * A DataSource as the owner role carrying every migration of the write side (event store, query
 * log, shoe snapshots), not initialised (docs/architecture.md §10: only the owner migrates).
 * @param url the owner's URL (`MIGRATIONS_DATABASE_URL`)
 */
export function ownerDataSource(url: string, session?: DatabaseSessionSettings): DataSource {
  return createDataSource(url, { extraMigrations: API_EXTRA_MIGRATIONS, poolSize: 2, applicationName: 'ledger-migrations', session });
}

/**
 * Runs every schema's migrations in order on its own short-lived owner connection: first the event
 * store with the query log and shoe snapshots (under the event store's advisory lock), then the read
 * model `readSchema` (under its own). Idempotent: a second call runs nothing. Used by the API's start
 * (`RUN_MIGRATIONS`) and by `npm run migration:run` (docs/architecture.md §5, §10).
 * @param url the owner's connection URL (`MIGRATIONS_DATABASE_URL`)
 * @param readSchema the read-model schema (`PROJECTIONS_SCHEMA`, default `read`)
 * @throws whatever a migration throws (SQLSTATE `LA002` when the roles are missing or `url` is not the owner's); `PROJECTION.BAD_SCHEMA_NAME`
 */
export async function migrateAll(url: string, readSchema: string, session?: DatabaseSessionSettings): Promise<MigrateAllResult> {
  const owner = ownerDataSource(url, session);
  await owner.initialize();
  try {
    const eventStore = await runMigrations(owner);
    const readModel = (await runProjectionMigrations(owner, { schema: readSchema, migrations: READ_MODEL_MIGRATIONS })).applied;
    return { eventStore, readModel };
  } finally {
    await owner.destroy();
  }
}

/**
 * Applied and pending migrations of every schema, in {@link migrateAll}'s order; reads only.
 * A schema not created yet has everything pending.
 * @param url the owner's connection URL; @param readSchema as {@link migrateAll}
 */
export async function migrationStatus(url: string, readSchema: string, session?: DatabaseSessionSettings): Promise<SchemaMigrationStatus[]> {
  const owner = ownerDataSource(url, session);
  await owner.initialize();
  try {
    const names = async (table: string): Promise<Set<string>> => {
      const found = await first<{ t: boolean }>(owner, `SELECT to_regclass($1) IS NOT NULL AS t`, [table]);
      if (!found?.t) return new Set();
      return new Set((await rows<{ name: string }>(owner, `SELECT name FROM ${table}`)).map((r) => r.name));
    };
    const split = (all: string[], done: Set<string>) => ({ applied: all.filter((n) => done.has(n)), pending: all.filter((n) => !done.has(n)) });
    const writeSide = owner.migrations.map((m) => m.name ?? m.constructor.name);
    const readSide = PROJECTION_MIGRATIONS.map((M) => new M(readSchema).name);
    return [
      { schema: 'event-store', dbSchema: 'public', ...split(writeSide, await names('public.migrations')) },
      { schema: 'read-model', dbSchema: readSchema, ...split(readSide, await names(`"${readSchema}".migrations`)) },
    ];
  } finally {
    await owner.destroy();
  }
}
