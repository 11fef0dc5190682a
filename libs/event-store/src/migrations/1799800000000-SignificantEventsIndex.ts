import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The significant events are read from the event store, not only from the read model
 * (docs/significant-events.md, "What the read model may not decide"): the escalation gauges count
 * the raises with no acknowledgement from `events` itself. A partial index over the two significant
 * types keeps that read proportional to the significant events, never to the ledger.
 */
export class SignificantEventsIndex1799800000000 implements MigrationInterface {
  name = 'SignificantEventsIndex1799800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS events_significant_idx ON events (global_position) WHERE type IN ('SignificantEventRaised', 'SignificantEventAcknowledged')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS events_significant_idx`);
  }
}
