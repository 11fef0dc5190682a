import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's `occurred_at` and `recorded_at` are instants every reader can hold (docs/guarantees.md):
 * from year 1 to year 9999 (UTC), never PostgreSQL's `infinity` or a year JavaScript's `Date` cannot
 * represent. The event store's own append checks the device's time, but a login that may execute
 * `ledger_append` could pass any `timestamptz`, and one such event made `npm run -s verify` exit 2
 * and stalled the relay's batch (found by review). A `CHECK` on `events`, `NOT VALID`: it binds every
 * event written from now on, whatever login writes it, without scanning the ledger (rows written
 * before are as they were).
 */
export class FiniteEventTimes1800000000000 implements MigrationInterface {
  name = 'FiniteEventTimes1800000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE events ADD CONSTRAINT events_times_finite
         CHECK (occurred_at >= '0001-01-01T00:00:00Z' AND occurred_at < '10000-01-01T00:00:00Z'
            AND recorded_at >= '0001-01-01T00:00:00Z' AND recorded_at < '10000-01-01T00:00:00Z') NOT VALID`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT IF EXISTS events_times_finite`);
  }
}
