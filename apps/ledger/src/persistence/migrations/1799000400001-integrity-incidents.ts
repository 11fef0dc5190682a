import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `integrity_incidents` (docs/reports.md §2): one row each time the API refuses to sign figures
 * because the read model disagrees with the verified events (`READ_MODEL_DIVERGED`): when, what
 * (`kind`, the error `code`), about what (`subject`: the gaming day and tables) and the details (the
 * disagreements found). Append-only like `gaming_day_closes`: the API may insert and read, nobody
 * may update, delete or truncate (triggers, the owner too); the projector and relay logins have no
 * access, so the login that could poison the read model cannot hide that it did.
 */
export class IntegrityIncidents1799000400001 implements MigrationInterface {
  name = 'IntegrityIncidents1799000400001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS integrity_incidents (
        id          bigserial   PRIMARY KEY,
        at          timestamptz NOT NULL DEFAULT now(),
        kind        text        NOT NULL,
        code        text        NOT NULL,
        subject     text        NOT NULL,
        details     jsonb       NOT NULL
      )`);
    await q.query(`DROP TRIGGER IF EXISTS integrity_incidents_no_change ON integrity_incidents`);
    await q.query(`CREATE TRIGGER integrity_incidents_no_change BEFORE UPDATE OR DELETE ON integrity_incidents FOR EACH ROW EXECUTE FUNCTION gaming_day_closes_append_only()`);
    await q.query(`DROP TRIGGER IF EXISTS integrity_incidents_no_truncate ON integrity_incidents`);
    await q.query(`CREATE TRIGGER integrity_incidents_no_truncate BEFORE TRUNCATE ON integrity_incidents FOR EACH STATEMENT EXECUTE FUNCTION gaming_day_closes_append_only()`);
    await q.query(`
      DO $$
      DECLARE r text;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON integrity_incidents FROM ledger_app;
        GRANT SELECT, INSERT ON integrity_incidents TO ledger_app;
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO ledger_app', pg_get_serial_sequence('integrity_incidents', 'id'));
        FOREACH r IN ARRAY ARRAY['ledger_relay', 'ledger_projector'] LOOP
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('REVOKE ALL ON integrity_incidents FROM %I', r);
          END IF;
        END LOOP;
      END
      $$`);
  }

  async down(): Promise<void> {
    throw new Error('integrity_incidents is evidence: this migration is not reverted');
  }
}
