import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `gaming_day_closes` and `gaming_day_close_tables` for the API's runtime role (docs/reports.md §2;
 * docs/architecture.md §10): `ledger_app` reads them and appends to them (and uses the id
 * sequence); it may not update, delete or truncate them. No other runtime role gets anything.
 * Idempotent. Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class GrantGamingDayCloses1799000100001 implements MigrationInterface {
  name = 'GrantGamingDayCloses1799000100001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE r text;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON gaming_day_closes, gaming_day_close_tables FROM ledger_app;
        GRANT SELECT, INSERT ON gaming_day_closes, gaming_day_close_tables TO ledger_app;
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO ledger_app', pg_get_serial_sequence('gaming_day_closes', 'id'));
        FOREACH r IN ARRAY ARRAY['ledger_relay', 'ledger_projector'] LOOP
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('REVOKE ALL ON gaming_day_closes, gaming_day_close_tables FROM %I', r);
          END IF;
        END LOOP;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`REVOKE ALL ON gaming_day_closes, gaming_day_close_tables FROM ledger_app`);
  }
}
