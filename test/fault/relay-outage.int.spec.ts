/**
 * A Kafka outage only grows the outbox (docs/guarantees.md §4; the failure "nothing says what happens
 * when Kafka is down for an hour"): a relay process from `dist/` publishes to a private broker
 * (scripts/stack.sh in its own STACK_DIR and ports, as the fault run starts it); the broker is
 * stopped for RELAY_OUTAGE_S seconds (default 60; longer soaks: set it higher) while events are
 * appended every second; the appends all succeed, nothing is published meanwhile, the relay stays
 * up; when the broker is back the backlog drains: every event once, in per-partition position order.
 * Needs `npm run build` (scripts/test.sh builds).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import { PgEventStore, OutboxRelay } from '@ledger/event-store';
import { TEST_KAFKA_BROKERS, TEST_RELAY_DATABASE_URL, collectingLogger, openTestDataSource, pgClient } from '../../libs/event-store/src/testing/int-support';
import { assertBuilt, freePort, PrivateKafka, sleep } from './cluster';
import { appendEvents, checkTopic, ensureTopic, readWholeTopic, relayProcess, runDir, within } from './relay-support';

const OUTAGE_S = Math.max(1, Number(process.env.RELAY_OUTAGE_S ?? 60));
jest.setTimeout((OUTAGE_S + 600) * 1000);

const TOPIC = 'test.int.outage.events.v1';

let ds: DataSource;
let store: PgEventStore;
let db: Client;
let broker: PrivateKafka;
let kafka: KafkaClient;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  dir = runDir('outage');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  broker = new PrivateKafka(dir, await freePort(19392), await freePort(19393), join(dir, 'logs', 'kafka.log'));
  await broker.up();
  kafka = createKafka({ clientId: 'ledger-int-outage', brokers: broker.brokers, logLevel: 'nothing' });
  await ensureTopic(kafka, TOPIC, 3);
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TOPIC });
  db = await pgClient();
  // rows other suites left unpublished name topics of the shared broker: publish them there first
  const drain = new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger() });
  await drain.runOnce();
  await drain.stop();
}, 300_000);

afterAll(async () => {
  await db?.end();
  await ds?.destroy();
  await broker?.down().catch(() => undefined);
}, 120_000);

async function unpublished(events: readonly LedgerEvent[]): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = ANY($1::bigint[]) AND published_at IS NULL`, [events.map((e) => e.globalPosition)]);
  return rows[0].n;
}

describe(`a Kafka outage of ${OUTAGE_S} s (private broker)`, () => {
  it('appends keep working, the outbox only grows, the relay stays up, and the backlog drains in order once each', async () => {
    const relay = relayProcess('relay', dir, { KAFKA_BROKERS: broker.brokers.join(','), RELAY_POLL_INTERVAL_MS: '200' });
    try {
      relay.start();
      const before = await appendEvents(store, 3, 10, 'before');
      expect(await within(60_000, async () => (await unpublished(before)) === 0)).toBe(true);

      await broker.down();
      const downAt = Date.now();
      const during: LedgerEvent[] = [];
      let appendFailures = 0;
      for (let tick = 0; Date.now() - downAt < OUTAGE_S * 1000; tick++) {
        try {
          during.push(...(await appendEvents(store, 1, 1 + (tick % 3), `down${tick}-`)));
        } catch {
          appendFailures++;
        }
        await sleep(1000);
      }
      expect(appendFailures).toBe(0);
      expect(during.length).toBeGreaterThanOrEqual(OUTAGE_S / 2);
      // nothing reached Kafka meanwhile: the outbox holds every one of them
      expect(await unpublished(during)).toBe(during.length);
      expect(relay.running).toBe(true);

      await broker.up();
      const after = await appendEvents(store, 2, 5, 'after');
      expect(await within(180_000, async () => (await unpublished([...during, ...after])) === 0)).toBe(true);
      expect(relay.unexpectedExits).toEqual([]);
      expect(relay.running).toBe(true);

      const all = [...before, ...during, ...after];
      const check = checkTopic(await readWholeTopic(kafka, TOPIC), all);
      expect(check).toEqual({ missing: [], duplicates: 0, different: [], outOfOrder: [], foreign: 0 });
      process.stdout.write(`relay outage: broker down ${OUTAGE_S} s, ${during.length} events appended meanwhile, ${all.length} in all, each once on Kafka\n`);
    } finally {
      await relay.stop();
    }
  });
});
