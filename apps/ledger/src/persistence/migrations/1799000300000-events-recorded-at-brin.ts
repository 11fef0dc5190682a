import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A BRIN index on `events.recorded_at` for the exports (docs/reports.md §5): an export's period
 * (`from`, `to`: recording times) is resolved to the global positions of its first and last
 * event with two statements on this index, then the events are read in position order on the
 * primary key. BRIN (block ranges, not one entry per row) because `recorded_at` grows with the
 * table's physical order: it costs the append next to nothing (no per-row entry, unlike the B-tree
 * on `recorded_at` that 1797000000000 dropped for having no reader) and stays a few pages large.
 * Run as `ledger_owner` (the table's owner). Idempotent.
 */
export class EventsRecordedAtBrin1799000300000 implements MigrationInterface {
  name = 'EventsRecordedAtBrin1799000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS events_recorded_at_brin ON events USING brin (recorded_at) WITH (pages_per_range = 32)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS events_recorded_at_brin`);
  }
}
