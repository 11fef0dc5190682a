import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * `bet_settlement_revisions` indexed by `global_position` for the settlements export
 * (docs/reports.md §5): the export reads the revisions (settlement, resettlement, refund) whose
 * event lies in the period's range of global positions, in position order, one keyset batch at a
 * time; without this index each batch would scan the table.
 */
export class SettlementRevisionsPosition1799000300000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'SettlementRevisionsPosition1799000300000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of settlementRevisionsPositionSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS "${assertSchemaName(this.schema)}".bet_settlement_revisions_position_idx`);
  }
}

/** The statements of {@link SettlementRevisionsPosition1799000300000}. */
export function settlementRevisionsPositionSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [`CREATE INDEX IF NOT EXISTS bet_settlement_revisions_position_idx ON ${s}.bet_settlement_revisions (global_position)`];
}
