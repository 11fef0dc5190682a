import 'reflect-metadata';
import { DataSource, type MigrationInterface } from 'typeorm';
import { loadConfig, MigrationCliEnv } from '@ledger/config';
import { databaseSessionSettings, pgPoolConfig, type DatabaseSessionSettings } from '@ledger/infra';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { DEFAULT_DATABASE_URL } from './constants';

/**
 * Advisory lock key held while migrations run, so that two processes starting at once (the API and the
 * relay, two test suites, two replicas) do not both try to create the same tables. Arbitrary constant.
 */
export const MIGRATION_LOCK_KEY = '7305176422193148001';

/** Options of {@link createDataSource}. */
export interface DataSourceOptions {
  /** Migrations to register after the event store's own (projections add theirs). @default [] */
  readonly extraMigrations?: ReadonlyArray<new () => MigrationInterface>;
  /** Maximum pool connections. @default 10 */
  readonly poolSize?: number;
  /** `application_name` shown in `pg_stat_activity`. @default 'ledger' */
  readonly applicationName?: string;
  /**
   * Statement, idle-in-transaction, connect/acquire timeouts and keepalives of every session of the
   * pool (`@ledger/infra`'s `pgPoolConfig`). @default the process's (`currentDatabaseSessionSettings()`)
   */
  readonly session?: DatabaseSessionSettings;
}

/**
 * A TypeORM `DataSource` for the ledger's PostgreSQL database, not yet initialised.
 *
 * Schema changes go through migrations only: `synchronize` is off, and so is `migrationsRun` (the
 * caller runs {@link runMigrations} explicitly, under an advisory lock, where it wants them).
 * No entities: the store speaks SQL.
 *
 * @param url connection URL (the process's validated `DATABASE_URL`) @default {@link DEFAULT_DATABASE_URL}
 * @param options pool size, application name, extra migrations
 */
export function createDataSource(url?: string, options: DataSourceOptions = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url: url ?? DEFAULT_DATABASE_URL,
    synchronize: false,
    migrationsRun: false,
    migrations: [...EVENT_STORE_MIGRATIONS, ...(options.extraMigrations ?? [])],
    migrationsTableName: 'migrations',
    entities: [],
    logging: false,
    poolSize: options.poolSize ?? 10,
    applicationName: options.applicationName ?? 'ledger',
    // timeouts and keepalives on every session (docs/architecture.md §5)
    extra: pgPoolConfig(options.poolSize ?? 10, options.session, url ?? DEFAULT_DATABASE_URL),
  });
}

/**
 * Runs the pending migrations of `ds` (each in its own transaction) while holding the advisory lock
 * {@link MIGRATION_LOCK_KEY}, so concurrent callers wait and then find nothing left to do. Idempotent.
 *
 * @param ds an initialised DataSource (see {@link createDataSource}); initialised here if it is not
 * @returns the names of the migrations that this call ran (empty when the schema was up to date)
 * @throws the migration's error; the failing migration's transaction is rolled back
 */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  if (!ds.isInitialized) await ds.initialize();
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}

/** Whether this module was loaded by the TypeORM CLI (`npm run migration:run:event-store`), the only process it configures itself. */
function loadedByTypeormCli(): boolean {
  return /[\\/]typeorm[\\/]cli\.js$/.test(require.main?.filename ?? '');
}

/**
 * The DataSource the TypeORM CLI loads (`npm run migration:run:event-store`: `typeorm migration:run -d
 * libs/event-store/src/data-source.ts`, the event store's own migrations only; `npm run migration:run`
 * migrates every schema, scripts/migrate.ts). The only DataSource instance this module exports: the CLI
 * refuses a file with two. In the CLI it reads the validated `MIGRATIONS_DATABASE_URL`, the owner
 * role (default `DATABASE_URL` with the login `ledger_owner`; docs/architecture.md §5 and §10; a bad
 * value stops the CLI naming it); imported by anything else it reads nothing and is never
 * initialised (the application creates its own with {@link createDataSource}).
 */
export default loadedByTypeormCli() ? cliDataSource() : createDataSource(undefined);

function cliDataSource(): DataSource {
  const env = loadConfig(MigrationCliEnv, process.env);
  return createDataSource(env.MIGRATIONS_DATABASE_URL, { session: databaseSessionSettings(env, 'migrations') });
}
