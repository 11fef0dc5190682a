import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * The types of the decisions page (`GET /audit/decisions`, `apps/ledger/src/audit/audit.service.ts`):
 * the partial index {@link auditKeysetIndexesSql} builds for it names exactly these, and the query
 * spells the same list out in its SQL so that PostgreSQL can prove it may use the index.
 */
export const AUDIT_DECISION_TYPES = ['RoundVoided', 'ResultCorrected', 'ShoeVoided', 'CommencementCorrected'] as const;

/**
 * `audit_events` indexed for what the audit queries ask (docs/architecture.md §7, "Audit search"):
 * every page of `GET /audit/events` and `GET /audit/decisions` is ordered by `global_position` and
 * continues after a cursor position (keyset pagination), so each equality filter gets an index
 * `(filter, global_position)` that yields its rows already in page order: an index scan reads one
 * page's rows and stops, instead of sorting every row the filter matches (or walking the primary
 * key past millions of rows of other tables). One partial index holds the decisions page's rows.
 * Extended statistics on the filter columns (a shoe belongs to one table, a device to one table)
 * keep the planner from multiplying correlated selectivities when two filters are combined.
 *
 * Kept: `(occurred_at)`, for a time window without another filter (`occurred_at` is the device's
 * clock, not global order, so no index yields such a window in page order; see the docs).
 * Dropped: the `(…, occurred_at)` indexes these replace, and those no query reads — by bet, by
 * correlation id, the `event_id` and `(stream_id, stream_version)` unique constraints (the primary
 * key on `global_position` keeps one row per event; `applied_events` is the projection's
 * exactly-once record, docs/guarantees.md §6). 11 indexes become 8: fewer entries per projected
 * event and per rebuilt row.
 *
 * Built inside the migration's transaction (not CONCURRENTLY): on a large live model the projector's
 * writes to `audit_events` wait while they build (seconds per million rows, measured on 2,000,000).
 */
export class AuditKeysetIndexes1797020000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'AuditKeysetIndexes1797020000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of auditKeysetIndexesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    for (const name of AUDIT_KEYSET_INDEX_NAMES) await q.query(`DROP INDEX IF EXISTS ${s}.${name}`);
    await q.query(`DROP STATISTICS IF EXISTS ${s}.audit_events_filter_stats`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_table_time_idx ON ${s}.audit_events (table_id, occurred_at)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_shoe_idx ON ${s}.audit_events (shoe_id, stream_version)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_type_time_idx ON ${s}.audit_events (type, occurred_at)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_actor_time_idx ON ${s}.audit_events (actor_id, occurred_at)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_round_idx ON ${s}.audit_events (round_id) WHERE round_id IS NOT NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_bet_idx ON ${s}.audit_events (bet_id) WHERE bet_id IS NOT NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_events_correlation_idx ON ${s}.audit_events (correlation_id)`);
    await q.query(`ALTER TABLE ${s}.audit_events ADD CONSTRAINT audit_events_event_id_key UNIQUE (event_id)`);
    await q.query(`ALTER TABLE ${s}.audit_events ADD CONSTRAINT audit_events_stream_id_stream_version_key UNIQUE (stream_id, stream_version)`);
  }
}

/** Names of the indexes {@link auditKeysetIndexesSql} creates. */
export const AUDIT_KEYSET_INDEX_NAMES = [
  'audit_events_table_pos_idx',
  'audit_events_shoe_pos_idx',
  'audit_events_round_pos_idx',
  'audit_events_type_pos_idx',
  'audit_events_actor_pos_idx',
  'audit_events_decisions_pos_idx',
] as const;

/**
 * The statements of {@link AuditKeysetIndexes1797020000000}, in order (also what a rebuild that
 * loads first and indexes after must run on `audit_events` once loaded).
 */
export function auditKeysetIndexesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  const decisionTypes = AUDIT_DECISION_TYPES.map((t) => `'${t}'`).join(', ');
  return [
    ...['audit_events_table_time_idx', 'audit_events_shoe_idx', 'audit_events_type_time_idx', 'audit_events_actor_time_idx', 'audit_events_round_idx', 'audit_events_bet_idx', 'audit_events_correlation_idx'].map(
      (name) => `DROP INDEX IF EXISTS ${s}.${name}`,
    ),
    `ALTER TABLE ${s}.audit_events DROP CONSTRAINT IF EXISTS audit_events_event_id_key`,
    `ALTER TABLE ${s}.audit_events DROP CONSTRAINT IF EXISTS audit_events_stream_id_stream_version_key`,
    `CREATE INDEX IF NOT EXISTS audit_events_table_pos_idx ON ${s}.audit_events (table_id, global_position)`,
    // also recall's rows of one shoe (recall/recall.service.ts), in stream order = global order
    `CREATE INDEX IF NOT EXISTS audit_events_shoe_pos_idx ON ${s}.audit_events (shoe_id, global_position)`,
    `CREATE INDEX IF NOT EXISTS audit_events_round_pos_idx ON ${s}.audit_events (round_id, global_position) WHERE round_id IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS audit_events_type_pos_idx ON ${s}.audit_events (type, global_position)`,
    `CREATE INDEX IF NOT EXISTS audit_events_actor_pos_idx ON ${s}.audit_events (actor_id, global_position)`,
    `CREATE INDEX IF NOT EXISTS audit_events_decisions_pos_idx ON ${s}.audit_events (global_position) WHERE type IN (${decisionTypes})`,
    `CREATE STATISTICS IF NOT EXISTS ${s}.audit_events_filter_stats (dependencies) ON table_id, shoe_id, round_id, type, actor_id FROM ${s}.audit_events`,
    `ANALYZE ${s}.audit_events`,
  ];
}
