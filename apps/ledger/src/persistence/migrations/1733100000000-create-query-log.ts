import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `query_log`: who looked at what. Every read of the audit and reconciliation API appends a row
 * ("every audit query is itself recorded", docs/guarantees.md §9). Append-only like `events`.
 */
export class CreateQueryLog1733100000000 implements MigrationInterface {
  name = 'CreateQueryLog1733100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS query_log (
        id           bigserial   PRIMARY KEY,
        at           timestamptz NOT NULL DEFAULT now(),
        actor_id     text        NOT NULL,
        actor_role   text        NOT NULL,
        route        text        NOT NULL,
        params       jsonb       NOT NULL,
        result_count integer,
        status       integer     NOT NULL,
        correlation_id text
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS query_log_actor_idx ON query_log (actor_id, at)`);
    await q.query(`CREATE INDEX IF NOT EXISTS query_log_at_idx ON query_log (at)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION query_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger: % on "query_log" refused: the table is append-only', TG_OP USING ERRCODE = 'LA001';
      END $$`);
    await q.query(`DROP TRIGGER IF EXISTS query_log_no_change ON query_log`);
    await q.query(`CREATE TRIGGER query_log_no_change BEFORE UPDATE OR DELETE ON query_log FOR EACH ROW EXECUTE FUNCTION query_log_append_only()`);
    await q.query(`DROP TRIGGER IF EXISTS query_log_no_truncate ON query_log`);
    await q.query(`CREATE TRIGGER query_log_no_truncate BEFORE TRUNCATE ON query_log FOR EACH STATEMENT EXECUTE FUNCTION query_log_append_only()`);
  }

  async down(): Promise<void> {
    throw new Error('query_log is an audit record: it is never dropped by a migration');
  }
}
