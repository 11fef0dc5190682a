import type { KafkaClient } from '@ledger/kafka';

/** A record read back from a topic. */
export interface ReadRecord {
  partition: number;
  offset: string;
  key: string;
  value: any;
  headers: Record<string, string>;
}

/**
 * Reads a topic from offset zero until `done(records)` says enough, or `timeoutMs` passes.
 * Uses a throw-away consumer group so nothing else is disturbed.
 */
export async function readTopic(kafka: KafkaClient, topic: string, done: (records: ReadRecord[]) => boolean, timeoutMs = 60_000): Promise<ReadRecord[]> {
  const consumer = kafka.consumer({ groupId: `reader-${Date.now()}-${Math.random().toString(36).slice(2)}` });
  const records: ReadRecord[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let resolveDone!: () => void;
  const finished = new Promise<void>((r) => (resolveDone = r));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
      records.push({ partition, offset: message.offset, key: message.key?.toString() ?? '', value: JSON.parse(message.value!.toString()), headers });
      if (done(records)) resolveDone();
    },
  });
  const timer = new Promise<void>((r) => setTimeout(r, timeoutMs));
  await Promise.race([finished, timer]);
  await consumer.disconnect();
  return records;
}
