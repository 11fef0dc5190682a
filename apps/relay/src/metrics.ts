import { Client } from 'pg';
import type { RelayEnv } from '@ledger/config';
import { pgClientConfig } from '@ledger/infra';
import { catalogueGauge, collectProcessMetrics } from '@ledger/metrics';

/**
 * Registers the relay's scrape-time gauges (docs/architecture.md §8) besides the leader and backlog
 * gauges: the age of the oldest unpublished outbox row, seconds (0 when the outbox is drained, -1
 * when the read failed), read on its own session at each scrape — what an operator watches during a
 * Kafka outage (docs/guarantees.md §4). Idempotent (the registry keeps one gauge per name).
 * @param config the relay's validated configuration (its database URL)
 */
export function registerRelayMetrics(config: RelayEnv): void {
  collectProcessMetrics();
  let session: Client | null = null;
  catalogueGauge('outboxOldestAge', async function () {
    try {
      if (!session) {
        const c = new Client(pgClientConfig(config.RELAY_DATABASE_URL, 'ledger-relay-metrics-age'));
        c.on('error', () => (session = null));
        await c.connect();
        session = c;
      }
      const { rows } = await session.query<{ age: string | null }>('SELECT extract(epoch FROM now() - min(enqueued_at)) AS age FROM outbox WHERE published_at IS NULL');
      this.set(rows[0].age === null ? 0 : Math.max(0, Number(rows[0].age)));
    } catch {
      session = null;
      this.set(-1);
    }
  });
}
