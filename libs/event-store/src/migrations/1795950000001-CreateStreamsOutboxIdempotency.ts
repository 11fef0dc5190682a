import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The write side's bookkeeping around `events`:
 *  - `streams`: one row per stream, locked `FOR UPDATE` by every append (optimistic concurrency,
 *    docs/guarantees.md §2) and holding the head of the hash chain;
 *  - `outbox`: one row per event, written in the append's transaction, published to Kafka by the
 *    relay (no dual-write loss, docs/guarantees.md §4). Rows are marked, not deleted, when published;
 *  - `idempotency_keys`: the first answer to a request, replayed to its retries (docs/guarantees.md §3).
 *
 * Irreversible on purpose: `down` refuses.
 */
export class CreateStreamsOutboxIdempotency1795950000001 implements MigrationInterface {
  name = 'CreateStreamsOutboxIdempotency1795950000001';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE streams (
        stream_id  text        PRIMARY KEY,
        table_id   text        NOT NULL,
        version    integer     NOT NULL CHECK (version >= 0),
        last_hash  char(64)    NOT NULL CHECK (last_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX streams_table_id_idx ON streams (table_id)`);

    await q.query(`
      CREATE TABLE outbox (
        global_position bigint      PRIMARY KEY REFERENCES events (global_position),
        topic           text        NOT NULL,
        key             text        NOT NULL,
        enqueued_at     timestamptz NOT NULL DEFAULT now(),
        published_at    timestamptz NULL
      )`);
    // The relay's claim query: unpublished rows in position order.
    await q.query(`CREATE INDEX outbox_unpublished_idx ON outbox (global_position) WHERE published_at IS NULL`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        key          text        PRIMARY KEY,
        request_hash text        NOT NULL,
        status_code  integer     NOT NULL,
        response     jsonb       NOT NULL,
        stream_id    text        NOT NULL,
        event_ids    uuid[]      NOT NULL,
        last_version integer     NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`COMMENT ON COLUMN idempotency_keys.event_ids IS
      'The events the first request appended, in stream order: a retry gets them back with the stored response.'`);
  }

  public async down(): Promise<void> {
    throw new Error('CreateStreamsOutboxIdempotency is irreversible (ledger bookkeeping)');
  }
}
