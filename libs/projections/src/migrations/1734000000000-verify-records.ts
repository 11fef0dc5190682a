import type { MigrationInterface, QueryRunner } from 'typeorm';
import { QUARANTINE_REASONS } from '../record-verification';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * The projector verifies what it applies (docs/guarantees.md §8, docs/architecture.md §7): the
 * bookkeeping of that check, next to the checkpoints and in the same transactions.
 *
 * - `stream_heads`: per stream, the last applied version and its hash (and event id, global
 *   position). A record applies only if it links to its stream's head. Filled from `applied_events`
 *   for a schema projected before this migration; rebuilt by a rebuild like every table.
 * - `quarantine`: every record the projector refused, never applied: where it was (topic,
 *   partition, offset, key), what it claims (event id, stream, version; untrusted unless
 *   `authentic`, i.e. signed by the relay), the reason and a detail, its headers and at most 64 KiB
 *   of its value (`value_bytes` its full size), and whether its copy to the dead-letter topic is
 *   still pending. Keyed by position, so a record is quarantined once per schema.
 *
 * Both belong to `ledger_owner`; the projector may read and write them, the API read them (granted
 * here explicitly, as well as by the default privileges of the grants migration).
 */
export class VerifyRecords1734000000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'VerifyRecords1734000000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of verifyRecordsSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(`DROP TABLE IF EXISTS ${s}.quarantine`);
    await q.query(`DROP TABLE IF EXISTS ${s}.stream_heads`);
  }
}

/** Largest part of a quarantined record's value kept in `quarantine.value`, in bytes (64 KiB). */
export const QUARANTINE_MAX_VALUE_BYTES = 65_536;

/** The statements of {@link VerifyRecords1734000000000}, in order. */
export function verifyRecordsSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  const reasons = QUARANTINE_REASONS.map((r) => `'${r}'`).join(', ');
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.stream_heads (
       stream_id       text    PRIMARY KEY,
       version         integer NOT NULL CHECK (version >= 1),
       hash            text    NOT NULL,
       event_id        text    NOT NULL,
       global_position bigint  NOT NULL
     )`,
    // a schema projected before the check: its heads are the last applied event of each stream
    `INSERT INTO ${s}.stream_heads (stream_id, version, hash, event_id, global_position)
     SELECT DISTINCT ON (stream_id) stream_id, stream_version, hash, event_id, global_position
       FROM ${s}.applied_events
      ORDER BY stream_id, stream_version DESC
     ON CONFLICT (stream_id) DO NOTHING`,
    `CREATE TABLE IF NOT EXISTS ${s}.quarantine (
       topic            text        NOT NULL,
       partition        integer     NOT NULL,
       kafka_offset     bigint      NOT NULL,
       consumer_group   text        NOT NULL,
       reason           text        NOT NULL CHECK (reason IN (${reasons})),
       detail           text        NOT NULL,
       authentic        boolean     NOT NULL,
       event_id         text,
       stream_id        text,
       stream_version   integer,
       record_key       bytea,
       headers          jsonb       NOT NULL DEFAULT '{}'::jsonb,
       value            bytea,
       value_bytes      integer     NOT NULL CHECK (value_bytes >= 0),
       quarantined_at   timestamptz NOT NULL DEFAULT now(),
       dlq_pending      boolean     NOT NULL,
       dlq_published_at timestamptz,
       PRIMARY KEY (topic, partition, kafka_offset),
       CHECK (value IS NULL OR octet_length(value) <= ${QUARANTINE_MAX_VALUE_BYTES})
     )`,
    `CREATE INDEX IF NOT EXISTS quarantine_stream_idx ON ${s}.quarantine (stream_id, stream_version) WHERE authentic`,
    `CREATE INDEX IF NOT EXISTS quarantine_dlq_pending_idx ON ${s}.quarantine (quarantined_at) WHERE dlq_pending`,
    `CREATE INDEX IF NOT EXISTS quarantine_time_idx ON ${s}.quarantine (quarantined_at)`,
    // the grants migration's, in its order (a re-run of it then changes nothing)
    `REVOKE ALL ON ${s}.stream_heads, ${s}.quarantine FROM ledger_projector, ledger_app`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ${s}.stream_heads, ${s}.quarantine TO ledger_projector`,
    `GRANT SELECT ON ${s}.stream_heads, ${s}.quarantine TO ledger_app`,
  ];
}
