import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `stream_snapshots`: the latest snapshot of each shoe stream's folded state, written by the API
 * (docs/architecture.md §3, "The shoe cache") so that a cache miss folds only the events after it.
 * Derived data, never trusted as such: a row names the version it reflects, the stored hash of the
 * stream's event at that version (it must still match `events.hash`), and an HMAC-SHA256 over all
 * of it with a key only the API holds (`SHOE_SNAPSHOT_KEY`), identified by `key_id`
 * (docs/guarantees.md §8). One row per stream, replaced by each newer snapshot.
 *
 * `ledger_app` reads and writes it (INSERT … ON CONFLICT DO UPDATE); no other runtime role gets
 * anything. Run as `ledger_owner`. Refuses to run (SQLSTATE `LA002`) when `ledger_app` is missing.
 */
export class CreateStreamSnapshots1797020000100 implements MigrationInterface {
  name = 'CreateStreamSnapshots1797020000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS stream_snapshots (
        stream_id  text        PRIMARY KEY,
        version    integer     NOT NULL CHECK (version > 0),
        event_hash text        NOT NULL,
        key_id     text        NOT NULL,
        mac        text        NOT NULL,
        state      text        NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          RAISE EXCEPTION 'ledger: database role ledger_app missing' USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        REVOKE ALL ON stream_snapshots FROM ledger_app;
        GRANT SELECT, INSERT, UPDATE ON stream_snapshots TO ledger_app;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_relay') THEN
          REVOKE ALL ON stream_snapshots FROM ledger_relay;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_projector') THEN
          REVOKE ALL ON stream_snapshots FROM ledger_projector;
        END IF;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stream_snapshots`);
  }
}
