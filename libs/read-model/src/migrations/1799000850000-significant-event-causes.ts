import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * `significant_events` holds raises whose cause is not a ledger event (docs/significant-events.md,
 * "Causes": refusals, the projector's records, the verifier's divergences, storms of 429s): the
 * cause's kind (`event` for the rows before) and the cause as raised; the cause event's columns are
 * null for the other kinds.
 */
export class SignificantEventCauses1799000850000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'SignificantEventCauses1799000850000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of significantEventCausesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(`ALTER TABLE ${s}.significant_events DROP COLUMN IF EXISTS cause, DROP COLUMN IF EXISTS cause_kind`);
  }
}

/** The DDL of {@link SignificantEventCauses1799000850000}. */
export function significantEventCausesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `ALTER TABLE ${s}.significant_events
       ALTER COLUMN cause_event_id DROP NOT NULL,
       ALTER COLUMN cause_event_type DROP NOT NULL,
       ALTER COLUMN cause_global_position DROP NOT NULL,
       ADD COLUMN IF NOT EXISTS cause_kind text NOT NULL DEFAULT 'event',
       ADD COLUMN IF NOT EXISTS cause jsonb`,
  ];
}
