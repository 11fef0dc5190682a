import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * `applied_events.applied_at` on the database clock at the moment the row is written
 * (`clock_timestamp()`), not at the start of the projector's transaction (`now()`): the bench reads
 * it as the projector's stage time (docs/architecture.md §7), and a transaction that verifies and
 * folds a batch of 10,000 events for a while would otherwise date every event of it to its start.
 * The applier writes a batch's rows with one INSERT at the end of the transaction, so the time is
 * the batch's apply time.
 */
export class AppliedAtClock1797010000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'AppliedAtClock1797010000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of appliedAtClockSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "${assertSchemaName(this.schema)}".applied_events ALTER COLUMN applied_at SET DEFAULT now()`);
  }
}

/** The statements of {@link AppliedAtClock1797010000000}, in order. */
export function appliedAtClockSql(schema: string): string[] {
  return [`ALTER TABLE "${assertSchemaName(schema)}".applied_events ALTER COLUMN applied_at SET DEFAULT clock_timestamp()`];
}
