/**
 * Shared setup of the event store's integration specs (`*.int.spec.ts`): the real PostgreSQL
 * (`ledger_test`) and the real Kafka of `scripts/stack.sh`. Not exported from the library's index.
 *
 * Isolation without deleting anything (events cannot be deleted): every spec uses fresh stream and
 * table ids (UUIDs) and asserts only on its own rows; migrations are idempotent and run by every suite.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createKafka, type IncomingHeaders, type KafkaAdmin, type KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import type { Actor, NewEvent } from '@ledger/events';
import { databaseUrlForRole } from '@ledger/infra';
import { createDataSource, runMigrations } from '../data-source';
import type { LedgerLogger } from '../logger';

/** The test database, as the owner role `ledger_owner` (setup, migrations, checks). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://ledger_owner:ledger_owner@127.0.0.1:5432/ledger_test';
/** {@link TEST_DATABASE_URL} by the name the role specs use. */
export const TEST_OWNER_DATABASE_URL = process.env.TEST_OWNER_DATABASE_URL ?? TEST_DATABASE_URL;
/** The test database as the API's runtime role (docs/architecture.md §10). */
export const TEST_APP_DATABASE_URL = process.env.TEST_APP_DATABASE_URL ?? databaseUrlForRole(TEST_DATABASE_URL, 'ledger_app');
/** The test database as the relay's runtime role. */
export const TEST_RELAY_DATABASE_URL = process.env.TEST_RELAY_DATABASE_URL ?? databaseUrlForRole(TEST_DATABASE_URL, 'ledger_relay');
/** The test database as the projector's runtime role. */
export const TEST_PROJECTOR_DATABASE_URL = process.env.TEST_PROJECTOR_DATABASE_URL ?? databaseUrlForRole(TEST_DATABASE_URL, 'ledger_projector');
/** The test database as superuser `postgres` (trust auth on loopback): used only to simulate tampering. */
export const TEST_ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${process.env.TEST_DB_NAME ?? 'ledger_test'}`;
/**
 * The topic the integration specs' outbox rows name. Never the production topic: a relay started
 * by a later spec on the same test database publishes every unpublished row, and must not put test
 * events on `baccarat.ledger.events.v1`.
 */
export const TEST_EVENTS_TOPIC = process.env.TEST_EVENTS_TOPIC ?? 'test.int.ledger.events.v1';

/** Creates {@link TEST_EVENTS_TOPIC} (6 partitions, retained forever) if missing. */
export async function ensureTestTopic(): Promise<void> {
  const { ensureTopics } = await import('@ledger/infra');
  const { admin } = await kafkaAdmin();
  try {
    await ensureTopics(admin, [{ name: TEST_EVENTS_TOPIC, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  } finally {
    await admin.disconnect();
  }
}

/** The local broker. */
export const TEST_KAFKA_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim());

/** A migrated DataSource on the test database. */
export async function openTestDataSource(poolSize = 10): Promise<DataSource> {
  const ds = createDataSource(TEST_DATABASE_URL, { poolSize, applicationName: 'ledger-int-test' });
  await ds.initialize();
  await runMigrations(ds);
  return ds;
}

/** A connected pg client (`admin`: as superuser postgres). The caller ends it. */
export async function pgClient(admin = false): Promise<Client> {
  const c = new Client({ connectionString: admin ? TEST_ADMIN_DATABASE_URL : TEST_DATABASE_URL });
  await c.connect();
  return c;
}

/** A log line captured by {@link collectingLogger}. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly msg?: string;
}

/** A logger that keeps every line in `lines` (and prints nothing). */
export function collectingLogger(): LedgerLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: Record<string, unknown>, msg?: string) => {
    lines.push({ level, fields, msg });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Fresh ids for one test: a stream (`shoe-…`) and a table (`T-…`). */
export function ids(): { streamId: string; tableId: string } {
  return { streamId: `shoe-${randomUUID()}`, tableId: `T-${randomUUID().slice(0, 8)}` };
}

/** A table device actor. */
export const DEVICE: Actor = { id: 'device-int-test', role: 'table-device' };

/** `n` distinct `DealerChanged` events (a type whose data is small and has no rules attached). */
export function dealerChanges(n: number, tag = 'd'): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    eventId: randomUUID(),
    type: 'DealerChanged' as const,
    data: { previousDealerId: `${tag}${i}`, dealerId: `${tag}${i + 1}` },
  }));
}

/** Kafka admin on the local broker, connected. */
export async function kafkaAdmin(): Promise<{ kafka: KafkaClient; admin: KafkaAdmin }> {
  const kafka = createKafka({ clientId: 'ledger-int-test', brokers: TEST_KAFKA_BROKERS, logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  return { kafka, admin };
}

/** partition → offset. */
export type Offsets = Map<number, bigint>;

/** The topic's current end offsets (high watermarks) per partition. */
export async function endOffsets(admin: KafkaAdmin, topic: string): Promise<Offsets> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
}

/** A record read back from Kafka. */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/**
 * Reads every record of `topic` between `from` (inclusive) and `to` (exclusive) offsets per
 * partition, in partition order, with a throw-away consumer group.
 */
export async function readRange(kafka: KafkaClient, topic: string, from: Offsets, to: Offsets, timeoutMs = 30_000): Promise<ReadRecord[]> {
  const wanted = [...to].filter(([p, end]) => end > (from.get(p) ?? 0n));
  const records: ReadRecord[] = [];
  if (wanted.length === 0) return records;
  const reached = new Map<number, bigint>();
  const consumer = kafka.consumer({ groupId: `ledger-int-test-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const offset = BigInt(message.offset);
        const start = from.get(partition) ?? 0n;
        const end = to.get(partition) ?? 0n;
        if (offset < start || offset >= end) return;
        records.push({
          partition,
          offset,
          key: message.key?.toString() ?? '',
          value: message.value?.toString() ?? '',
          headers: headersToStrings(message.headers),
        });
        reached.set(partition, offset + 1n);
        if (wanted.every(([p, e]) => (reached.get(p) ?? from.get(p) ?? 0n) >= e)) done();
      },
    });
    for (const [p] of wanted) await seekOnceJoined(consumer, { topic, partition: p, offset: String(from.get(p) ?? 0n) });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka read timed out; reached ${JSON.stringify([...reached].map(String))}`)), timeoutMs);
    });
    try {
      await Promise.race([finished, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await consumer.disconnect();
  }
  records.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  return records;
}

/**
 * Seeks a consumer that `run` has started. kafkajs refuses a seek while its consumer group is
 * (re)initialising, which happens right after `run` and again after a restart on a transient
 * error; the seek is retried every 100 ms for up to 10 s, then the last refusal is thrown.
 */
async function seekOnceJoined(consumer: ReturnType<KafkaClient['consumer']>, position: { topic: string; partition: number; offset: string }): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      consumer.seek(position);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function headersToStrings(h: IncomingHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) {
    out[k] = Array.isArray(v) ? v.map(String).join(',') : v === undefined ? '' : v.toString();
  }
  return out;
}

/** Polls `check` every 50 ms until it returns true, or throws after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
