import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The wallet match runs (docs/reports.md §4), owned by the API in the `public` schema (not rebuilt
 * with the projections): `wallet_match_runs` (one row per uploaded file: who, when, the file's
 * SHA-256, format, size and rows, the column mapping, the scope and the summary) and
 * `wallet_match_items` (one row per transaction of the run: its status, both amounts in minor
 * units, the wallet's line). A run and its items are written in one transaction and never changed:
 * both are append-only (triggers refuse UPDATE, DELETE and TRUNCATE, to the owner too).
 *
 * `ledger_app` may SELECT and INSERT only; no other runtime role gets anything. Run as
 * `ledger_owner`. Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class CreateWalletMatch1799000200000 implements MigrationInterface {
  name = 'CreateWalletMatch1799000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS wallet_match_runs (
        run_id          uuid        PRIMARY KEY,
        created_at      timestamptz NOT NULL DEFAULT now(),
        actor_id        text        NOT NULL,
        actor_role      text        NOT NULL,
        format          text        NOT NULL CHECK (format IN ('csv', 'jsonl')),
        file_sha256     text        NOT NULL,
        file_bytes      bigint      NOT NULL,
        file_rows       integer     NOT NULL,
        column_map      jsonb       NOT NULL,
        from_day        date,
        to_day          date,
        period_from     timestamptz,
        period_to       timestamptz,
        scope_source    text        NOT NULL CHECK (scope_source IN ('file', 'explicit', 'period')),
        CHECK ((scope_source = 'period') = (period_from IS NOT NULL AND period_to IS NOT NULL AND from_day IS NULL AND to_day IS NULL)),
        CHECK (scope_source = 'period' OR (from_day IS NOT NULL AND to_day IS NOT NULL)),
        totals          jsonb       NOT NULL,
        summary         jsonb       NOT NULL,
        zero_not_in_file integer    NOT NULL,
        item_count      integer     NOT NULL,
        correlation_id  text
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS wallet_match_runs_created_idx ON wallet_match_runs (created_at DESC, run_id DESC)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS wallet_match_items (
        run_id          uuid     NOT NULL REFERENCES wallet_match_runs (run_id),
        seq             integer  NOT NULL CHECK (seq >= 1),
        status          text     NOT NULL CHECK (status IN ('MATCHED','MISSING_IN_WALLET','MISSING_IN_LEDGER','AMOUNT_DIFFERS','FIELDS_DIFFER','DUPLICATED')),
        transaction_id  text     NOT NULL,
        type            text     NOT NULL CHECK (type IN ('bet','win','refund')),
        bet_id          text,
        round_id        text,
        account_id      text,
        currency        text     NOT NULL,
        gaming_day      date     NOT NULL,
        ledger_amount   bigint,
        wallet_amount   bigint,
        wallet_line     integer,
        wallet_time     timestamptz,
        differences     text[]   NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS wallet_match_items_status_idx ON wallet_match_items (run_id, status, seq)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_match_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger: % on "%" refused: the table is append-only', TG_OP, TG_TABLE_NAME USING ERRCODE = 'LA001';
      END $$`);
    for (const t of ['wallet_match_runs', 'wallet_match_items']) {
      await q.query(`DROP TRIGGER IF EXISTS ${t}_no_change ON ${t}`);
      await q.query(`CREATE TRIGGER ${t}_no_change BEFORE UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION wallet_match_append_only()`);
      await q.query(`DROP TRIGGER IF EXISTS ${t}_no_truncate ON ${t}`);
      await q.query(`CREATE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION wallet_match_append_only()`);
    }
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON wallet_match_runs, wallet_match_items FROM ledger_app;
        GRANT SELECT, INSERT ON wallet_match_runs, wallet_match_items TO ledger_app;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_relay') THEN
          REVOKE ALL ON wallet_match_runs, wallet_match_items FROM ledger_relay;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_projector') THEN
          REVOKE ALL ON wallet_match_runs, wallet_match_items FROM ledger_projector;
        END IF;
      END
      $$`);
  }

  async down(): Promise<void> {
    throw new Error('wallet match runs are a record of what was found: they are never dropped by a migration');
  }
}
