import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A gaming-day close is a fact of the ledger (docs/reports.md §2): its `GamingDayClosed` event, appended
 * through `ledger_append` (hash chain, outbox, Kafka, anchors). `gaming_day_closes` keeps only the
 * report bytes beside it, found by `event_id`; a row no event names is not a close (the API never serves
 * it, `npm run -s verify` reports it).
 *
 * - `gaming_day_closes.event_id`: the `GamingDayClosed` event whose report the row holds (text; unique).
 * - `gaming_day_close_tables` is dropped: which (day, table) is closed is read from the events, so a row
 *   written there with the API's login can no longer suppress a close.
 */
export class ClosesAreEvents1799000400000 implements MigrationInterface {
  name = 'ClosesAreEvents1799000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gaming_day_closes ADD COLUMN IF NOT EXISTS event_id text NULL`);
    await q.query(`CREATE UNIQUE INDEX IF NOT EXISTS gaming_day_closes_event_idx ON gaming_day_closes (event_id)`);
    await q.query(`DROP TABLE IF EXISTS gaming_day_close_tables`);
  }

  async down(): Promise<void> {
    throw new Error('gaming_day_closes holds signed, booked reports: this migration is not reverted');
  }
}
