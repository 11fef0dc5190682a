import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The append without a ledger-wide lock (docs/guarantees.md §5, docs/architecture.md §5).
 *
 * Before: every append took its global positions from the one-row counter `event_position`, held
 * from the `UPDATE` to the COMMIT, so every commit in the ledger waited for the one before it
 * (277–660 appends/s whatever the number of API instances). Now:
 *
 *  - **Positions come from a sequence** (`events_global_position_seq`, no cache), taken inside the
 *    append after the stream lock. Appends to different shoes never wait for each other; appends to
 *    one shoe still queue on its `streams` row, so a stream's positions grow with its versions.
 *    A sequence is not transactional: an append rolled back after taking positions leaves a hole,
 *    and positions become visible in commit order, not in number order.
 *  - **The commit-order horizon**: the relay publishes a position only once every position at or
 *    below it is final (committed, or its transaction ended without committing): it reads the
 *    sequence's last value L, then the transactions of this database holding a write lock on
 *    `streams` or `events` (`pg_locks`), and waits until they have ended. An append holding a
 *    position ≤ L locked its stream before it took the position and keeps the lock to its end, so it
 *    was in that list or already over. Hence the relay publishes in position order and never skips
 *    an event that commits late (`libs/event-store/src/horizon.ts`).
 *  - **Holes are recorded, not guessed**: when the relay passes a position below the horizon that no
 *    event holds, it records it in `position_gaps` (a range, append-only, only the relay's role may
 *    insert) in the same fenced transaction that marks the batch published and moves
 *    `outbox_progress.through_position` ("every position ≤ it is published or a recorded hole").
 *    The verifier reports any other hole as `POSITION_GAP`: an event removed from PostgreSQL is still
 *    found, and the anchors sign only up to `through_position`.
 *  - **One statement per append, the only way in**: `ledger_append(...)` (`SECURITY DEFINER`: the
 *    API's login may execute it but no longer insert into the event store itself) locks (or creates) the stream, checks the
 *    expected version and head hash, reserves the round and bet ids, stores the idempotent answer by
 *    reference (stream and version range, no copy of the events), takes the positions, inserts the
 *    events and their outbox rows, moves the head and NOTIFYs the relay. A refusal that must undo
 *    writes raises `LA020` (reference taken) or `LA021` (idempotency key taken); the rest returns a
 *    status without writing.
 *  - **Only the indexes a query uses** on `events`: the primary key, `event_id`, `(stream_id,
 *    stream_version)`, `(table_id, global_position)` (chain checks of a table) and a small partial
 *    index for the four-eyes decision events; the indexes on `occurred_at`, `recorded_at`,
 *    `correlation_id` and `(type, occurred_at)` had no reader.
 *
 * The counter table `event_position` is dropped (the sequence starts after its last value).
 * Irreversible on purpose: `down` refuses.
 */
/**
 * The grants of {@link AppendWithoutGlobalLock1797000000000}, idempotent: run them again after
 * `GrantRuntimeRoles1795950000100` is re-run (that one takes back what it does not grant itself).
 *
 * The API appends **only** through `ledger_append`, which runs as its owner (`SECURITY DEFINER`, a
 * fixed `search_path`): its login keeps SELECT on the event store but loses INSERT on `events`,
 * `outbox`, `streams`, `ledger_references` and `idempotency_keys`, UPDATE on `streams`, and the
 * sequence's USAGE (it may read its last value: SELECT). So an insider with the API's login can
 * neither take a position without locking its stream first (which the commit-order horizon relies
 * on, docs/guarantees.md §5), nor plant an event or an outbox row around the append, nor hold a
 * stream row locked (`FOR UPDATE` needs UPDATE). It may read the relay's progress and the recorded
 * holes but not write them; only the relay records holes and moves the progress.
 */
export const APPEND_GRANTS: readonly string[] = [
  `REVOKE ALL ON outbox_progress, position_gaps FROM ledger_app, ledger_relay, ledger_projector`,
  `GRANT SELECT ON outbox_progress, position_gaps TO ledger_app`,
  `GRANT SELECT, UPDATE (through_position) ON outbox_progress TO ledger_relay`,
  `GRANT SELECT, INSERT ON position_gaps TO ledger_relay`,
  `REVOKE INSERT ON events, outbox, streams, ledger_references, idempotency_keys FROM ledger_app`,
  `REVOKE UPDATE ON streams FROM ledger_app`,
  `REVOKE UPDATE (version, last_hash, updated_at) ON streams FROM ledger_app`,
  `REVOKE ALL ON SEQUENCE events_global_position_seq FROM ledger_app, ledger_relay, ledger_projector`,
  `GRANT SELECT ON SEQUENCE events_global_position_seq TO ledger_app, ledger_relay`,
  `REVOKE ALL ON FUNCTION ledger_append FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION ledger_append TO ledger_app`,
];

export class AppendWithoutGlobalLock1797000000000 implements MigrationInterface {
  name = 'AppendWithoutGlobalLock1797000000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE events_global_position_seq AS bigint MINVALUE 1 START 1 CACHE 1 NO CYCLE`);
    await q.query(`
      DO $$
      DECLARE last bigint;
      BEGIN
        SELECT greatest(coalesce((SELECT last_position FROM event_position), 0), coalesce((SELECT max(global_position) FROM events), 0)) INTO last;
        IF last > 0 THEN PERFORM setval('events_global_position_seq', last, true); END IF;
      END
      $$`);
    await q.query(`COMMENT ON SEQUENCE events_global_position_seq IS
      'Global positions of events (ledger_append). Holes are possible (a rolled-back append) and are recorded in position_gaps by the relay.'`);
    await q.query(`DROP TABLE event_position`);
    await q.query(`DROP FUNCTION IF EXISTS ledger_event_position_forward()`);

    // Everything ≤ through_position is published or a recorded hole; it only moves forward.
    await q.query(`
      CREATE TABLE outbox_progress (
        name             text   PRIMARY KEY,
        through_position bigint NOT NULL CHECK (through_position >= 0)
      )`);
    await q.query(`INSERT INTO outbox_progress (name, through_position)
      SELECT 'ledger-relay', coalesce((SELECT min(global_position) - 1 FROM outbox WHERE published_at IS NULL), (SELECT max(global_position) FROM events), 0)`);
    await q.query(`COMMENT ON TABLE outbox_progress IS
      'How far the relay has come: every position <= through_position is published to Kafka or recorded in position_gaps. Moved only by the relay, in its fenced mark transaction.'`);
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger_progress_forward() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
      BEGIN
        IF NEW.through_position < OLD.through_position OR NEW.name <> OLD.name THEN
          RAISE EXCEPTION 'ledger: outbox_progress may only move forward (% -> %)', OLD.through_position, NEW.through_position
            USING ERRCODE = 'LA001';
        END IF;
        RETURN NEW;
      END
      $fn$`);
    await q.query(`CREATE TRIGGER outbox_progress_forward_only BEFORE UPDATE ON outbox_progress
      FOR EACH ROW EXECUTE FUNCTION ledger_progress_forward()`);
    await q.query(`CREATE TRIGGER outbox_progress_no_delete BEFORE DELETE ON outbox_progress
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await q.query(`CREATE TRIGGER outbox_progress_no_truncate BEFORE TRUNCATE ON outbox_progress
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);

    await q.query(`
      CREATE TABLE position_gaps (
        from_position bigint      PRIMARY KEY CHECK (from_position > 0),
        to_position   bigint      NOT NULL CHECK (to_position >= from_position),
        recorded_at   timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`COMMENT ON TABLE position_gaps IS
      'Global positions no event will ever hold (their append rolled back after taking them), recorded by the relay once the commit-order horizon passed them. Append-only.'`);
    await q.query(`CREATE TRIGGER position_gaps_append_only BEFORE UPDATE OR DELETE ON position_gaps
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await q.query(`CREATE TRIGGER position_gaps_no_truncate BEFORE TRUNCATE ON position_gaps
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);

    // Idempotent answers by reference: the stream and its version range, not a copy of the events.
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN first_version integer NULL`);
    await q.query(`ALTER TABLE idempotency_keys ALTER COLUMN response DROP NOT NULL`);
    await q.query(`ALTER TABLE idempotency_keys ALTER COLUMN event_ids SET DEFAULT '{}'`);
    await q.query(`COMMENT ON COLUMN idempotency_keys.first_version IS
      'The first answer''s events are the stream''s versions first_version..last_version (the answer is rebuilt from them); null for rows stored with a copy (response, event_ids).'`);

    // Only the indexes a query uses.
    await q.query(`DROP INDEX IF EXISTS events_table_id_occurred_at_idx`);
    await q.query(`DROP INDEX IF EXISTS events_type_occurred_at_idx`);
    await q.query(`DROP INDEX IF EXISTS events_recorded_at_idx`);
    await q.query(`DROP INDEX IF EXISTS events_correlation_id_idx`);
    await q.query(`CREATE INDEX events_decisions_idx ON events (global_position)
      WHERE type IN ('DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired')`);

    await q.query(APPEND_FUNCTION_SQL);

    for (const statement of APPEND_GRANTS) await q.query(statement);
  }

  public async down(): Promise<void> {
    throw new Error('AppendWithoutGlobalLock is irreversible: positions taken from the sequence cannot go back to a counter');
  }
}

/**
 * `ledger_append(...)`: one append in one statement (see the migration's doc). Arguments: the stream,
 * its table, the expected version and head hash (the genesis hash for a new stream), the events as
 * parallel arrays (ids, types, schema versions, data, prev hashes, hashes — hashed by the caller on
 * that head), the envelope's shared fields, the outbox topic, the round and bet ids to reserve, and
 * the idempotency key (caller, key, request hash, status, expiry cutoff; nulls when none).
 * Returns one row: `status` (`APPENDED`, `VERSION`, `TABLE_MISMATCH`), the stream's version, head hash
 * and table (after the append, or as found), and the positions taken (`APPENDED` only).
 * Raises `LA020` (DETAIL: `ROUND`/`BET`, HINT: the ids as a JSON array) when an id is held by another
 * stream, `LA021` when the idempotency key holds a live answer; 23505 on a taken event id.
 */
export const APPEND_FUNCTION_SQL = `
  CREATE OR REPLACE FUNCTION ledger_append(
    p_stream_id text, p_table_id text, p_expected_version integer, p_expected_hash text,
    p_event_ids uuid[], p_types text[], p_schema_versions integer[], p_data jsonb[], p_prev_hashes text[], p_hashes text[],
    p_actor_id text, p_actor_role text, p_occurred_at timestamptz, p_recorded_at timestamptz,
    p_correlation_id text, p_causation_id text, p_topic text, p_round_ids text[], p_bet_ids text[],
    p_idem_caller text, p_idem_key text, p_idem_request_hash text, p_idem_status integer, p_idem_cutoff timestamptz)
  RETURNS TABLE (status text, version integer, head_hash text, table_id text, positions bigint[])
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
  DECLARE
    head record;
    n integer := cardinality(p_event_ids);
    pos bigint[];
    taken text[];
  BEGIN
    IF n IS NULL OR n = 0 THEN
      RAISE EXCEPTION 'ledger_append: no events' USING ERRCODE = '22023';
    END IF;
    IF p_expected_version = 0 THEN
      INSERT INTO streams AS s (stream_id, table_id, version, last_hash) VALUES (p_stream_id, p_table_id, 0, p_expected_hash)
      ON CONFLICT (stream_id) DO NOTHING;
    END IF;
    SELECT s.table_id, s.version, s.last_hash INTO head FROM streams s WHERE s.stream_id = p_stream_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'VERSION'::text, 0, NULL::text, NULL::text, NULL::bigint[];
      RETURN;
    END IF;
    IF head.version <> p_expected_version OR head.last_hash <> p_expected_hash THEN
      RETURN QUERY SELECT 'VERSION'::text, head.version, head.last_hash::text, head.table_id, NULL::bigint[];
      RETURN;
    END IF;
    IF head.table_id <> p_table_id THEN
      RETURN QUERY SELECT 'TABLE_MISMATCH'::text, head.version, head.last_hash::text, head.table_id, NULL::bigint[];
      RETURN;
    END IF;

    IF cardinality(p_round_ids) > 0 THEN
      INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT 'ROUND', r, p_stream_id FROM unnest(p_round_ids) r
      ON CONFLICT (kind, ref_id) DO NOTHING;
      SELECT array_agg(ref_id ORDER BY ref_id) INTO taken FROM ledger_references
       WHERE kind = 'ROUND' AND ref_id = ANY (p_round_ids) AND stream_id <> p_stream_id;
      IF taken IS NOT NULL THEN
        RAISE EXCEPTION 'ledger_append: round ids held by another stream' USING ERRCODE = 'LA020', DETAIL = 'ROUND', HINT = array_to_json(taken)::text;
      END IF;
    END IF;
    IF cardinality(p_bet_ids) > 0 THEN
      INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT 'BET', b, p_stream_id FROM unnest(p_bet_ids) b
      ON CONFLICT (kind, ref_id) DO NOTHING;
      SELECT array_agg(ref_id ORDER BY ref_id) INTO taken FROM ledger_references
       WHERE kind = 'BET' AND ref_id = ANY (p_bet_ids) AND stream_id <> p_stream_id;
      IF taken IS NOT NULL THEN
        RAISE EXCEPTION 'ledger_append: bet ids held by another stream' USING ERRCODE = 'LA020', DETAIL = 'BET', HINT = array_to_json(taken)::text;
      END IF;
    END IF;

    IF p_idem_key IS NOT NULL THEN
      INSERT INTO idempotency_keys (caller, key, request_hash, status_code, response, stream_id, event_ids, first_version, last_version, created_at)
      VALUES (p_idem_caller, p_idem_key, p_idem_request_hash, p_idem_status, NULL, p_stream_id, '{}', p_expected_version + 1, p_expected_version + n, p_recorded_at)
      ON CONFLICT (caller, key) DO NOTHING;
      IF NOT FOUND THEN
        DELETE FROM idempotency_keys k WHERE k.caller = p_idem_caller AND k.key = p_idem_key AND k.created_at < p_idem_cutoff;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'ledger_append: idempotency key answered already' USING ERRCODE = 'LA021';
        END IF;
        INSERT INTO idempotency_keys (caller, key, request_hash, status_code, response, stream_id, event_ids, first_version, last_version, created_at)
        VALUES (p_idem_caller, p_idem_key, p_idem_request_hash, p_idem_status, NULL, p_stream_id, '{}', p_expected_version + 1, p_expected_version + n, p_recorded_at);
      END IF;
    END IF;

    SELECT array_agg(x ORDER BY x) INTO pos FROM (SELECT nextval('events_global_position_seq') AS x FROM generate_series(1, n)) g;
    INSERT INTO events (global_position, event_id, stream_id, stream_version, table_id, type, schema_version,
                        data, actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id, prev_hash, hash)
    SELECT pos[i], p_event_ids[i], p_stream_id, p_expected_version + i, p_table_id, p_types[i], p_schema_versions[i],
           p_data[i], p_actor_id, p_actor_role, p_occurred_at, p_recorded_at, p_correlation_id, p_causation_id, p_prev_hashes[i], p_hashes[i]
      FROM generate_series(1, n) i;
    INSERT INTO outbox (global_position, topic, key) SELECT unnest(pos), p_topic, p_table_id;
    UPDATE streams s SET version = p_expected_version + n, last_hash = p_hashes[n], updated_at = now() WHERE s.stream_id = p_stream_id;
    PERFORM pg_notify('outbox', pos[n]::text);
    RETURN QUERY SELECT 'APPENDED'::text, p_expected_version + n, p_hashes[n], p_table_id, pos;
  END
  $fn$`;
