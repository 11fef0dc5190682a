import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The bounds of wallet matching (docs/reports.md §4.5): a retention for the runs' items, and the
 * index the per-caller budget counts by.
 *
 * - `wallet_match_prunes`: one row per run whose items were deleted after the retention (when, how
 *   many, under which retention). Append-only like the runs. The run's own row is never deleted: it
 *   keeps who uploaded which file (SHA-256), the scope, the totals and the summary.
 * - `wallet_match_items` stays append-only, with one way out: `wallet_match_prune(retention_days,
 *   max_runs)` (`SECURITY DEFINER`, the owner's; the API's only right on it is EXECUTE) deletes the
 *   items of up to `max_runs` runs older than `retention_days` (at least 1) and records each in
 *   `wallet_match_prunes`, in the caller's transaction. The items' trigger lets a DELETE through
 *   only for the run the function names in the transaction-local setting `ledger.wallet_prune_run`;
 *   `ledger_app` has no DELETE right at all, so it cannot delete items of a younger run, nor any
 *   run, nor a prune record.
 * - `wallet_match_runs_actor_idx` (`actor_id, created_at`): a caller's runs of the last 24 hours.
 *
 * Run as `ledger_owner`. Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class WalletMatchRetention1799200000000 implements MigrationInterface {
  name = 'WalletMatchRetention1799200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS wallet_match_prunes (
        run_id         uuid        PRIMARY KEY REFERENCES wallet_match_runs (run_id),
        pruned_at      timestamptz NOT NULL DEFAULT now(),
        items_deleted  integer     NOT NULL CHECK (items_deleted >= 0),
        retention_days integer     NOT NULL CHECK (retention_days >= 1)
      )`);
    await q.query(`DROP TRIGGER IF EXISTS wallet_match_prunes_no_change ON wallet_match_prunes`);
    await q.query(`CREATE TRIGGER wallet_match_prunes_no_change BEFORE UPDATE OR DELETE ON wallet_match_prunes FOR EACH ROW EXECUTE FUNCTION wallet_match_append_only()`);
    await q.query(`DROP TRIGGER IF EXISTS wallet_match_prunes_no_truncate ON wallet_match_prunes`);
    await q.query(`CREATE TRIGGER wallet_match_prunes_no_truncate BEFORE TRUNCATE ON wallet_match_prunes FOR EACH STATEMENT EXECUTE FUNCTION wallet_match_append_only()`);
    await q.query(`CREATE INDEX IF NOT EXISTS wallet_match_runs_actor_idx ON wallet_match_runs (actor_id, created_at)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_match_items_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('ledger.wallet_prune_run', true) = OLD.run_id::text THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'ledger: % on "%" refused: the table is append-only (items leave only through wallet_match_prune)', TG_OP, TG_TABLE_NAME USING ERRCODE = 'LA001';
      END $$`);
    await q.query(`DROP TRIGGER IF EXISTS wallet_match_items_no_change ON wallet_match_items`);
    await q.query(`CREATE TRIGGER wallet_match_items_no_change BEFORE UPDATE OR DELETE ON wallet_match_items FOR EACH ROW EXECUTE FUNCTION wallet_match_items_guard()`);
    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_match_prune(p_retention_days integer, p_max_runs integer)
      RETURNS TABLE (pruned_run_id uuid, pruned_items integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
      DECLARE
        r record;
        n integer;
      BEGIN
        IF p_retention_days IS NULL OR p_retention_days < 1 THEN
          RAISE EXCEPTION 'wallet_match_prune: the retention is at least 1 day' USING ERRCODE = '22023';
        END IF;
        FOR r IN
          SELECT w.run_id FROM wallet_match_runs w
           WHERE w.created_at < now() - make_interval(days => p_retention_days)
             AND NOT EXISTS (SELECT 1 FROM wallet_match_prunes p WHERE p.run_id = w.run_id)
           ORDER BY w.created_at, w.run_id
           LIMIT greatest(coalesce(p_max_runs, 0), 0)
           FOR UPDATE OF w SKIP LOCKED
        LOOP
          PERFORM set_config('ledger.wallet_prune_run', r.run_id::text, true);
          DELETE FROM wallet_match_items i WHERE i.run_id = r.run_id;
          GET DIAGNOSTICS n = ROW_COUNT;
          PERFORM set_config('ledger.wallet_prune_run', '', true);
          INSERT INTO wallet_match_prunes (run_id, items_deleted, retention_days) VALUES (r.run_id, n, p_retention_days) ON CONFLICT DO NOTHING;
          pruned_run_id := r.run_id;
          pruned_items := n;
          RETURN NEXT;
        END LOOP;
      END $fn$`);
    await q.query(`
      DO $$
      DECLARE r text;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON wallet_match_prunes FROM ledger_app;
        GRANT SELECT ON wallet_match_prunes TO ledger_app;
        REVOKE ALL ON FUNCTION wallet_match_prune(integer, integer) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION wallet_match_prune(integer, integer) TO ledger_app;
        FOREACH r IN ARRAY ARRAY['ledger_relay', 'ledger_projector'] LOOP
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('REVOKE ALL ON wallet_match_prunes FROM %I', r);
          END IF;
        END LOOP;
      END
      $$`);
  }

  async down(): Promise<void> {
    throw new Error('wallet match prunes are a record of what was deleted: this migration is not reverted');
  }
}
