import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * `bet_settlement_revisions.acting_manager_id`: the pit manager who requested the management
 * decision behind a resettlement or refund (its `decision.actingManagerId`), beside `approver_id`,
 * the one who approved it. In the four-eyes flow the compensating events are appended with the
 * approver's token, so the envelope's actor (`actor_id`) is the approver; a settlement history names
 * the acting manager as its actor from this column (docs/reports.md §4.1). Null for an entry no
 * decision caused (a settlement, an automatic void's refund).
 *
 * Existing rows are filled from the decisions the read model already holds, as the projection
 * finds them: a refund's from the void it compensates (`hand_outcome_revisions`, or `shoe_state`
 * for a shoe void), a resettlement's from the round's latest revision before it. A rebuild
 * (`npm run projections:rebuild`) gives the same values.
 */
export class SettlementActingManager1799000600000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'SettlementActingManager1799000600000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of settlementActingManagerSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "${assertSchemaName(this.schema)}".bet_settlement_revisions DROP COLUMN IF EXISTS acting_manager_id`);
  }
}

/** The DDL (and the fill of existing rows) of {@link SettlementActingManager1799000600000}. */
export function settlementActingManagerSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `ALTER TABLE ${s}.bet_settlement_revisions ADD COLUMN IF NOT EXISTS acting_manager_id text`,
    `UPDATE ${s}.bet_settlement_revisions v SET acting_manager_id = CASE v.kind
       WHEN 'REFUNDED' THEN coalesce(
         (SELECT coalesce(r.acting_manager_id, sv.void_actor_id) FROM ${s}.hand_outcome_revisions r
            LEFT JOIN ${s}.shoe_state sv ON sv.void_event_id = r.caused_by WHERE r.event_id = v.compensates LIMIT 1),
         (SELECT void_actor_id FROM ${s}.shoe_state WHERE void_event_id = v.compensates LIMIT 1))
       ELSE (SELECT r.acting_manager_id FROM ${s}.hand_outcome_revisions r
              WHERE r.round_id = v.round_id AND r.global_position < v.global_position ORDER BY r.revision DESC LIMIT 1)
     END
     WHERE v.reason IS NOT NULL AND v.acting_manager_id IS NULL`,
  ];
}
