import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * The analytics outbox (docs/guarantees.md §4, §6): records for the analytics topics, written by the
 * projector in the same transaction as the projections and the checkpoint, published to Kafka by
 * `AnalyticsPublisher` (libs/read-model/src/analytics/).
 *
 * - `(global_position, ordinal)` is the publishing order: the source event's global position, then
 *   the record's place among that event's records. Per table id (the Kafka key) it is the order
 *   of the ledger.
 * - `ce_id` (the CloudEvents id, a UUIDv5 of kind + source eventId) is UNIQUE: an event can never
 *   put a second copy of a record here.
 * - `headers` and `value` are stored as they are sent, so a republish is byte-identical.
 * - `published_at` is set by the publisher in the transaction that claimed the row; pending rows
 *   have a partial index.
 *
 * Bookkeeping, not a projection: not in `projectionChecksums`; a rebuild leaves it empty.
 */
export class CreateAnalyticsOutbox1733100000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'CreateAnalyticsOutbox1733100000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of createAnalyticsOutboxSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "${this.schema}".analytics_outbox`);
  }
}

/** The DDL of {@link CreateAnalyticsOutbox1733100000000}, statement by statement. */
export function createAnalyticsOutboxSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.analytics_outbox (
       global_position bigint   NOT NULL,
       ordinal         smallint NOT NULL CHECK (ordinal >= 0),
       kind            text     NOT NULL CHECK (kind IN ('round-outcome','settlement','roads')),
       source_event_id text     NOT NULL,
       record_key      text     NOT NULL,
       ce_id           text     NOT NULL UNIQUE,
       headers         jsonb    NOT NULL,
       value           text     NOT NULL,
       created_at      timestamptz NOT NULL DEFAULT now(),
       published_at    timestamptz,
       PRIMARY KEY (global_position, ordinal)
     )`,
    `CREATE INDEX IF NOT EXISTS analytics_outbox_pending_idx ON ${s}.analytics_outbox (global_position, ordinal) WHERE published_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS analytics_outbox_published_idx ON ${s}.analytics_outbox (published_at) WHERE published_at IS NOT NULL`,
  ];
}
