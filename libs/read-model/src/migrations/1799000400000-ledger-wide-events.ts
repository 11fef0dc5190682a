import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * Ledger-wide events (a gaming day's `GamingDayCloseRequested` and `GamingDayClosed`, stream
 * `gaming-day-<day>`, docs/reports.md §2) belong to no shoe: `audit_events.shoe_id` is null for them.
 */
export class LedgerWideEvents1799000400000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'LedgerWideEvents1799000400000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of ledgerWideEventsSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "${assertSchemaName(this.schema)}".audit_events ALTER COLUMN shoe_id SET NOT NULL`);
  }
}

/** The DDL of {@link LedgerWideEvents1799000400000}. */
export function ledgerWideEventsSql(schema: string): string[] {
  return [`ALTER TABLE "${assertSchemaName(schema)}".audit_events ALTER COLUMN shoe_id DROP NOT NULL`];
}
