/**
 * The relay's leadership lease and its fencing against the real PostgreSQL and Kafka
 * (docs/guarantees.md §4): a lease is taken only when free, expired by the database's clock, or
 * its holder's session is gone; the generation goes up at each acquisition; a holder whose
 * generation is stale can neither renew nor pass the fence of a mark transaction, so a deposed
 * relay that already sent a batch cannot mark it (the rows stay unpublished: the new leader sends
 * them again, byte-identical).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { ensureTopics, Lease, LeaseLostError } from '@ledger/infra';
import type { KafkaAdmin } from '@ledger/kafka';
import { PgEventStore } from './event-store';
import { OUTBOX_LEASE_TABLE, OutboxRelay } from './outbox-relay';
import { DEVICE, TEST_DATABASE_URL, TEST_EVENTS_TOPIC, TEST_KAFKA_BROKERS, TEST_RELAY_DATABASE_URL, collectingLogger, dealerChanges, ids, kafkaAdmin, openTestDataSource, pgClient } from './testing/int-support';

jest.setTimeout(60_000);

let ds: DataSource;
let store: PgEventStore;
let admin: KafkaAdmin;
let db: Client;
let other: Client;

beforeAll(async () => {
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  ({ admin } = await kafkaAdmin());
  await ensureTopics(admin, [{ name: TEST_EVENTS_TOPIC, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  db = await pgClient();
  other = await pgClient();
});

afterAll(async () => {
  await admin?.disconnect();
  await db?.end();
  await other?.end();
  await ds?.destroy();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` once a second until true; throws after `timeoutMs`. */
async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out (${timeoutMs} ms) waiting for ${what}`);
    await sleep(1000);
  }
}

function lease(name: string, holder: string, ttlMs = 60_000): Lease {
  return new Lease({ table: OUTBOX_LEASE_TABLE, name, holder, ttlMs });
}

describe('the lease (outbox_leases)', () => {
  it('is taken only when free; force takes it with generation + 1; the stale holder can neither renew nor pass the fence', async () => {
    const name = `test-${randomUUID()}`;
    const a = lease(name, 'a');
    const b = lease(name, 'b');
    const g1 = await a.acquire(db);
    expect(g1).toBe('1');
    await expect(b.acquire(other)).resolves.toBeNull();
    await expect(a.renew(db)).resolves.toBeUndefined();

    const g2 = await b.acquire(other, { force: true });
    expect(g2).toBe('2');
    await expect(a.renew(db)).rejects.toBeInstanceOf(LeaseLostError);

    // the fence inside a mark transaction: a stale generation cannot commit anything
    const stale = lease(name, 'a');
    (stale as unknown as { gen: string }).gen = '1';
    await db.query('BEGIN');
    try {
      await expect(stale.fence(db)).rejects.toBeInstanceOf(LeaseLostError);
    } finally {
      await db.query('ROLLBACK');
    }
    const row = await b.read(db);
    expect(row).toMatchObject({ holder: 'b', generation: '2', live: true });
  });

  it('expires by the database clock: a holder that stops renewing loses it after its TTL', async () => {
    const name = `test-${randomUUID()}`;
    const a = lease(name, 'a', 1000);
    const b = lease(name, 'b', 1000);
    await a.acquire(db); // db stays connected: only the TTL can depose a
    await expect(b.acquire(other)).resolves.toBeNull();
    await within(10_000, 'b takes the expired lease', async () => (await b.acquire(other)) !== null);
    expect(b.generation).toBe('2');
    await expect(a.renew(db)).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('is free at once when the holder’s session is gone (killed process, dropped connection)', async () => {
    const name = `test-${randomUUID()}`;
    const gone = await pgClient();
    const a = lease(name, 'a', 600_000);
    await a.acquire(gone);
    await expect(lease(name, 'b').acquire(other)).resolves.toBeNull();
    await gone.end();
    await within(10_000, 'b takes the lease of a closed session', async () => (await lease(name, 'b').acquire(other)) !== null);
  });
});

describe('fencing of the relay', () => {
  async function appendSome(n: number): Promise<LedgerEvent[]> {
    const { streamId, tableId } = ids();
    const r = await store.append({ streamId, tableId, expectedVersion: 0, events: dealerChanges(n), metadata: { actor: DEVICE, correlationId: 'fence' } });
    return r.events;
  }

  async function unpublished(events: readonly LedgerEvent[]): Promise<number> {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = ANY($1::bigint[]) AND published_at IS NULL`, [events.map((e) => e.globalPosition)]);
    return rows[0].n;
  }

  it('a relay deposed between its send and its mark cannot mark the batch (the rows stay for the new leader)', async () => {
    const leaseName = `test-relay-${randomUUID()}`;
    const relay = (over: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) => new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger(), leaseName, ...over });
    // whatever other suites left unpublished goes first, so that the next batch is this test's
    const drain = relay();
    await drain.runOnce();
    await drain.stop();

    const events = await appendSome(3);
    // the intruder's session (live for the whole test): `other`
    const [me] = (await other.query(`SELECT pg_backend_pid() AS pid, backend_start::text AS started FROM pg_stat_activity WHERE pid = pg_backend_pid()`)).rows;
    let deposed = false;
    // the crash hook at `after-send` (Kafka has the batch, nothing is marked) stands in for a freeze:
    // meanwhile another instance takes the lease over (generation + 1)
    const stale = relay({
      crashPoint: 'after-send',
      exit: () => {
        const r = spawnSync(
          'psql',
          [
            TEST_DATABASE_URL,
            '-v',
            'ON_ERROR_STOP=1',
            '-qAtc',
            `UPDATE outbox_leases SET holder = 'intruder', generation = generation + 1, expires_at = clock_timestamp() + interval '1 minute', holder_pid = ${Number(me.pid)}, holder_session_start = '${me.started}' WHERE name = '${leaseName}'`,
          ],
          { encoding: 'utf8', timeout: 20_000 },
        );
        deposed = r.status === 0;
      },
    });
    try {
      await expect(stale.runOnce()).rejects.toBeInstanceOf(LeaseLostError);
    } finally {
      await stale.stop();
    }
    expect(deposed).toBe(true);
    await expect(unpublished(events)).resolves.toBe(events.length);
    expect(stale.isLeader).toBe(false);
    // and while the intruder's lease is live, no relay of that name publishes
    const standby = relay();
    try {
      await expect(standby.runOnce()).resolves.toMatchObject({ leader: false, published: 0 });
    } finally {
      await standby.stop();
    }
    await expect(unpublished(events)).resolves.toBe(events.length);
    await db.query(`UPDATE outbox_leases SET expires_at = clock_timestamp() WHERE name = $1`, [leaseName]);
    const next = relay();
    try {
      await expect(next.runOnce()).resolves.toMatchObject({ leader: true });
    } finally {
      await next.stop();
    }
    await expect(unpublished(events)).resolves.toBe(0);
  });
});
