/**
 * The outbox relay against the real PostgreSQL and the real Kafka (docs/guarantees.md §4 and §5):
 * no event lost when the relay process dies between commit and publish or between publish and mark,
 * duplicates only byte-identical with the same event id, Kafka order per table = the store's order,
 * one publishing instance at a time. The crash tests spawn `apps/relay/src/main.ts` as a real process.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { KafkaAdmin, KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import type { Client } from 'pg';
import type { EventEnvelope, LedgerEvent } from '@ledger/events';
import { ensureTopics } from '@ledger/infra';
import { PgEventStore } from './event-store';
import { OutboxRelay, type RelayCrashPoint } from './outbox-relay';
import { computeEventHash } from './hash';
import { DEV_RECORD_SIGNING_KEY, recordSignature } from './record-signature';
import {
  DEVICE,
  TEST_DATABASE_URL,
  TEST_KAFKA_BROKERS,
  collectingLogger,
  dealerChanges,
  endOffsets,
  eventually,
  ids,
  kafkaAdmin,
  openTestDataSource,
  pgClient,
  readRange,
  type ReadRecord,
  TEST_EVENTS_TOPIC,
} from './testing/int-support';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '../../..');
const TOPIC = TEST_EVENTS_TOPIC;

let ds: DataSource;
let store: PgEventStore;
let kafka: KafkaClient;
let admin: KafkaAdmin;
let db: Client;

beforeAll(async () => {
  ds = await openTestDataSource();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TOPIC });
  ({ kafka, admin } = await kafkaAdmin());
  await ensureTopics(admin, [{ name: TOPIC, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  db = await pgClient();
});

afterAll(async () => {
  await admin?.disconnect();
  await db?.end();
  await ds?.destroy();
});

function relay(over: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) {
  return new OutboxRelay({
    databaseUrl: TEST_DATABASE_URL,
    brokers: TEST_KAFKA_BROKERS,
    logger: collectingLogger(),
    crashPoint: null,
    ...over,
  });
}

/** Publishes whatever other suites left unpublished, so that the next batch holds only this test's rows. */
async function drainPending(): Promise<void> {
  const r = relay();
  try {
    const result = await r.runOnce();
    expect(result.leader).toBe(true);
  } finally {
    await r.stop();
  }
}

/** Appends `rounds` appends of 1–3 events, interleaved over `tables` tables with 2 streams each. */
async function appendInterleaved(tables: number, rounds: number): Promise<LedgerEvent[]> {
  const streams = Array.from({ length: tables }, () => {
    const { tableId } = ids();
    return [0, 1].map(() => ({ tableId, streamId: ids().streamId, version: 0 }));
  }).flat();
  const all: LedgerEvent[] = [];
  for (let round = 0; round < rounds; round++) {
    // each round: every stream appends once, half of them concurrently
    await Promise.all(
      streams.map(async (s, i) => {
        const r = await store.append({
          streamId: s.streamId,
          tableId: s.tableId,
          expectedVersion: s.version,
          events: dealerChanges(1 + ((round + i) % 3), `r${round}-`),
          metadata: { actor: DEVICE, correlationId: `order-${round}-${i}` },
        });
        s.version = r.lastVersion;
        all.push(...r.events);
      }),
    );
  }
  return all.sort((a, b) => (BigInt(a.globalPosition) < BigInt(b.globalPosition) ? -1 : 1));
}

