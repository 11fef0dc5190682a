import { randomUUID } from 'node:crypto';
import { createKafka, type IncomingHeaders, type KafkaClient, type KafkaProducer, type OutgoingMessage } from '@ledger/kafka';
import { anchorText, type SignedAnchor } from './checkpoint';
import { ensureTopics, anchorsTopic } from '@ledger/infra';
import type { LedgerLogger } from '@ledger/event-store';

/**
 * The anchors library's Kafka needs, through the Kafka port: a client, the anchors topic, an
 * idempotent producer, and a reader of a topic from its first retained offset to its end
 * (docs/architecture.md §6).
 */

/** A Kafka client whose log lines (warnings and errors) go to `logger`. */
export function kafkaClient(brokers: readonly string[], clientId: string, logger?: LedgerLogger): KafkaClient {
  return createKafka({
    clientId,
    brokers: [...brokers],
    logLevel: logger ? 'warn' : 'nothing',
    logger: logger ? { error: (f, m) => logger.error({ kafka: f }, m), warn: (f, m) => logger.warn({ kafka: f }, m), info: () => undefined, debug: () => undefined } : undefined,
  });
}

/** Creates the anchors topic (1 partition, retained forever) if it is missing. */
export async function ensureAnchorsTopic(kafka: KafkaClient, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, [anchorsTopic(topic)]);
  } finally {
    await admin.disconnect();
  }
}

/** Key of every record of the anchors topic (one partition: the checkpoints in order). */
export const ANCHOR_RECORD_KEY = 'anchors';

/** CloudEvents type of an anchors-topic record. */
export const ANCHOR_RECORD_TYPE = 'baccarat.ledger.AnchorCheckpoint.v1';

/**
 * The anchors-topic record of a signed checkpoint (documented in `docs/asyncapi/asyncapi.yaml`):
 * key {@link ANCHOR_RECORD_KEY}, value {@link anchorText} (the anchor file's line), CloudEvents
 * binary-mode headers with `ce_id` `<ledgerId>/<seq>` (the same for a republished checkpoint, so
 * consumers de-duplicate on it).
 */
export function anchorRecord(a: SignedAnchor): OutgoingMessage {
  return {
    key: ANCHOR_RECORD_KEY,
    value: anchorText(a),
    headers: {
      ce_specversion: '1.0',
      ce_id: `${a.checkpoint.ledgerId}/${a.checkpoint.seq}`,
      ce_type: ANCHOR_RECORD_TYPE,
      ce_source: `/ledgers/${a.checkpoint.ledgerId}`,
      ce_time: a.checkpoint.createdAt,
      'content-type': 'application/json',
    },
  };
}

/** The port's idempotent producer (acks = all, one request in flight, no topic auto-creation), connected. */
export async function connectProducer(kafka: KafkaClient): Promise<KafkaProducer> {
  const producer = kafka.producer();
  await producer.connect();
  return producer;
}

/** One record read by {@link scanTopic}. */
export interface ScannedRecord {
  readonly partition: number;
  /** Offset, decimal string. */
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/** Options of {@link scanTopic}. */
export interface ScanOptions {
  /** First offset to read per partition (clamped to the first retained one). @default the first retained offset */
  readonly from?: ReadonlyMap<number, bigint>;
  /** Fails when no record arrives for this long while some are still expected, in ms. @default 30000 */
  readonly idleTimeoutMs?: number;
}

/** Thrown by {@link topicBounds} and {@link scanTopic} for a topic the broker does not have. */
export class TopicMissingError extends Error {
  constructor(readonly topic: string) {
    super(`Kafka has no topic ${topic}`);
    this.name = 'TopicMissingError';
  }
}

/**
 * Per partition: the first retained offset and the end (high watermark), both as bigint.
 * @throws TopicMissingError when the topic does not exist
 */
export async function topicBounds(kafka: KafkaClient, topic: string): Promise<Map<number, { low: bigint; high: bigint }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) throw new TopicMissingError(topic);
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, { low: BigInt(o.low), high: BigInt(o.high) }]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads every record of `topic` from `from` (default: the first retained offset, "offset zero") up
 * to the end offsets taken when the call starts, calling `onRecord` for each, in offset order per
 * partition. Uses a throw-away consumer group and commits nothing.
 * @returns how many records were read
 * @throws TopicMissingError when the topic does not exist; Error when the read stalls for `idleTimeoutMs`
 */
export async function scanTopic(kafka: KafkaClient, topic: string, onRecord: (r: ScannedRecord) => void, options: ScanOptions = {}): Promise<number> {
  const bounds = await topicBounds(kafka, topic);
  const start = new Map<number, bigint>();
  for (const [p, b] of bounds) {
    const wanted = options.from?.get(p) ?? b.low;
    start.set(p, wanted < b.low ? b.low : wanted);
  }
  const pending = new Set([...bounds].filter(([p, b]) => b.high > start.get(p)!).map(([p]) => p));
  if (pending.size === 0) return 0;
  let count = 0;
  const consumer = kafka.consumer({ groupId: `ledger-anchors-scan-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let lastProgress = Date.now();
    let failed: Error | null = null;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (!pending.has(partition)) return;
        const offset = BigInt(message.offset);
        const high = bounds.get(partition)!.high;
        if (offset < start.get(partition)!) return;
        lastProgress = Date.now();
        if (offset < high) {
          count++;
          try {
            onRecord({ partition, offset: message.offset, key: message.key?.toString() ?? null, value: message.value, headers: headerStrings(message.headers) });
          } catch (err) {
            failed = err as Error;
            done();
          }
        }
        if (offset + 1n >= high) {
          pending.delete(partition);
          if (pending.size === 0) done();
        }
      },
    });
    for (const p of pending) consumer.seek({ topic, partition: p, offset: start.get(p)!.toString() });
    const idle = options.idleTimeoutMs ?? 30_000;
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (Date.now() - lastProgress > idle) {
          clearInterval(timer);
          reject(new Error(`reading ${topic} stalled for ${idle} ms with partitions ${[...pending].join(',')} unfinished`));
        }
      }, 250);
      finished.then(() => {
        clearInterval(timer);
        resolve();
      });
    });
    if (failed) throw failed;
  } finally {
    await consumer.disconnect();
  }
  return count;
}

function headerStrings(h: IncomingHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) {
    out[k] = Array.isArray(v) ? v.map(String).join(',') : v === undefined ? '' : v.toString();
  }
  return out;
}
