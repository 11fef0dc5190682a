/**
 * The ledger topic lost and rebuilt from PostgreSQL (docs/guarantees.md §4, §7; the failure "no
 * tool republishes the topic from PostgreSQL"): a relay publishes events to a private topic; the
 * topic is deleted and re-created empty; `npm run -s republish -- --from-position N` (a child
 * process, with a relay running alongside) puts back every event once, in order, each record
 * byte-identical to the relay's original (key, value, headers with the signature, partition); a
 * second run adds only byte-identical duplicates; the relay, fenced out meanwhile, takes over
 * again and publishes what comes next.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import { PgEventStore, OutboxRelay } from '@ledger/event-store';
import { TEST_DATABASE_URL, TEST_KAFKA_BROKERS, TEST_RELAY_DATABASE_URL, collectingLogger, openTestDataSource, pgClient, type ReadRecord } from '../../libs/event-store/src/testing/int-support';
import { REPO_ROOT } from './cluster';
import { appendEvents, checkTopic, ensureTopic, readWholeTopic, within } from './relay-support';

jest.setTimeout(240_000);

const run = promisify(execFile);
const TOPIC = `test.int.republish.${randomUUID().slice(0, 8)}.v1`;

let ds: DataSource;
let store: PgEventStore;
let kafka: KafkaClient;
let db: Client;

beforeAll(async () => {
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TOPIC });
  kafka = createKafka({ clientId: 'ledger-int-republish', brokers: TEST_KAFKA_BROKERS, logLevel: 'nothing' });
  await ensureTopic(kafka, TOPIC, 3);
  db = await pgClient();
});

afterAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics([TOPIC]).catch(() => undefined);
  await admin.disconnect();
  await db?.end();
  await ds?.destroy();
});

async function unpublished(events: readonly LedgerEvent[]): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = ANY($1::bigint[]) AND published_at IS NULL`, [events.map((e) => e.globalPosition)]);
  return rows[0].n;
}

/** `npm run -s republish -- …args` as a child process; @returns its stdout */
async function republish(...args: string[]): Promise<string> {
  const { stdout } = await run('npm', ['run', '-s', 'republish', '--', ...args], {
    cwd: REPO_ROOT,
    timeout: 120_000,
    env: {
      ...process.env,
      DATABASE_URL: TEST_DATABASE_URL,
      RELAY_DATABASE_URL: TEST_RELAY_DATABASE_URL,
      KAFKA_BROKERS: TEST_KAFKA_BROKERS.join(','),
      LEDGER_EVENTS_TOPIC: TOPIC,
      LOG_LEVEL: 'warn',
    },
  });
  return stdout;
}

/** The records of the given events, per event id: partition, key, value, headers. */
function byEvent(records: readonly ReadRecord[]): Map<string, Omit<ReadRecord, 'offset'>> {
  const m = new Map<string, Omit<ReadRecord, 'offset'>>();
  for (const { offset: _offset, ...r } of records) if (!m.has(r.headers.ce_id)) m.set(r.headers.ce_id, r);
  return m;
}

describe('republish the ledger topic from PostgreSQL', () => {
  it('after the topic was deleted and re-created: every event once, in order, byte-identical to the relay’s; twice: only identical duplicates', async () => {
    // a relay runs all along (standby retry 1 s): the republish fences it out and gives the lease back
    const relay = new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger(), standbyRetryMs: 1000 });
    await relay.start();
    try {
      const events = await appendEvents(store, 3, 24, 'orig');
      expect(await within(30_000, async () => (await unpublished(events)) === 0)).toBe(true);
      const original = await readWholeTopic(kafka, TOPIC);
      expect(checkTopic(original, events)).toEqual({ missing: [], duplicates: 0, different: [], outOfOrder: [], foreign: 0 });

      // the topic is lost and re-created empty
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.deleteTopics([TOPIC]);
      } finally {
        await admin.disconnect();
      }
      expect(await within(60_000, async () => !(await listTopics()).includes(TOPIC))).toBe(true);
      await ensureTopic(kafka, TOPIC, 3);
      expect(await readWholeTopic(kafka, TOPIC)).toEqual([]);

      const { rows: before } = await db.query(`SELECT generation::int AS g FROM outbox_leases WHERE name = 'ledger-relay'`);
      const out = await republish('--from-position', events[0].globalPosition);
      expect(out).toMatch(new RegExp(`^republished ${events.length} records \\(positions ${events[0].globalPosition}\\.\\.${events[events.length - 1].globalPosition}\\) to ${TOPIC.replace(/\./g, '\\.')}`));
      const { rows: lease } = await db.query(`SELECT holder, generation::int AS g, expires_at <= clock_timestamp() AS given_back FROM outbox_leases WHERE name = 'ledger-relay'`);
      expect(lease[0].holder).toMatch(/^republish:/);
      expect(lease[0].g).toBeGreaterThan(before[0].g);
      expect(lease[0].given_back).toBe(true);

      const rebuilt = await readWholeTopic(kafka, TOPIC);
      expect(checkTopic(rebuilt, events)).toEqual({ missing: [], duplicates: 0, different: [], outOfOrder: [], foreign: 0 });
      // byte-identical to the relay's originals, on the same partitions, in the same order
      expect(byEvent(rebuilt)).toEqual(byEvent(original));
      expect(rebuilt.map((r) => [r.partition, r.headers.ce_id])).toEqual(original.map((r) => [r.partition, r.headers.ce_id]));

      // idempotent: a second run only adds byte-identical duplicates
      await republish('--from-position', events[0].globalPosition);
      const twice = await readWholeTopic(kafka, TOPIC);
      expect(checkTopic(twice, events)).toEqual({ missing: [], duplicates: events.length, different: [], outOfOrder: [], foreign: 0 });

      // the relay takes the lease back and publishes what comes next
      const next = await appendEvents(store, 1, 3, 'next');
      expect(await within(30_000, async () => (await unpublished(next)) === 0)).toBe(true);
      expect(checkTopic(await readWholeTopic(kafka, TOPIC), next)).toMatchObject({ missing: [], duplicates: 0, different: [] });
      const { rows: after } = await db.query(`SELECT holder FROM outbox_leases WHERE name = 'ledger-relay'`);
      expect(after[0].holder).toBe(relay.lease.holder);
    } finally {
      await relay.stop();
    }
  });
});

describe('republish to another topic', () => {
  it('leaves the ledger topic’s unpublished outbox rows to the relays (it marks only rows bound for the topic it sent to)', async () => {
    const scratch = `test.int.republish.scratch.${randomUUID().slice(0, 8)}.v1`;
    await ensureTopic(kafka, scratch, 1);
    let pending: LedgerEvent[] = [];
    try {
      // appended while no relay runs: unpublished, bound for TOPIC
      pending = await appendEvents(store, 1, 4, 'scratch');
      expect(await unpublished(pending)).toBe(pending.length);
      const out = await republish('--from-position', pending[0].globalPosition, '--topic', scratch);
      expect(out).toMatch(/outbox rows marked 0/);
      expect(await unpublished(pending)).toBe(pending.length);
      // and the scratch topic got them
      expect(checkTopic(await readWholeTopic(kafka, scratch), pending)).toMatchObject({ missing: [], different: [] });
    } finally {
      // TOPIC goes at the end of this file: leave no row bound for it to the other suites' relays
      if (pending.length) await db.query(`UPDATE outbox SET published_at = now() WHERE global_position = ANY($1::bigint[])`, [pending.map((e) => e.globalPosition)]);
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics([scratch]).catch(() => undefined);
      await admin.disconnect();
    }
  });
});

async function listTopics(): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}
