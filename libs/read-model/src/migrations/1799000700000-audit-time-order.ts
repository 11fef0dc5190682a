import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * Audit pages with a time window in an order an index serves (docs/architecture.md §7, "Audit
 * search"): a page of `GET /audit/events` with `from` or `to` is ordered by `(occurred_at,
 * global_position)` and continues after a cursor of both, so `(occurred_at, global_position)`
 * yields the window's rows already in page order: an index range read that stops after one page,
 * whatever the ledger's size (before, such a page was ordered by global position: the window's
 * rows were read and sorted, or the ledger walked from the cursor on). It replaces `(occurred_at)`,
 * which it covers; the number of `audit_events`' indexes stays the same.
 */
export class AuditTimeOrder1799000700000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'AuditTimeOrder1799000700000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of auditTimeOrderSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_time_idx ON ${s}.audit_events (occurred_at)`);
    await q.query(`DROP INDEX IF EXISTS ${s}.audit_events_time_pos_idx`);
  }
}

/** The DDL of {@link AuditTimeOrder1799000700000}. */
export function auditTimeOrderSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [`CREATE INDEX IF NOT EXISTS audit_events_time_pos_idx ON ${s}.audit_events (occurred_at, global_position)`, `DROP INDEX IF EXISTS ${s}.audit_events_time_idx`];
}
