import { CommonEnv, WithDatabase, WithMigrationsDatabase, WithReadModel } from './common';

/**
 * The configuration of `npm run migration:run` / `npm run migration:show` (scripts/migrate.ts;
 * docs/architecture.md §5): it migrates as the owner, `MIGRATIONS_DATABASE_URL` (default
 * `DATABASE_URL` with the login `ledger_owner`), the read model into `PROJECTIONS_SCHEMA`.
 * The event store's TypeORM CLI (`npm run migration:run:event-store`) reads the same.
 */
export class MigrationCliEnv extends WithReadModel(WithMigrationsDatabase(WithDatabase(CommonEnv))) {}
