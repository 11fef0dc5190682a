import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `query_log` for the API's runtime role (docs/guarantees.md §12; docs/architecture.md §10, database
 * roles): `ledger_app` reads it (`GET /audit/access-log`) and appends to it (every audited read), and
 * uses its id sequence; it may not update, delete or truncate it (the triggers refuse those to the
 * owner too). No other runtime role gets anything. Run as `ledger_owner`, the table's owner.
 *
 * Idempotent (takes back, then grants). Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class GrantQueryLog1733100000001 implements MigrationInterface {
  name = 'GrantQueryLog1733100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON query_log FROM ledger_app;
        GRANT SELECT, INSERT ON query_log TO ledger_app;
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO ledger_app', pg_get_serial_sequence('query_log', 'id'));
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_relay') THEN
          REVOKE ALL ON query_log FROM ledger_relay;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_projector') THEN
          REVOKE ALL ON query_log FROM ledger_projector;
        END IF;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`REVOKE ALL ON query_log FROM ledger_app`);
  }
}
