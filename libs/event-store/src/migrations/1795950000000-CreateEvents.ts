import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger itself: `events`, its gap-free position counter `event_position`, and the triggers that
 * make it append-only (docs/guarantees.md §1, §5, §8, §9).
 *
 * Why a one-row counter and not a sequence for `global_position`:
 *  - a sequence is not transactional: `nextval` survives a rollback, so every failed append would
 *    leave a hole, and "gap-free" is what lets a reader (or an auditor) tell a missing event from
 *    one that never was;
 *  - a sequence hands out numbers when asked, not when the transaction commits: append A can take 10,
 *    append B 11, and B commit first. A reader that has seen 11 and moves on never sees 10. The counter
 *    row is locked by `UPDATE … RETURNING` until the append commits, so positions become visible in
 *    exactly their order and `readAll(from)` / the outbox relay can never skip an event.
 * The price: appends are serialised from the counter update to the commit. The store takes the
 * counter as late as possible (after the stream lock, the version check and the hashing) to keep
 * that window to two statements and the commit.
 *
 * Irreversible on purpose: `down` refuses, a revert must not drop the ledger.
 */
export class CreateEvents1795950000000 implements MigrationInterface {
  name = 'CreateEvents1795950000000';

  public async up(q: QueryRunner): Promise<void> {
    // One function for every append-only table: names the table and the operation, fixed SQLSTATE.
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
      BEGIN
        RAISE EXCEPTION 'ledger: % on "%" refused: the table is append-only', TG_OP, TG_TABLE_NAME
          USING ERRCODE = 'LA001',
                HINT = 'Recorded facts are never changed or removed; append a compensating event instead.';
      END
      $fn$`);

    await q.query(`
      CREATE TABLE event_position (
        id            boolean PRIMARY KEY DEFAULT true CHECK (id),
        last_position bigint  NOT NULL CHECK (last_position >= 0)
      )`);
    await q.query(`INSERT INTO event_position (id, last_position) VALUES (true, 0)`);
    await q.query(`COMMENT ON TABLE event_position IS
      'The one row holding the last global position handed out. Updated only inside an append transaction; moves forward only.'`);
    // The counter may only move forward and the row may not go away.
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger_event_position_forward() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
      BEGIN
        IF NEW.last_position < OLD.last_position THEN
          RAISE EXCEPTION 'ledger: event_position may only move forward (% -> %)', OLD.last_position, NEW.last_position
            USING ERRCODE = 'LA001';
        END IF;
        RETURN NEW;
      END
      $fn$`);
    await q.query(`CREATE TRIGGER event_position_forward_only BEFORE UPDATE ON event_position
      FOR EACH ROW EXECUTE FUNCTION ledger_event_position_forward()`);
    await q.query(`CREATE TRIGGER event_position_no_delete BEFORE DELETE ON event_position
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await q.query(`CREATE TRIGGER event_position_no_truncate BEFORE TRUNCATE ON event_position
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);

    await q.query(`
      CREATE TABLE events (
        global_position bigint      PRIMARY KEY CHECK (global_position > 0),
        event_id        uuid        NOT NULL,
        stream_id       text        NOT NULL,
        stream_version  integer     NOT NULL CHECK (stream_version > 0),
        table_id        text        NOT NULL,
        type            text        NOT NULL,
        schema_version  integer     NOT NULL CHECK (schema_version > 0),
        data            jsonb       NOT NULL,
        actor_id        text        NOT NULL,
        actor_role      text        NOT NULL,
        occurred_at     timestamptz NOT NULL,
        recorded_at     timestamptz NOT NULL,
        correlation_id  text        NOT NULL,
        causation_id    text        NOT NULL,
        prev_hash       char(64)    NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
        hash            char(64)    NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
        CONSTRAINT events_event_id_key UNIQUE (event_id),
        CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
      )`);
    await q.query(`COMMENT ON TABLE events IS
      'The ledger: one row per recorded fact, append-only (triggers refuse UPDATE, DELETE, TRUNCATE). See libs/event-store.'`);
    // Reading a stream uses events_stream_version_key (stream_id, stream_version).
    await q.query(`CREATE INDEX events_table_id_global_position_idx ON events (table_id, global_position)`);
    await q.query(`CREATE INDEX events_table_id_occurred_at_idx ON events (table_id, occurred_at)`);
    await q.query(`CREATE INDEX events_type_occurred_at_idx ON events (type, occurred_at)`);
    await q.query(`CREATE INDEX events_recorded_at_idx ON events (recorded_at)`);
    await q.query(`CREATE INDEX events_correlation_id_idx ON events (correlation_id)`);

    await q.query(`CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await q.query(`CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);
  }

  public async down(): Promise<void> {
    throw new Error('CreateEvents is irreversible: the ledger is append-only and is never dropped by a migration');
  }
}
