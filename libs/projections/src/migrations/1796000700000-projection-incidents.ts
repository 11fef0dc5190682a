import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * A halted projection is an incident, not a log line (docs/guarantees.md §6, docs/architecture.md §7):
 *
 * - `projection_incidents`: one row per halt of a partition: who (consumer group), where (topic,
 *   partition, the Kafka offset and, when known, the event id and global position of the record it
 *   stopped at, the checkpoint then), why (a stable `code` of the error table, a message, the
 *   projection that refused when one did, details as JSON), when (`halted_at`), and how it ended
 *   (`resolved_at`, `resolved_by`, `resolution`). At most one open incident per partition (a partial
 *   unique index); an open one halts its partition, on every projector of the group, until resolved
 *   (`npm run -s projections:resume`).
 * - `checkpoints.topic_id`: the topic id (KIP-516) the checkpoint's offsets belong to; a record of a
 *   topic with another id is a re-created topic (`PROJECTION.TOPIC_RECREATED`), not the next records.
 *   NULL on a checkpoint written before this migration: the projector records the id it finds first.
 * - `checkpoints.last_global_position`: the global position of the last event applied on the
 *   partition (for the status route; NULL until one is applied after this migration).
 *
 * Both belong to `ledger_owner`; the projector may read and write them, the API read them (granted
 * here explicitly, as well as by the default privileges of the grants migration).
 */
export class ProjectionIncidents1796000700000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'ProjectionIncidents1796000700000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of projectionIncidentsSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(`DROP TABLE IF EXISTS ${s}.projection_incidents`);
    await q.query(`ALTER TABLE ${s}.checkpoints DROP COLUMN IF EXISTS topic_id`);
    await q.query(`ALTER TABLE ${s}.checkpoints DROP COLUMN IF EXISTS last_global_position`);
  }
}

/** The statements of {@link ProjectionIncidents1796000700000}, in order. */
export function projectionIncidentsSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `ALTER TABLE ${s}.checkpoints ADD COLUMN IF NOT EXISTS topic_id text`,
    `ALTER TABLE ${s}.checkpoints ADD COLUMN IF NOT EXISTS last_global_position bigint`,
    `CREATE TABLE IF NOT EXISTS ${s}.projection_incidents (
       id                bigserial   PRIMARY KEY,
       consumer_group    text        NOT NULL,
       topic             text        NOT NULL,
       partition         integer     NOT NULL,
       code              text        NOT NULL,
       message           text        NOT NULL,
       projection        text,
       kafka_offset      bigint,
       event_id          text,
       global_position   bigint,
       checkpoint_offset bigint,
       topic_id          text,
       details           jsonb       NOT NULL DEFAULT '{}'::jsonb,
       halted_at         timestamptz NOT NULL DEFAULT now(),
       resolved_at       timestamptz,
       resolved_by       text,
       resolution        text,
       CHECK ((resolved_at IS NULL) = (resolved_by IS NULL))
     )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS projection_incidents_open ON ${s}.projection_incidents (consumer_group, topic, partition) WHERE resolved_at IS NULL`,
    `GRANT SELECT, INSERT, UPDATE ON ${s}.projection_incidents TO ledger_projector`,
    `GRANT USAGE, SELECT ON SEQUENCE ${s}.projection_incidents_id_seq TO ledger_projector`,
    `GRANT SELECT ON ${s}.projection_incidents TO ledger_app`,
  ];
}