async function unpublished(events: readonly LedgerEvent[]): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = ANY($1::bigint[]) AND published_at IS NULL`, [events.map((e) => e.globalPosition)]);
  return rows[0].n;
}

interface RelayProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  output(): string;
}

/** `apps/relay/src/main.ts` as a child process (node + tsx), on the test database. */
function spawnRelay(crashPoint?: RelayCrashPoint, extraEnv: Record<string, string> = {}): RelayProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/relay/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: TEST_DATABASE_URL,
      KAFKA_BROKERS: TEST_KAFKA_BROKERS.join(','),
      RELAY_POLL_INTERVAL_MS: '100',
      RELAY_CRASH_POINT: crashPoint ?? '',
      RELAY_HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('exit', (code, signal) => res({ code, signal })));
  return { exited, kill: (s) => child.kill(s), output: () => out };
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string, output?: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out\n${output?.() ?? ''}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Records of `events` (by ce_id) read from Kafka between two offset snapshots. */
function mine(records: readonly ReadRecord[], events: readonly LedgerEvent[]): ReadRecord[] {
  const idSet = new Set(events.map((e) => e.eventId));
  return records.filter((r) => idSet.has(r.headers.ce_id));
}

/** Every event id at least once, and all copies of an id identical (value, key, headers). */
function expectAtLeastOnceAndIdentical(records: readonly ReadRecord[], events: readonly LedgerEvent[]): Map<string, number> {
  const copies = new Map<string, ReadRecord[]>();
  for (const r of records) copies.set(r.headers.ce_id, [...(copies.get(r.headers.ce_id) ?? []), r]);
  expect([...copies.keys()].sort()).toEqual(events.map((e) => e.eventId).sort());
  for (const [, list] of copies) {
    for (const c of list) {
      expect(c.value).toBe(list[0].value);
      expect(c.key).toBe(list[0].key);
      expect(c.headers).toEqual(list[0].headers);
      expect(c.partition).toBe(list[0].partition);
    }
  }
  return new Map([...copies].map(([id, list]) => [id, list.length]));
}

describe('no dual-write loss (docs/guarantees.md §4): the relay process dies', () => {
  it('after commit, before publish: a restarted relay publishes every event', async () => {
    await drainPending();
    const from = await endOffsets(admin, TOPIC);
    const events = await appendInterleaved(2, 3);

    const crashed = spawnRelay('before-send');
    const exit = await withTimeout(crashed.exited, 60_000, 'relay crash (before-send)', crashed.output);
    expect(exit.code).toBe(137);
    expect(crashed.output()).toContain('RELAY_CRASH_POINT reached');
    await expect(unpublished(events)).resolves.toBe(events.length);

    const restarted = spawnRelay();
    try {
      await eventually(async () => (await unpublished(events)) === 0, 60_000, 'publication after restart');
    } finally {
      restarted.kill('SIGTERM');
    }
    const stopped = await withTimeout(restarted.exited, 30_000, 'relay stop', restarted.output);
    expect(stopped.code).toBe(0);

    const records = mine(await readRange(kafka, TOPIC, from, await endOffsets(admin, TOPIC)), events);
    const counts = expectAtLeastOnceAndIdentical(records, events);
    // exactly once each: the crashed relay sent nothing
    expect([...counts.values()]).toEqual(Array(events.length).fill(1));
  });

  it('after publish, before marking: the restart sends duplicates, only of the same event ids and content', async () => {
    await drainPending();
    const from = await endOffsets(admin, TOPIC);
    const events = await appendInterleaved(2, 2);

    const crashed = spawnRelay('after-send');
    const exit = await withTimeout(crashed.exited, 60_000, 'relay crash (after-send)', crashed.output);
    expect(exit.code).toBe(137);
    await expect(unpublished(events)).resolves.toBe(events.length); // Kafka has them; the outbox does not know

    const r = relay();
    try {
      await expect(r.runOnce()).resolves.toMatchObject({ leader: true });
    } finally {
      await r.stop();
    }
    await expect(unpublished(events)).resolves.toBe(0);

    const records = mine(await readRange(kafka, TOPIC, from, await endOffsets(admin, TOPIC)), events);
    const counts = expectAtLeastOnceAndIdentical(records, events);
    // the crashed batch held all of them: each one exactly twice, byte for byte
    expect([...counts.values()]).toEqual(Array(events.length).fill(2));
  });

  it('killed with SIGKILL in the middle of a backlog (batches published, the next one waiting on a row): nothing lost, nothing marked sent twice', async () => {
    await drainPending();
    const from = await endOffsets(admin, TOPIC);
    // a backlog, no relay running yet
    const events = await appendInterleaved(2, 4);
    // the test holds the outbox row of an event in the middle, on a batch boundary (batches of 2): the
    // relay publishes every batch before it, then the batch holding that row waits on the row lock (at
    // its claim, or at its mark when the claim takes no row lock); no timer decides when it dies
    const cut = 2 * Math.floor(events.length / 4);
    const before = events.slice(0, cut);
    const holder = await pgClient();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM outbox WHERE global_position = $1 FOR UPDATE', [events[cut].globalPosition]);
    const victim = spawnRelay(undefined, { RELAY_BATCH_SIZE: '2' });
    try {
      await eventually(async () => (await unpublished(before)) === 0, 60_000, 'the batches before the held row');
      const waiting = async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'ledger-relay' AND wait_event_type = 'Lock' AND datname = current_database()`)).rows.length > 0;
      await eventually(waiting, 60_000, 'the relay waiting on the held row');
      victim.kill('SIGKILL');
      expect((await victim.exited).signal).toBe('SIGKILL');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // killed mid-backlog: what it had published is marked, the rest is pending
    await expect(unpublished(before)).resolves.toBe(0);
    await expect(unpublished(events)).resolves.toBe(events.length - cut);

    const r = relay();
    try {
      await r.runOnce();
    } finally {
      await r.stop();
    }
    await expect(unpublished(events)).resolves.toBe(0);
    const records = mine(await readRange(kafka, TOPIC, from, await endOffsets(admin, TOPIC)), events);
    const counts = expectAtLeastOnceAndIdentical(records, events);
    // what the killed relay had marked is not sent again; the batch waiting at the kill may have been
    // sent already (then twice now: the same bytes, checked above), nothing after it was
    expect(before.map((e) => counts.get(e.eventId))).toEqual(Array(cut).fill(1));
    expect(events.slice(cut + 2).map((e) => counts.get(e.eventId))).toEqual(Array(events.length - cut - 2).fill(1));
  });
});

