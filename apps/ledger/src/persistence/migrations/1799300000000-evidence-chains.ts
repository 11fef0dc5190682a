import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The access log (`query_log`) and the wallet match runs (`wallet_match_runs`, `wallet_match_items`)
 * become evidence the API's login cannot shape (docs/guarantees.md §9 and §12, docs/anchors.md "The evidence chains").
 * Before, `ledger_app` held INSERT on those tables: it could write an access-log row or a wallet run
 * with any time and in any order. Now:
 *
 * - each is a **hash chain**: a row carries `seq` (1, 2, 3 … gap-free per chain), `recorded_at`
 *   (stamped by the function with `clock_timestamp()`, never below its predecessor's, never from the
 *   caller), `prev_hash` (its predecessor's `hash`, 64 zeros for seq 1) and `hash` (below);
 * - rows are appended only through `ledger_log_access(…)` and `ledger_add_wallet_items(…)` +
 *   `ledger_record_wallet_run(…)` (SECURITY DEFINER, the owner's), which lock the chain, stamp seq and
 *   time, hash and insert, and move the chain's head in `evidence_heads`; `ledger_app` keeps SELECT
 *   and EXECUTE on those functions only;
 * - a wallet run's items hang off its hash: `items_sha256` (below) is computed by the run function
 *   over the items stored in the same transaction (the items' foreign key is checked at commit), and
 *   no item can be added to a run once it is recorded.
 *
 * **The hash** (`libs/anchors/src/evidence-chains.ts` computes the same in TypeScript):
 * `hash = hex(SHA-256(UTF-8(prev_hash ‖ "|" ‖ tag ‖ "|" ‖ E(f1) ‖ "|" ‖ … ‖ "|" ‖ E(fn))))` where `E(null) = "~"`
 * and `E(text) = <UTF-8 byte length in decimal> ":" text`; the fields are rendered as text: integers
 * in decimal, timestamps `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds), dates `YYYY-MM-DD`,
 * jsonb and text[] as PostgreSQL prints them. Tags and fields, in order:
 * - `query_log/1`: seq, recorded_at, id, at, actor_id, actor_role, route, params, result_count, status, correlation_id;
 * - `wallet_match_runs/1`: seq, recorded_at, run_id, created_at, actor_id, actor_role, format, file_sha256,
 *   file_bytes, file_rows, column_map, from_day, to_day, period_from, period_to, scope_source, totals,
 *   summary, zero_not_in_file, item_count, correlation_id, items_sha256;
 * - `items_sha256 = hex(SHA-256(d1 ‖ d2 ‖ … ‖ dn))` over the run's items in seq order, where
 *   `di = SHA-256(UTF-8("wallet_match_items/1" ‖ "|" ‖ E(f1) ‖ … ))` (32 raw bytes) of the fields run_id,
 *   seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day,
 *   ledger_amount, wallet_amount, wallet_line, wallet_time, differences.
 *
 * Rows written before this migration are chained in `id` order (the access log) and in
 * `(created_at, run_id)` order (the runs); their `recorded_at` is the running maximum of their old
 * time (`at`, `created_at`), which stays as it was. The relay's anchor publisher signs the chains'
 * heads in its checkpoints (streams `evidence:query_log`, `evidence:wallet_match_runs`; it may SELECT
 * the two tables). `npm run -s verify` recomputes every chain from the rows (never trusting a stored
 * hash) and names a row altered, removed, reordered or back-dated, or a chain that no longer gives a
 * signed head.
 */
export const EVIDENCE_HELPERS_SQL = [
  `CREATE TABLE IF NOT EXISTS evidence_heads (
     chain       text        PRIMARY KEY CHECK (chain IN ('query_log', 'wallet_match_runs')),
     seq         bigint      NOT NULL CHECK (seq >= 0),
     hash        text        NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
     recorded_at timestamptz
   )`,
  `CREATE OR REPLACE FUNCTION ledger_evidence_field(v text) RETURNS text LANGUAGE sql IMMUTABLE AS
   $$ SELECT CASE WHEN v IS NULL THEN '~' ELSE octet_length(convert_to(v, 'UTF8'))::text || ':' || v END $$`,
  `CREATE OR REPLACE FUNCTION ledger_evidence_ts(t timestamptz) RETURNS text LANGUAGE sql STABLE AS
   $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$`,
  `CREATE OR REPLACE FUNCTION ledger_evidence_body(p_tag text, p_fields text[]) RETURNS text LANGUAGE sql IMMUTABLE AS
   $$ SELECT p_tag || coalesce((SELECT string_agg('|' || ledger_evidence_field(u.f), '' ORDER BY u.i) FROM unnest(p_fields) WITH ORDINALITY AS u(f, i)), '') $$`,
  `CREATE OR REPLACE FUNCTION ledger_evidence_hash(p_tag text, p_prev text, p_fields text[]) RETURNS text LANGUAGE sql IMMUTABLE AS
   $$ SELECT encode(sha256(convert_to(p_prev || '|' || ledger_evidence_body(p_tag, p_fields), 'UTF8')), 'hex') $$`,
];

/** The columns of the two chains and of the items (added before their functions, which take the row types). */
export const EVIDENCE_COLUMNS_SQL = [
  `ALTER TABLE query_log ADD COLUMN IF NOT EXISTS seq bigint, ADD COLUMN IF NOT EXISTS recorded_at timestamptz,
     ADD COLUMN IF NOT EXISTS prev_hash text, ADD COLUMN IF NOT EXISTS hash text`,
  `ALTER TABLE wallet_match_runs ADD COLUMN IF NOT EXISTS seq bigint, ADD COLUMN IF NOT EXISTS recorded_at timestamptz,
     ADD COLUMN IF NOT EXISTS items_sha256 text, ADD COLUMN IF NOT EXISTS prev_hash text, ADD COLUMN IF NOT EXISTS hash text`,
];

/** The fields each row is hashed over, as text (see the file comment). */
export const EVIDENCE_FIELDS_SQL = [
  `CREATE OR REPLACE FUNCTION ledger_query_log_fields(r query_log) RETURNS text[] LANGUAGE sql STABLE AS $$
   SELECT ARRAY[r.seq::text, ledger_evidence_ts(r.recorded_at), r.id::text, ledger_evidence_ts(r.at), r.actor_id, r.actor_role, r.route,
                r.params::text, r.result_count::text, r.status::text, r.correlation_id] $$`,
  `CREATE OR REPLACE FUNCTION ledger_wallet_run_fields(r wallet_match_runs) RETURNS text[] LANGUAGE sql STABLE AS $$
   SELECT ARRAY[r.seq::text, ledger_evidence_ts(r.recorded_at), r.run_id::text, ledger_evidence_ts(r.created_at), r.actor_id, r.actor_role,
                r.format, r.file_sha256, r.file_bytes::text, r.file_rows::text, r.column_map::text, to_char(r.from_day, 'YYYY-MM-DD'),
                to_char(r.to_day, 'YYYY-MM-DD'), ledger_evidence_ts(r.period_from), ledger_evidence_ts(r.period_to), r.scope_source,
                r.totals::text, r.summary::text, r.zero_not_in_file::text, r.item_count::text, r.correlation_id, r.items_sha256] $$`,
  `CREATE OR REPLACE FUNCTION ledger_wallet_items_digest(p_run uuid) RETURNS text LANGUAGE sql STABLE AS $$
   SELECT encode(sha256(coalesce(string_agg(sha256(convert_to(ledger_evidence_body('wallet_match_items/1', ARRAY[
            i.run_id::text, i.seq::text, i.status, i.transaction_id, i.type, i.bet_id, i.round_id, i.account_id, i.currency,
            to_char(i.gaming_day, 'YYYY-MM-DD'), i.ledger_amount::text, i.wallet_amount::text, i.wallet_line::text,
            ledger_evidence_ts(i.wallet_time), i.differences::text]), 'UTF8')), ''::bytea ORDER BY i.seq), ''::bytea)), 'hex')
     FROM wallet_match_items i WHERE i.run_id = p_run $$`,
];

/** Chains the rows written before this migration (the triggers that refuse UPDATE are off meanwhile). */
export const EVIDENCE_BACKFILL_SQL = [
  `ALTER TABLE query_log DISABLE TRIGGER query_log_no_change`,
  `DO $$
   DECLARE r query_log; v_prev text := repeat('0', 64); v_seq bigint := 0; v_at timestamptz;
   BEGIN
     FOR r IN SELECT * FROM query_log WHERE seq IS NULL ORDER BY id LOOP
       v_seq := v_seq + 1;
       v_at := greatest(v_at, r.at);
       r.seq := v_seq; r.recorded_at := v_at; r.prev_hash := v_prev;
       r.hash := ledger_evidence_hash('query_log/1', v_prev, ledger_query_log_fields(r));
       UPDATE query_log SET seq = r.seq, recorded_at = r.recorded_at, prev_hash = r.prev_hash, hash = r.hash WHERE id = r.id;
       v_prev := r.hash;
     END LOOP;
     INSERT INTO evidence_heads (chain, seq, hash, recorded_at) VALUES ('query_log', v_seq, v_prev, v_at) ON CONFLICT (chain) DO NOTHING;
   END $$`,
  `ALTER TABLE query_log ENABLE TRIGGER query_log_no_change`,
  `ALTER TABLE wallet_match_runs DISABLE TRIGGER wallet_match_runs_no_change`,
  `DO $$
   DECLARE r wallet_match_runs; v_prev text := repeat('0', 64); v_seq bigint := 0; v_at timestamptz;
   BEGIN
     FOR r IN SELECT * FROM wallet_match_runs WHERE seq IS NULL ORDER BY created_at, run_id LOOP
       v_seq := v_seq + 1;
       v_at := greatest(v_at, r.created_at);
       r.seq := v_seq; r.recorded_at := v_at; r.prev_hash := v_prev; r.items_sha256 := ledger_wallet_items_digest(r.run_id);
       r.hash := ledger_evidence_hash('wallet_match_runs/1', v_prev, ledger_wallet_run_fields(r));
       UPDATE wallet_match_runs SET seq = r.seq, recorded_at = r.recorded_at, items_sha256 = r.items_sha256, prev_hash = r.prev_hash, hash = r.hash
        WHERE run_id = r.run_id;
       v_prev := r.hash;
     END LOOP;
     INSERT INTO evidence_heads (chain, seq, hash, recorded_at) VALUES ('wallet_match_runs', v_seq, v_prev, v_at) ON CONFLICT (chain) DO NOTHING;
   END $$`,
  `ALTER TABLE wallet_match_runs ENABLE TRIGGER wallet_match_runs_no_change`,
];

/** Every row chained: the columns required, seq unique, hashes well formed; the items' run checked at commit. */
export const EVIDENCE_CONSTRAINTS_SQL = [
  `ALTER TABLE query_log ALTER COLUMN seq SET NOT NULL, ALTER COLUMN recorded_at SET NOT NULL,
     ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`,
  `ALTER TABLE query_log ADD CONSTRAINT query_log_hashes_hex CHECK (prev_hash ~ '^[0-9a-f]{64}$' AND hash ~ '^[0-9a-f]{64}$')`,
  `CREATE UNIQUE INDEX IF NOT EXISTS query_log_seq_idx ON query_log (seq)`,
  `ALTER TABLE wallet_match_runs ALTER COLUMN seq SET NOT NULL, ALTER COLUMN recorded_at SET NOT NULL, ALTER COLUMN items_sha256 SET NOT NULL,
     ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`,
  `ALTER TABLE wallet_match_runs ADD CONSTRAINT wallet_match_runs_hashes_hex
     CHECK (prev_hash ~ '^[0-9a-f]{64}$' AND hash ~ '^[0-9a-f]{64}$' AND items_sha256 ~ '^[0-9a-f]{64}$')`,
  `CREATE UNIQUE INDEX IF NOT EXISTS wallet_match_runs_seq_idx ON wallet_match_runs (seq)`,
  `DO $$
   DECLARE c text;
   BEGIN
     SELECT conname INTO c FROM pg_constraint WHERE conrelid = 'wallet_match_items'::regclass AND contype = 'f';
     EXECUTE format('ALTER TABLE wallet_match_items ALTER CONSTRAINT %I DEFERRABLE INITIALLY DEFERRED', c);
   END $$`,
];

/**
 * `ledger_log_access`: appends one access-log row. Takes the table's ROW EXCLUSIVE lock (what its
 * INSERT takes; neither reads nor VACUUM wait for it), then locks the chain's head row (appends one at a
 * time, until the caller's transaction ends), stamps id, seq and time, hashes, inserts, moves the head.
 * @returns the row's id
 */
export const LOG_ACCESS_FUNCTION_SQL = `
CREATE OR REPLACE FUNCTION ledger_log_access(p_actor_id text, p_actor_role text, p_route text, p_params jsonb,
                                             p_result_count integer, p_status integer, p_correlation_id text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE h evidence_heads; r query_log;
BEGIN
  LOCK TABLE query_log IN ROW EXCLUSIVE MODE; -- what the INSERT takes, first: a writer held on the table waits here
  SELECT * INTO STRICT h FROM evidence_heads WHERE chain = 'query_log' FOR UPDATE;
  r.id := nextval(pg_get_serial_sequence('query_log', 'id'));
  r.seq := h.seq + 1;
  r.recorded_at := greatest(clock_timestamp(), h.recorded_at);
  r.at := r.recorded_at;
  r.actor_id := p_actor_id; r.actor_role := p_actor_role; r.route := p_route; r.params := p_params;
  r.result_count := p_result_count; r.status := p_status; r.correlation_id := p_correlation_id;
  r.prev_hash := h.hash;
  r.hash := ledger_evidence_hash('query_log/1', r.prev_hash, ledger_query_log_fields(r));
  INSERT INTO query_log SELECT (r).*;
  UPDATE evidence_heads SET seq = r.seq, hash = r.hash, recorded_at = r.recorded_at WHERE chain = 'query_log';
  RETURN r.id;
END $$`;

/** `ledger_add_wallet_items`: a chunk of a run's items (a JSON array of rows), only while the run is not recorded yet. */
export const ADD_WALLET_ITEMS_FUNCTION_SQL = `
CREATE OR REPLACE FUNCTION ledger_add_wallet_items(p_run_id uuid, p_items json) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM wallet_match_runs WHERE run_id = p_run_id) THEN
    RAISE EXCEPTION 'ledger: wallet run % is recorded: its items are sealed', p_run_id USING ERRCODE = 'LA001';
  END IF;
  INSERT INTO wallet_match_items (run_id, seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day,
                                  ledger_amount, wallet_amount, wallet_line, wallet_time, differences)
  SELECT p_run_id, x.seq, x.status, x.transaction_id, x.type, x.bet_id, x.round_id, x.account_id, x.currency, x.gaming_day,
         x.ledger_amount, x.wallet_amount, x.wallet_line, x.wallet_time,
         CASE WHEN x.differences = '' THEN '{}'::text[] ELSE string_to_array(x.differences, ',') END
    FROM json_to_recordset(p_items) AS x(seq integer, status text, transaction_id text, type text, bet_id text, round_id text, account_id text,
         currency text, gaming_day date, ledger_amount bigint, wallet_amount bigint, wallet_line integer, wallet_time timestamptz, differences text);
END $$`;

/**
 * `ledger_record_wallet_run`: records a run (a JSON object, camelCase fields) after its items, in the
 * same transaction: refuses when the stored items are not exactly 1..itemCount, digests them, stamps
 * seq and time (`created_at` = `recorded_at`), hashes, inserts, moves the head. @returns the run's seq
 */
export const RECORD_WALLET_RUN_FUNCTION_SQL = `
CREATE OR REPLACE FUNCTION ledger_record_wallet_run(p_run jsonb) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE h evidence_heads; r wallet_match_runs; v_count bigint; v_max integer;
BEGIN
  LOCK TABLE wallet_match_runs IN ROW EXCLUSIVE MODE;
  SELECT * INTO STRICT h FROM evidence_heads WHERE chain = 'wallet_match_runs' FOR UPDATE;
  r.run_id := (p_run->>'runId')::uuid;
  r.actor_id := p_run->>'actorId'; r.actor_role := p_run->>'actorRole'; r.format := p_run->>'format';
  r.file_sha256 := p_run->>'fileSha256'; r.file_bytes := (p_run->>'fileBytes')::bigint; r.file_rows := (p_run->>'fileRows')::integer;
  r.column_map := p_run->'columnMap'; r.from_day := (p_run->>'fromDay')::date; r.to_day := (p_run->>'toDay')::date;
  r.period_from := (p_run->>'periodFrom')::timestamptz; r.period_to := (p_run->>'periodTo')::timestamptz;
  r.scope_source := p_run->>'scopeSource'; r.totals := p_run->'totals'; r.summary := p_run->'summary';
  r.zero_not_in_file := (p_run->>'zeroNotInFile')::integer; r.item_count := (p_run->>'itemCount')::integer;
  r.correlation_id := p_run->>'correlationId';
  SELECT count(*), coalesce(max(seq), 0) INTO v_count, v_max FROM wallet_match_items WHERE run_id = r.run_id;
  IF v_count <> r.item_count OR v_max <> r.item_count THEN
    RAISE EXCEPTION 'ledger: wallet run % declares % items, % are stored (last seq %)', r.run_id, r.item_count, v_count, v_max USING ERRCODE = 'check_violation';
  END IF;
  r.items_sha256 := ledger_wallet_items_digest(r.run_id);
  r.seq := h.seq + 1;
  r.recorded_at := greatest(clock_timestamp(), h.recorded_at);
  r.created_at := r.recorded_at;
  r.prev_hash := h.hash;
  r.hash := ledger_evidence_hash('wallet_match_runs/1', r.prev_hash, ledger_wallet_run_fields(r));
  INSERT INTO wallet_match_runs SELECT (r).*;
  UPDATE evidence_heads SET seq = r.seq, hash = r.hash, recorded_at = r.recorded_at WHERE chain = 'wallet_match_runs';
  RETURN r.seq;
END $$`;

/**
 * What `ledger_app` keeps: SELECT on the tables and the heads, EXECUTE on the three functions; nothing
 * else. `ledger_relay` may read the two chains (its anchor publisher signs their heads).
 */
export const EVIDENCE_GRANTS_SQL = `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
    RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
      HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
  END IF;
  REVOKE ALL ON query_log, wallet_match_runs, wallet_match_items, evidence_heads FROM PUBLIC;
  REVOKE ALL ON query_log, wallet_match_runs, wallet_match_items, evidence_heads FROM ledger_app;
  GRANT SELECT ON query_log, wallet_match_runs, wallet_match_items, evidence_heads TO ledger_app;
  EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM ledger_app', pg_get_serial_sequence('query_log', 'id'));
  REVOKE ALL ON FUNCTION ledger_log_access(text, text, text, jsonb, integer, integer, text) FROM PUBLIC;
  REVOKE ALL ON FUNCTION ledger_add_wallet_items(uuid, json) FROM PUBLIC;
  REVOKE ALL ON FUNCTION ledger_record_wallet_run(jsonb) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION ledger_log_access(text, text, text, jsonb, integer, integer, text) TO ledger_app;
  GRANT EXECUTE ON FUNCTION ledger_add_wallet_items(uuid, json) TO ledger_app;
  GRANT EXECUTE ON FUNCTION ledger_record_wallet_run(jsonb) TO ledger_app;
  -- the relay's anchor publisher signs the chains' heads (libs/anchors/src/evidence-anchor.ts): it reads the rows
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_relay') THEN
    GRANT SELECT ON query_log, wallet_match_runs TO ledger_relay;
  END IF;
END
$$`;

/** The evidence chains (see the file comment). Run as `ledger_owner`; refuses to run (`LA002`) without `ledger_app`. */
export class EvidenceChains1799300000000 implements MigrationInterface {
  name = 'EvidenceChains1799300000000';

  async up(q: QueryRunner): Promise<void> {
    const statements = [
      ...EVIDENCE_HELPERS_SQL,
      ...EVIDENCE_COLUMNS_SQL,
      ...EVIDENCE_FIELDS_SQL,
      ...EVIDENCE_BACKFILL_SQL,
      ...EVIDENCE_CONSTRAINTS_SQL,
      LOG_ACCESS_FUNCTION_SQL,
      ADD_WALLET_ITEMS_FUNCTION_SQL,
      RECORD_WALLET_RUN_FUNCTION_SQL,
      EVIDENCE_GRANTS_SQL,
    ];
    for (const s of statements) await q.query(s);
  }

  async down(): Promise<void> {
    throw new Error('the evidence chains are a record of who looked at what: this migration is not reverted');
  }
}
