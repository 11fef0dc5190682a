/**
 * A frozen relay leader hands over (docs/guarantees.md §4; the failure "a frozen relay leader keeps
 * its lock"): two relay processes from `dist/`; the leader is stopped with SIGSTOP (not killed: its
 * PostgreSQL session stays open); the events appended meanwhile are all published by the standby
 * within the lease bound (RELAY_LEASE_TTL_MS + RELAY_STANDBY_RETRY_MS + slack, polled once a
 * second). Then SIGCONT: the old leader finds it lost the lease and publishes nothing more; the
 * private topic holds every event once in per-partition position order, or only byte-identical
 * duplicates. Needs `npm run build` (scripts/test.sh builds).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { ensureTopics } from '@ledger/infra';
import { createKafka, type KafkaAdmin, type KafkaClient } from '@ledger/kafka';
import { PgEventStore, OutboxRelay } from '@ledger/event-store';
import { TEST_KAFKA_BROKERS, TEST_RELAY_DATABASE_URL, collectingLogger, openTestDataSource, pgClient } from '../../libs/event-store/src/testing/int-support';
import { assertBuilt, freePort } from './cluster';
import { appendEvents, checkTopic, readWholeTopic, relayProcess, runDir, within } from './relay-support';

jest.setTimeout(240_000);

const TTL_MS = 3000;
const STANDBY_RETRY_MS = 1000;
/** The bound the standby must meet: the lease runs out, the standby's next try, a drain; plus slack for a loaded 2-core machine. */
const TAKEOVER_BOUND_MS = TTL_MS + STANDBY_RETRY_MS + 10_000;

const TOPIC = `test.int.lease.${randomUUID().slice(0, 8)}.v1`;

let ds: DataSource;
let store: PgEventStore;
let kafka: KafkaClient;
let admin: KafkaAdmin;
let db: Client;

beforeAll(async () => {
  assertBuilt();
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TOPIC });
  kafka = createKafka({ clientId: 'ledger-int-lease', brokers: TEST_KAFKA_BROKERS, logLevel: 'nothing' });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [{ name: TOPIC, partitions: 3, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  db = await pgClient();
  // what other suites left unpublished goes first (their topics exist), so the relays below only publish this test's rows
  const drain = new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger() });
  await drain.runOnce();
  await drain.stop();
});

afterAll(async () => {
  await admin?.deleteTopics([TOPIC]).catch(() => undefined);
  await admin?.disconnect();
  await db?.end();
  await ds?.destroy();
});

async function unpublished(events: readonly LedgerEvent[]): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = ANY($1::bigint[]) AND published_at IS NULL`, [events.map((e) => e.globalPosition)]);
  return rows[0].n;
}

describe('relay leadership under a freeze (two relay processes)', () => {
  it('a SIGSTOPped leader loses the lease, the standby publishes everything, the woken old leader publishes nothing more', async () => {
    const dir = runDir('lease');
    const env = {
      KAFKA_BROKERS: TEST_KAFKA_BROKERS.join(','),
      RELAY_LEASE_TTL_MS: String(TTL_MS),
      RELAY_STANDBY_RETRY_MS: String(STANDBY_RETRY_MS),
      RELAY_POLL_INTERVAL_MS: '200',
    };
    const a = relayProcess('relay-a', dir, env);
    // the standby serves its metrics (RELAY_HTTP_PORT): whether it leads, what it published, the backlog
    const metricsPort = await freePort();
    const b = relayProcess('relay-b', dir, { ...env, RELAY_HTTP_PORT: String(metricsPort) });
    const metric = async (name: string): Promise<number | null> => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? null : Number(line.slice(name.length + 1));
    };
    let aStopped = false;
    try {
      a.start();
      expect(await within(60_000, async () => a.logText().includes('"relay is the leader"'))).toBe(true);
      b.start();
      expect(await within(60_000, async () => b.logText().includes('another relay publishes: standing by'))).toBe(true);

      const before = await appendEvents(store, 2, 6, 'pre');
      expect(await within(30_000, async () => (await unpublished(before)) === 0)).toBe(true);
      expect(b.logText()).not.toContain('"relay is the leader"');
      expect(await within(30_000, async () => (await metric('ledger_relay_leader')) === 0)).toBe(true);
      expect(await metric('ledger_outbox_published_total')).toBe(0);

      // freeze the leader: its process is stopped, its PostgreSQL session stays open
      process.kill(a.pid!, 'SIGSTOP');
      aStopped = true;
      const during = await appendEvents(store, 2, 12, 'frozen');
      const tookOver = await within(TAKEOVER_BOUND_MS, async () => (await unpublished(during)) === 0);
      expect({ publishedWithinMs: TAKEOVER_BOUND_MS, tookOver, left: await unpublished(during) }).toEqual({ publishedWithinMs: TAKEOVER_BOUND_MS, tookOver: true, left: 0 });
      expect(b.logText()).toContain('"relay is the leader"');
      expect({ leader: await metric('ledger_relay_leader'), backlog: await metric('ledger_outbox_unpublished_rows') }).toEqual({ leader: 1, backlog: 0 });
      expect(await metric('ledger_outbox_published_total')).toBeGreaterThanOrEqual(during.length);
      const { rows: leaseRows } = await db.query(`SELECT holder, generation::int AS generation FROM outbox_leases WHERE name = 'ledger-relay'`);
      expect(leaseRows[0].holder).toContain(`:${b.pid}:`);
      expect(leaseRows[0].generation).toBeGreaterThanOrEqual(2);

      // wake the old leader: it finds the lease lost and stands by
      process.kill(a.pid!, 'SIGCONT');
      aStopped = false;
      expect(await within(30_000, async () => a.logText().includes('relay lost the lease'))).toBe(true);
      const after = await appendEvents(store, 2, 6, 'post');
      expect(await within(30_000, async () => (await unpublished(after)) === 0)).toBe(true);
      const { rows: still } = await db.query(`SELECT holder FROM outbox_leases WHERE name = 'ledger-relay'`);
      expect(still[0].holder).toContain(`:${b.pid}:`);

      const all = [...before, ...during, ...after];
      const check = checkTopic(await readWholeTopic(kafka, TOPIC), all);
      expect(check).toMatchObject({ missing: [], different: [], outOfOrder: [], foreign: 0 });
      // the leader was idle when frozen (nothing in flight), so nothing was sent twice at all
      expect(check.duplicates).toBe(0);
    } finally {
      if (aStopped && a.pid) process.kill(a.pid, 'SIGCONT');
      await a.stop();
      await b.stop();
    }
  });
});
