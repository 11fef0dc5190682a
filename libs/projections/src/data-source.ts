import { DataSource } from 'typeorm';

/** Default database of the projector: the local stack's `ledger` database, as the projector's role `ledger_projector` (docs/architecture.md §10). */
export const DEFAULT_DATABASE_URL = 'postgres://ledger_projector:ledger_projector@127.0.0.1:5432/ledger';

/**
 * A TypeORM DataSource for the read side: PostgreSQL, no entities (projections write raw SQL),
 * `synchronize` off, no automatic migrations (run {@link runProjectionMigrations}). Not initialised.
 *
 * @param url `postgres://user:pass@host:port/db`
 * @param options.applicationName shown in `pg_stat_activity.application_name` (tests use it to find the projector's sessions)
 * @param options.poolSize max connections. @default 10
 */
export function createProjectionDataSource(url: string = DEFAULT_DATABASE_URL, options: { applicationName?: string; poolSize?: number } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: [],
    migrations: [],
    synchronize: false,
    migrationsRun: false,
    logging: false,
    applicationName: options.applicationName ?? 'ledger-projections',
    extra: { max: options.poolSize ?? 10 },
  });
}
