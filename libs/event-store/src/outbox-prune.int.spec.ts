/**
 * Pruning of the outbox (docs/guarantees.md §4) against the real PostgreSQL and Kafka: published
 * rows older than the retention are deleted by the relay's login, in bounded batches; an
 * unpublished row never is (by the query, and by the trigger whoever asks); the leading relay's
 * loop prunes by itself; the events stay.
 */
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { ensureTopics } from '@ledger/infra';
import type { KafkaAdmin } from '@ledger/kafka';
import { PgEventStore } from './event-store';
import { OutboxRelay, pruneOutbox } from './outbox-relay';
import { DEVICE, TEST_EVENTS_TOPIC, TEST_KAFKA_BROKERS, TEST_RELAY_DATABASE_URL, collectingLogger, dealerChanges, ids, kafkaAdmin, openTestDataSource, pgClient } from './testing/int-support';
import { Client as PgClient } from 'pg';

jest.setTimeout(60_000);

let ds: DataSource;
let store: PgEventStore;
let admin: KafkaAdmin;
let owner: Client;
let relayDb: Client;

beforeAll(async () => {
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  ({ admin } = await kafkaAdmin());
  await ensureTopics(admin, [{ name: TEST_EVENTS_TOPIC, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  owner = await pgClient();
  relayDb = new PgClient({ connectionString: TEST_RELAY_DATABASE_URL });
  await relayDb.connect();
});

afterAll(async () => {
  await admin?.disconnect();
  await owner?.end();
  await relayDb?.end();
  await ds?.destroy();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function relay(over: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
  return new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger(), ...over });
}

async function append(n: number): Promise<LedgerEvent[]> {
  const { streamId, tableId } = ids();
  return (await store.append({ streamId, tableId, expectedVersion: 0, events: dealerChanges(n), metadata: { actor: DEVICE, correlationId: 'prune' } })).events;
}

async function outboxRows(events: readonly LedgerEvent[]): Promise<{ published: number; unpublished: number }> {
  const { rows } = await owner.query(
    `SELECT count(*) FILTER (WHERE published_at IS NOT NULL)::int AS published, count(*) FILTER (WHERE published_at IS NULL)::int AS unpublished
       FROM outbox WHERE global_position = ANY($1::bigint[])`,
    [events.map((e) => e.globalPosition)],
  );
  return rows[0];
}

async function eventsKept(events: readonly LedgerEvent[]): Promise<number> {
  const { rows } = await owner.query(`SELECT count(*)::int AS n FROM events WHERE global_position = ANY($1::bigint[])`, [events.map((e) => e.globalPosition)]);
  return rows[0].n;
}

async function publishAll(): Promise<void> {
  const r = relay();
  try {
    await r.runOnce();
  } finally {
    await r.stop();
  }
}

describe('outbox pruning', () => {
  it('deletes published rows older than the retention, keeps newer ones and every unpublished one; events stay', async () => {
    const old = await append(3);
    const recent = await append(2);
    await publishAll();
    const pending = await append(2); // not published: no relay runs now
    // `old` was published 8 days ago; `pending` was enqueued 8 days ago and never published
    await owner.query(`UPDATE outbox SET published_at = now() - interval '8 days' WHERE global_position = ANY($1::bigint[])`, [old.map((e) => e.globalPosition)]);
    await owner.query(`UPDATE outbox SET enqueued_at = now() - interval '8 days' WHERE global_position = ANY($1::bigint[])`, [pending.map((e) => e.globalPosition)]);

    const deleted = await pruneOutbox(relayDb, 7 * 24 * 3600 * 1000);
    expect(deleted).toBeGreaterThanOrEqual(3);
    expect(await outboxRows(old)).toEqual({ published: 0, unpublished: 0 });
    expect(await outboxRows(recent)).toEqual({ published: 2, unpublished: 0 });
    expect(await outboxRows(pending)).toEqual({ published: 0, unpublished: 2 });

    // retention 0: every published row goes, still no unpublished one. One call deletes a bounded number
    // of rows (oldest first); the suites before this one may have left more published rows in the shared
    // test database than that, so call it until nothing is left, as the relay's loop does over its runs
    for (let i = 0; i < 100 && (await pruneOutbox(relayDb, 0)) > 0; i++);
    expect(await outboxRows(recent)).toEqual({ published: 0, unpublished: 0 });
    expect(await outboxRows(pending)).toEqual({ published: 0, unpublished: 2 });
    expect(await eventsKept([...old, ...recent, ...pending])).toBe(7);

    // the trigger: not even the relay's login deletes an unpublished row by hand
    await expect(relayDb.query(`DELETE FROM outbox WHERE global_position = $1`, [pending[0].globalPosition])).rejects.toMatchObject({ code: 'LA001' });
    await publishAll();
    expect(await outboxRows(pending)).toEqual({ published: 2, unpublished: 0 });
  });

  it('the leading relay prunes by itself (OUTBOX_RETENTION_MS = 0, pruning every second)', async () => {
    const r = relay({ retentionMs: 0, pruneIntervalMs: 1000 });
    await r.start();
    try {
      const events = await append(4);
      const deadline = Date.now() + 30_000;
      let rows = await outboxRows(events);
      while ((rows.published > 0 || rows.unpublished > 0) && Date.now() < deadline) {
        await sleep(1000);
        rows = await outboxRows(events);
      }
      expect(rows).toEqual({ published: 0, unpublished: 0 });
      expect(r.pruned).toBeGreaterThanOrEqual(4);
      expect(await eventsKept(events)).toBe(4);
    } finally {
      await r.stop();
    }
  });
});