describe('per-table order (docs/guarantees.md §5) and the record layout', () => {
  it('Kafka order per table equals the store order; woken by NOTIFY; CloudEvents headers', async () => {
    await drainPending();
    const from = await endOffsets(admin, TOPIC);
    // a poll interval far beyond the test: only NOTIFY can wake the relay
    const r = relay({ pollIntervalMs: 600_000 });
    await r.start();
    let events: LedgerEvent[];
    try {
      await eventually(async () => r.isLeader, 10_000, 'leadership');
      events = await appendInterleaved(3, 6);
      await eventually(async () => (await unpublished(events)) === 0, 10_000, 'publication woken by NOTIFY');
    } finally {
      await r.stop();
    }

    const records = mine(await readRange(kafka, TOPIC, from, await endOffsets(admin, TOPIC)), events);
    expect(records).toHaveLength(events.length); // no crash, no duplicate
    const tables = [...new Set(events.map((e) => e.tableId))];
    expect(tables).toHaveLength(3);
    for (const tableId of tables) {
      const inKafka = records.filter((rec) => rec.key === tableId);
      // one partition per table, and in it the store's global order for that table
      expect(new Set(inKafka.map((rec) => rec.partition)).size).toBe(1);
      expect(inKafka.map((rec) => rec.headers.ce_id)).toEqual(events.filter((e) => e.tableId === tableId).map((e) => e.eventId));
      // and each stream's versions 1..n in order
      const envelopes = inKafka.map((rec) => JSON.parse(rec.value) as EventEnvelope);
      for (const streamId of new Set(envelopes.map((v) => v.streamId))) {
        const versions = envelopes.filter((v) => v.streamId === streamId).map((v) => v.streamVersion);
        expect(versions).toEqual(versions.map((_, i) => i + 1));
      }
    }

    const e = events[0];
    const rec = records.find((x) => x.headers.ce_id === e.eventId)!;
    expect(rec.key).toBe(e.tableId);
    // the CloudEvents Kafka binding's required attributes (binary mode), content-type and the
    // signature; nothing the value already holds (docs/architecture.md §6)
    expect(rec.headers).toEqual({
      ce_specversion: '1.0',
      ce_id: e.eventId,
      ce_source: `/tables/${e.tableId}`,
      ce_type: 'baccarat.ledger.DealerChanged.v1',
      'content-type': 'application/json',
      // the relay's signature of key and value (the relays here run with the development key)
      'ledger-sig': recordSignature(DEV_RECORD_SIGNING_KEY, rec.key, rec.value),
    });
    expect(Object.keys(rec.headers)).toEqual(['ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'content-type', 'ledger-sig']);
    const value = JSON.parse(rec.value) as EventEnvelope;
    expect(value).toEqual(e);
    expect(computeEventHash(value)).toBe(value.hash); // downstream can verify the chain
  });
});

describe('one publisher at a time (advisory lock)', () => {
  it('a second relay stands by and takes over when the leader stops', async () => {
    await drainPending();
    const a = relay({ standbyRetryMs: 100 });
    const bLog = collectingLogger();
    const b = relay({ standbyRetryMs: 100, logger: bLog });
    try {
      await a.start();
      await eventually(async () => a.isLeader, 10_000, 'a leads');
      await b.start();
      // b has tried and found a leading (an event, not a timer)
      await eventually(async () => bLog.lines.some((l) => l.msg === 'another relay publishes: standing by'), 10_000, 'b stands by');
      expect(b.isLeader).toBe(false);
      await expect(b.runOnce()).resolves.toEqual({ leader: false, published: 0, batches: 0, lastPosition: null });

      const one = await appendInterleaved(1, 1);
      await eventually(async () => (await unpublished(one)) === 0, 10_000, 'published by a');

      await a.stop();
      await eventually(async () => b.isLeader, 10_000, 'b takes over');
      const two = await appendInterleaved(1, 1);
      await eventually(async () => (await unpublished(two)) === 0, 10_000, 'published by b');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
