import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * Analytics outbox rows as references (docs/guarantees.md §4, §6): a `settlement` record of a
 * BetSettled / BetResettled is no longer stored as its full value and headers; the row names its
 * source event (`global_position`, `source_event_id`) and keeps the one envelope field the read
 * model does not hold verbatim, the event's `occurredAt` as reported (`occurred_at`, text:
 * `audit_events.occurred_at` is a timestamptz and would lose the client's format). The publisher
 * builds the record from `audit_events` (the event's data) and `hand_outcomes` (the round's dealer
 * and gaming day, fixed at RoundOpened) when it publishes (`analytics-references.ts`): both are
 * immutable once the row is committed, so the record is byte-identical to the stored one it
 * replaces.
 *
 * Every other record (round-outcome, roads, and the settlement of a refund) depends on state that
 * later events change, and stays stored in full. The CHECK allows exactly these two shapes.
 *
 * `down` fails while reference rows exist (they cannot be given back a NOT NULL value here).
 */
export class AnalyticsOutboxReferences1797040000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'AnalyticsOutboxReferences1797040000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of analyticsOutboxReferencesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(
      `ALTER TABLE ${s}.analytics_outbox DROP CONSTRAINT analytics_outbox_shape_chk, DROP COLUMN occurred_at,
         ALTER COLUMN record_key SET NOT NULL, ALTER COLUMN ce_id SET NOT NULL, ALTER COLUMN headers SET NOT NULL, ALTER COLUMN value SET NOT NULL`,
    );
  }
}

/** The statements of {@link AnalyticsOutboxReferences1797040000000}, in order. */
export function analyticsOutboxReferencesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `ALTER TABLE ${s}.analytics_outbox
       ALTER COLUMN record_key DROP NOT NULL, ALTER COLUMN ce_id DROP NOT NULL, ALTER COLUMN headers DROP NOT NULL, ALTER COLUMN value DROP NOT NULL,
       ADD COLUMN occurred_at text,
       ADD CONSTRAINT analytics_outbox_shape_chk CHECK (
         (record_key IS NOT NULL AND ce_id IS NOT NULL AND headers IS NOT NULL AND value IS NOT NULL AND occurred_at IS NULL)
         OR (kind = 'settlement' AND record_key IS NULL AND ce_id IS NULL AND headers IS NULL AND value IS NULL AND occurred_at IS NOT NULL))`,
  ];
}
