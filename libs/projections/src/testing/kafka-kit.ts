import { DEV_RECORD_SIGNING_KEY, RECORD_SIGNATURE_HEADER, recordSignature } from '@ledger/event-store';
import { createKafka, type KafkaClient, type KafkaProducer, type OutgoingMessage } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import type { LedgerEvent } from '@ledger/events';
import { qualified } from '../schema-name';

/**
 * Test helpers for real Kafka: a client, a per-test topic, producing envelopes exactly as the
 * outbox relay does (key = tableId, value = envelope JSON, the relay's headers `ce_specversion`,
 * `ce_id`, `ce_source`, `ce_type`, `content-type` and its signature `ledger-sig`, with the development key
 * the projector uses in development mode unless told another), and waiting until a projection caught up.
 */

/** Brokers from KAFKA_BROKERS (default 127.0.0.1:9092). */
export function testKafka(clientId = 'projections-test'): KafkaClient {
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim());
  return createKafka({ clientId, brokers, logLevel: 'nothing', retries: 10 });
}

/** A topic name unique to this run. */
export function uniqueTopic(label: string): string {
  return `test.projections.${label}.${Date.now()}.${process.pid}.${Math.floor(Math.random() * 1e6)}`;
}

/** Creates a topic (3 partitions by default) and waits for its leaders. */
export async function createTopic(kafka: KafkaClient, topic: string, partitions = 3): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics([{ name: topic, partitions, replicationFactor: 1 }]);
  } finally {
    await admin.disconnect();
  }
}

/** Deletes topics (best effort). */
export async function deleteTopics(kafka: KafkaClient, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics(topics).catch(() => undefined);
  await admin.disconnect();
}

/**
 * The Kafka message of an event, as the outbox relay writes it, signed like the relay signs.
 * @param signingKey the key of the `ledger-sig` header; `null` sends none @default the development key
 */
export function toMessage(e: LedgerEvent, signingKey: string | null = DEV_RECORD_SIGNING_KEY): OutgoingMessage {
  return signedMessage(
    e.tableId,
    JSON.stringify(e),
    {
      ce_specversion: '1.0',
      ce_id: e.eventId,
      ce_source: `/tables/${e.tableId}`,
      ce_type: `baccarat.ledger.${e.type}.v${e.schemaVersion}`,
      'content-type': 'application/json',
    },
    signingKey,
  );
}

/**
 * A message with `key`, `value` and `headers`, plus the relay's signature of key and value (header
 * `ledger-sig`) when `signingKey` is not null. For records made by hand (forgeries, tampered copies).
 */
export function signedMessage(key: string, value: string | Buffer, headers: Record<string, string> = {}, signingKey: string | null = DEV_RECORD_SIGNING_KEY): OutgoingMessage {
  return { key, value, headers: signingKey === null ? headers : { ...headers, [RECORD_SIGNATURE_HEADER]: recordSignature(signingKey, key, value) } };
}

/** Produces events in order (per-key order preserved), in chunks, signed with the development key. */
export async function produce(producer: KafkaProducer, topic: string, events: readonly LedgerEvent[], chunk = 500): Promise<void> {
  for (let i = 0; i < events.length; i += chunk) {
    await producer.send(
      topic,
      events.slice(i, i + chunk).map((e) => toMessage(e)),
    );
  }
}

/** partition → high watermark. */
export async function highWatermarks(kafka: KafkaClient, topic: string): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** The stored checkpoints of a group on a topic: partition → next offset. */
export async function storedCheckpoints(ds: DataSource, schema: string, group: string, topic: string): Promise<Map<number, bigint>> {
  const rows: { partition: number; next_offset: string }[] = await ds.query(`SELECT partition, next_offset::text AS next_offset FROM ${qualified(schema, 'checkpoints')} WHERE consumer_group = $1 AND topic = $2`, [group, topic]);
  return new Map(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
}

/** Waits until the checkpoints of `group` reach the topic's current high watermarks. */
export async function waitForCatchUp(kafka: KafkaClient, ds: DataSource, schema: string, group: string, topic: string, timeoutMs = 120_000): Promise<void> {
  const target = await highWatermarks(kafka, topic);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cps = await storedCheckpoints(ds, schema, group, topic).catch(() => new Map<number, bigint>());
    if ([...target].every(([p, hw]) => hw === 0n || (cps.get(p) ?? 0n) >= hw)) return;
    if (Date.now() > deadline) {
      throw new Error(`not caught up after ${timeoutMs} ms: target ${fmt(target)}, checkpoints ${fmt(cps)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function fmt(m: Map<number, bigint>): string {
  return JSON.stringify(Object.fromEntries([...m].map(([k, v]) => [k, v.toString()])));
}

/** The test database URL: TEST_DATABASE_URL, default the local stack's `ledger_test`. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://ledger:ledger@127.0.0.1:5432/ledger_test';

/** A raw record read back from Kafka. */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

/** Reads every record of a topic up to its current high watermarks, with a throw-away group. */
export async function readAll(kafka: KafkaClient, topic: string): Promise<RawRecord[]> {
  const hw = await highWatermarks(kafka, topic);
  const out: RawRecord[] = [];
  const groupId = `read-all-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const reached = new Map<number, bigint>();
  await new Promise<void>((resolve, reject) => {
    const check = () => [...hw].every(([p, h]) => h === 0n || (reached.get(p) ?? 0n) >= h) && resolve();
    check();
    consumer
      .run({
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            if (BigInt(m.offset) < (hw.get(batch.partition) ?? 0n)) {
              out.push({ topic, partition: batch.partition, offset: m.offset, key: m.key, value: m.value, headers: m.headers as RawRecord['headers'] });
            }
          }
          reached.set(batch.partition, BigInt(batch.lastOffset()) + 1n);
          check();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteGroups([groupId]).catch(() => undefined);
  await admin.disconnect();
  return out.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}
