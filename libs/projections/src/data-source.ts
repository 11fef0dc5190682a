import { DataSource } from 'typeorm';
import { DEFAULT_DATABASE_URL as API_DATABASE_URL, databaseUrlForRole, LEDGER_PROJECTOR_ROLE } from '@ledger/config';
import { pgPoolConfig, type DatabaseSessionSettings } from '@ledger/infra';

/**
 * Default database of the projector: the local stack's `ledger` database as the projector's role
 * `ledger_projector` (docs/architecture.md §10; the default of `PROJECTOR_DATABASE_URL`).
 */
export const DEFAULT_DATABASE_URL = databaseUrlForRole(API_DATABASE_URL, LEDGER_PROJECTOR_ROLE);

/**
 * A TypeORM DataSource for the read side: PostgreSQL, no entities (projections write raw SQL),
 * `synchronize` off, no automatic migrations (run {@link runProjectionMigrations}). Not initialised.
 *
 * @param url `postgres://user:pass@host:port/db` (the process's validated `PROJECTOR_DATABASE_URL`, or `MIGRATIONS_DATABASE_URL` for migrations and rebuilds; docs/architecture.md §5)
 * @param options.applicationName shown in `pg_stat_activity.application_name` (tests use it to find the projector's sessions)
 * @param options.poolSize max connections. @default 10
 * @param options.session timeouts and keepalives of every session (`@ledger/infra`'s `pgPoolConfig`; docs/architecture.md §5). @default the process's (`currentDatabaseSessionSettings()`)
 */
export function createProjectionDataSource(url: string = DEFAULT_DATABASE_URL, options: { applicationName?: string; poolSize?: number; session?: DatabaseSessionSettings } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: [],
    migrations: [],
    synchronize: false,
    migrationsRun: false,
    logging: false,
    applicationName: options.applicationName ?? 'ledger-projections',
    extra: pgPoolConfig(options.poolSize ?? 10, options.session, url),
  });
}
