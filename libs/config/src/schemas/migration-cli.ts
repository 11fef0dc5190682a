import { CommonEnv, WithDatabase, WithMigrationsDatabase } from './common';

/**
 * The configuration of `npm run migration:run` (the TypeORM CLI; docs/architecture.md §5): it
 * migrates as the owner, `MIGRATIONS_DATABASE_URL` (default `DATABASE_URL` with the login `ledger_owner`).
 */
export class MigrationCliEnv extends WithMigrationsDatabase(WithDatabase(CommonEnv)) {}
