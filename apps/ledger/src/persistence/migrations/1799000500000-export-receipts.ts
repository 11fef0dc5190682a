import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `export_receipts` (docs/reports.md §5, "The bundle"): one row per export the API streamed to its
 * end, written after the last byte and before the response ends: which export (`kind`, `format`,
 * the period as asked, the `positions` it covered), who asked, and what was sent (`rows`, `bytes`,
 * the SHA-256 of the body, the report `header`; `positions` and `header` as the JSON text written).
 * `GET /exports/manifest` signs a bundle's manifest from these rows only, never from hashes a client
 * reports, so an exporter cannot have other bytes signed than the API sent. Append-only like
 * `integrity_incidents`: the API may insert and read, nobody may update, delete or truncate
 * (triggers, the owner too); the projector and relay logins have no access.
 */
export class ExportReceipts1799000500000 implements MigrationInterface {
  name = 'ExportReceipts1799000500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS export_receipts (
        id          uuid        PRIMARY KEY,
        at          timestamptz NOT NULL DEFAULT now(),
        actor_id    text        NOT NULL,
        actor_role  text        NOT NULL,
        kind        text        NOT NULL,
        format      text        NOT NULL CHECK (format IN ('jsonl', 'csv')),
        period_from text        NOT NULL,
        period_to   text        NOT NULL,
        positions   text        NOT NULL,
        header      text        NOT NULL,
        rows        bigint      NOT NULL CHECK (rows >= 0),
        bytes       bigint      NOT NULL CHECK (bytes >= 0),
        sha256      char(64)    NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$')
      )`);
    await q.query(`DROP TRIGGER IF EXISTS export_receipts_no_change ON export_receipts`);
    await q.query(`CREATE TRIGGER export_receipts_no_change BEFORE UPDATE OR DELETE ON export_receipts FOR EACH ROW EXECUTE FUNCTION gaming_day_closes_append_only()`);
    await q.query(`DROP TRIGGER IF EXISTS export_receipts_no_truncate ON export_receipts`);
    await q.query(`CREATE TRIGGER export_receipts_no_truncate BEFORE TRUNCATE ON export_receipts FOR EACH STATEMENT EXECUTE FUNCTION gaming_day_closes_append_only()`);
    await q.query(`
      DO $$
      DECLARE r text;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON export_receipts FROM ledger_app;
        GRANT SELECT, INSERT ON export_receipts TO ledger_app;
        FOREACH r IN ARRAY ARRAY['ledger_relay', 'ledger_projector'] LOOP
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('REVOKE ALL ON export_receipts FROM %I', r);
          END IF;
        END LOOP;
      END
      $$`);
  }

  async down(): Promise<void> {
    throw new Error('export_receipts is evidence of what was exported: this migration is not reverted');
  }
}
