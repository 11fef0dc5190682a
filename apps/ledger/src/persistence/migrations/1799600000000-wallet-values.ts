import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The wallet's own values where a wallet row differs from the ledger (docs/reports.md §4): before,
 * an item said only *which* fields differ (`differences`); now `wallet_values` (jsonb, by field:
 * `currency`, `type`, `betId`, `roundId`, `accountId`; the amount is `wallet_amount`) says what the
 * wallet booked there, `{}` when nothing but the amount differs or nothing does.
 *
 * The column is part of the run's evidence (docs/anchors.md "The evidence chains"): an item stored
 * from now on is digested with the tag `wallet_match_items/2` and a 16th field, `wallet_values` as
 * PostgreSQL prints the jsonb; an item stored before (its `wallet_values` null) keeps the tag
 * `wallet_match_items/1` and its 15 fields, so every recorded run's `items_sha256` still holds.
 * Clearing a stored item's values changes its body (tag and fields), so the verifier sees it.
 * `ledger_add_wallet_items` (same signature, so `ledger_app` keeps EXECUTE) stores the values,
 * `{}` when a caller gives none. Run as `ledger_owner`.
 */
export class WalletValues1799600000000 implements MigrationInterface {
  name = 'WalletValues1799600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE wallet_match_items ADD COLUMN IF NOT EXISTS wallet_values jsonb`);
    await q.query(ITEMS_DIGEST_SQL);
    await q.query(ADD_ITEMS_SQL);
  }

  async down(): Promise<void> {
    throw new Error('the wallet values are digested into recorded wallet runs: this migration is not reverted');
  }
}

/** The 15 fields of an item's `/1` body (as text). */
const FIELDS_1 = `i.run_id::text, i.seq::text, i.status, i.transaction_id, i.type, i.bet_id, i.round_id, i.account_id, i.currency,
  to_char(i.gaming_day, 'YYYY-MM-DD'), i.ledger_amount::text, i.wallet_amount::text, i.wallet_line::text,
  ledger_evidence_ts(i.wallet_time), i.differences::text`;

/** `ledger_wallet_items_digest`: each item by its tag, `/1` without wallet values, `/2` with them (libs/anchors/src/evidence-chains.ts computes the same). */
const ITEMS_DIGEST_SQL = `
CREATE OR REPLACE FUNCTION ledger_wallet_items_digest(p_run uuid) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(coalesce(string_agg(sha256(convert_to(
           CASE WHEN i.wallet_values IS NULL THEN ledger_evidence_body('wallet_match_items/1', ARRAY[${FIELDS_1}])
                ELSE ledger_evidence_body('wallet_match_items/2', ARRAY[${FIELDS_1}, i.wallet_values::text]) END,
         'UTF8')), ''::bytea ORDER BY i.seq), ''::bytea)), 'hex')
    FROM wallet_match_items i WHERE i.run_id = p_run $$`;

/** `ledger_add_wallet_items` with the wallet values (`{}` when absent). */
const ADD_ITEMS_SQL = `
CREATE OR REPLACE FUNCTION ledger_add_wallet_items(p_run_id uuid, p_items json) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM wallet_match_runs WHERE run_id = p_run_id) THEN
    RAISE EXCEPTION 'ledger: wallet run % is recorded: its items are sealed', p_run_id USING ERRCODE = 'LA001';
  END IF;
  INSERT INTO wallet_match_items (run_id, seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day,
                                  ledger_amount, wallet_amount, wallet_line, wallet_time, differences, wallet_values)
  SELECT p_run_id, x.seq, x.status, x.transaction_id, x.type, x.bet_id, x.round_id, x.account_id, x.currency, x.gaming_day,
         x.ledger_amount, x.wallet_amount, x.wallet_line, x.wallet_time,
         CASE WHEN x.differences = '' THEN '{}'::text[] ELSE string_to_array(x.differences, ',') END,
         coalesce(x.wallet_values, '{}'::jsonb)
    FROM json_to_recordset(p_items) AS x(seq integer, status text, transaction_id text, type text, bet_id text, round_id text, account_id text,
         currency text, gaming_day date, ledger_amount bigint, wallet_amount bigint, wallet_line integer, wallet_time timestamptz, differences text,
         wallet_values jsonb);
END $$`;
