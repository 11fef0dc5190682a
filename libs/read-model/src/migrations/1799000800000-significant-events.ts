import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * `significant_events`: the significant-events read model (docs/significant-events.md, "Raised as
 * facts"), owned by the `significant_events` projection: one row per `SignificantEventRaised`,
 * completed by its `SignificantEventAcknowledged`. Indexes for `GET /v1/significant-events`: pages
 * newest raise first `(raised_position)`, the acknowledgements by position (the live stream), and the open ones that need a second person (the
 * escalation gauges read them at every scrape). The projector's role writes, the API's reads (the
 * schema's default privileges).
 *
 * An existing read model gets the table empty: the projector fills it from the significant events
 * it applies from then on; `npm run projections:rebuild` fills it from the topic's whole history.
 */
export class SignificantEvents1799000800000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'SignificantEvents1799000800000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of significantEventsSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "${assertSchemaName(this.schema)}".significant_events`);
  }
}

/** The DDL of {@link SignificantEvents1799000800000}. */
export function significantEventsSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.significant_events (
       significant_event_id   text         PRIMARY KEY,
       code                   text         NOT NULL,
       severity               text         NOT NULL,
       severity_rank          smallint     NOT NULL,
       table_id               text,
       shoe_id                text,
       round_id               text,
       dealer_id              text,
       actor_id               text         NOT NULL,
       cause_event_id         text         NOT NULL,
       cause_event_type       text         NOT NULL,
       cause_global_position  bigint       NOT NULL,
       details                jsonb        NOT NULL,
       requires_ack           boolean      NOT NULL,
       raised_at              timestamptz  NOT NULL,
       raised_position        bigint       NOT NULL,
       acknowledged_by        text,
       acknowledged_role      text,
       ack_reason             text,
       acknowledged_at        timestamptz,
       ack_position           bigint
     )`,
    `CREATE INDEX IF NOT EXISTS significant_events_raised_idx ON ${s}.significant_events (raised_position)`,
    `CREATE INDEX IF NOT EXISTS significant_events_ack_idx ON ${s}.significant_events (ack_position) WHERE ack_position IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS significant_events_open_idx ON ${s}.significant_events (raised_at) WHERE requires_ack AND acknowledged_at IS NULL`,
  ];
}
