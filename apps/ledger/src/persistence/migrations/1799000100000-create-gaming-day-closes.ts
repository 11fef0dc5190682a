import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The frozen gaming-day reports (docs/reports.md §2), append-only like `query_log`:
 *
 * - `gaming_day_closes`: one row per close of a gaming day for a table set: the canonical JSON bytes
 *   of its report (`report`, exactly what was signed), their SHA-256, the Ed25519 signature and key
 *   id, the global position it covers, who closed it and when (outside the signed bytes). `scope` is
 *   the events topic the figures were projected from (one per ledger).
 * - `gaming_day_close_tables`: one row per (scope, gaming day, table) closed: the primary key makes
 *   a second close of a table's day impossible, whoever tries (two API instances' sweepers, a
 *   manager), so the close that inserts second rolls back.
 *
 * Triggers refuse UPDATE, DELETE and TRUNCATE on both (to the owner too).
 */
export class CreateGamingDayCloses1799000100000 implements MigrationInterface {
  name = 'CreateGamingDayCloses1799000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS gaming_day_closes (
        id               bigserial   PRIMARY KEY,
        scope            text        NOT NULL,
        gaming_day       date        NOT NULL,
        table_ids        text[]      NOT NULL CHECK (cardinality(table_ids) > 0),
        through_position bigint      NOT NULL CHECK (through_position >= 0),
        report           text        NOT NULL,
        report_sha256    char(64)    NOT NULL CHECK (report_sha256 ~ '^[0-9a-f]{64}$'),
        signature        text        NOT NULL,
        key_id           text        NOT NULL,
        trigger          text        NOT NULL CHECK (trigger IN ('MANAGER', 'AUTOMATIC')),
        closed_by        text        NOT NULL,
        closed_by_role   text        NOT NULL,
        closed_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS gaming_day_closes_day_idx ON gaming_day_closes (scope, gaming_day, id)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS gaming_day_close_tables (
        scope      text   NOT NULL,
        gaming_day date   NOT NULL,
        table_id   text   NOT NULL,
        close_id   bigint NOT NULL REFERENCES gaming_day_closes (id),
        PRIMARY KEY (scope, gaming_day, table_id)
      )`);
    await q.query(`
      CREATE OR REPLACE FUNCTION gaming_day_closes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger: % on "%" refused: the table is append-only', TG_OP, TG_TABLE_NAME USING ERRCODE = 'LA001';
      END $$`);
    for (const t of ['gaming_day_closes', 'gaming_day_close_tables']) {
      await q.query(`DROP TRIGGER IF EXISTS ${t}_no_change ON ${t}`);
      await q.query(`CREATE TRIGGER ${t}_no_change BEFORE UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION gaming_day_closes_append_only()`);
      await q.query(`DROP TRIGGER IF EXISTS ${t}_no_truncate ON ${t}`);
      await q.query(`CREATE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION gaming_day_closes_append_only()`);
    }
  }

  async down(): Promise<void> {
    throw new Error('gaming_day_closes holds signed, booked reports: it is never dropped by a migration');
  }
}
