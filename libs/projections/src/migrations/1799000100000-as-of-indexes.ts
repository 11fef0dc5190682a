import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * Indexes for the answers "as the ledger knew it at global position P" (docs/reports.md §3,
 * `apps/ledger/src/reports/as-of/`):
 *
 * - `applied_events (global_position)`: the check that every event ≤ P is applied, and the
 *   position of a bet's placement (`bet_settlements.placed_event_id` → `applied_events`).
 * - `hand_outcome_revisions (global_position)` and `bet_settlement_revisions (global_position)`:
 *   the revisions recorded after a gaming day's close (the adjustments, docs/reports.md §2), and the
 *   settlements export, which reads the revisions of a range of positions in keyset batches (docs/reports.md §5).
 *
 * No new column: both revision tables already carry the `global_position` of their event. A rebuild
 * re-creates these like every other secondary index (`rebuild-indexes.ts` reads them from the catalog).
 */
export class AsOfIndexes1799000100000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'AsOfIndexes1799000100000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of asOfIndexesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    for (const name of ['applied_events_position_idx', 'hand_outcome_revisions_position_idx', 'bet_settlement_revisions_position_idx']) {
      await q.query(`DROP INDEX IF EXISTS ${s}.${name}`);
    }
  }
}

/** The DDL of {@link AsOfIndexes1799000100000}. */
export function asOfIndexesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE INDEX IF NOT EXISTS applied_events_position_idx ON ${s}.applied_events (global_position)`,
    `CREATE INDEX IF NOT EXISTS hand_outcome_revisions_position_idx ON ${s}.hand_outcome_revisions (global_position)`,
    `CREATE INDEX IF NOT EXISTS bet_settlement_revisions_position_idx ON ${s}.bet_settlement_revisions (global_position)`,
  ];
}
