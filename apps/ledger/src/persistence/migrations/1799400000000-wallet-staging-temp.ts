import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The wallet upload's staging (docs/reports.md §4.5): the API stages an upload's rows and items in
 * temporary tables of the upload's transaction (`CREATE TEMP TABLE … ON COMMIT DROP`), so that its
 * memory stays flat in the file's size. That needs the TEMPORARY right on the database, which
 * PostgreSQL grants to PUBLIC by default but a production set-up revokes (docs/operations.md, "Database roles":
 * `REVOKE ALL ON DATABASE … FROM PUBLIC`); it is granted here to `ledger_app` alone. A temporary table
 * is private to its session and lives in `pg_temp`: no right on any table of the ledger comes with it.
 * Idempotent. Run as `ledger_owner`. Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class WalletStagingTemp1799400000000 implements MigrationInterface {
  name = 'WalletStagingTemp1799400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO ledger_app', current_database());
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM ledger_app', current_database()); END $$`);
  }
}
