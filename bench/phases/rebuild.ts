/**
 * Rebuild of every projection from offset zero: N synthetic but valid shoe events
 * (`syntheticLedger`, the generator behind bench/seed-topic.ts: outcomes and
 * settlements from @ledger/rules, voids, corrections, dealer changes, hash-chained envelopes)
 * are produced onto a bench topic exactly as the relay writes them, then `rebuildProjections`
 * replays the topic into a scratch schema in its own process (bench/rebuild-worker.ts), so its
 * memory and CPU profile are its own.
 */
import type { KafkaClient, OutgoingMessage } from '@ledger/kafka';
import type { LedgerEvent } from '@ledger/events';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { toMessage } from '../../libs/projections/src/testing/kafka-kit';
import { nowMs, round, say } from '../lib/util';

export interface SeedFigures {
  readonly events: number;
  readonly shoes: number;
  readonly seconds: number;
  readonly meanValueBytes: number;
  readonly eventTypes: Record<string, number>;
}

/** Produces about `target` events (whole shoes) onto `topic`, in chunks of shoes so memory stays bounded. */
export async function seedTopic(kafka: KafkaClient, topic: string, target: number, prefix: string): Promise<SeedFigures> {
  say(`rebuild: producing ~${target} synthetic events onto ${topic}`);
  const producer = kafka.producer();
  await producer.connect();
  const started = nowMs();
  let events = 0;
  let shoes = 0;
  let bytes = 0;
  let chunk = 0;
  const eventTypes: Record<string, number> = {};
  const shoesPerChunk = Math.max(1, Math.min(20, Math.ceil(target / 1700)));
  try {
    while (events < target) {
      const remaining = target - events;
      const n = Math.max(1, Math.min(shoesPerChunk, Math.round(remaining / 1700)));
      const ledger = syntheticLedger({ shoes: n, seed: 1000 + chunk, betsPerRound: 6, prefix: `${prefix}k${chunk}`, startAt: new Date(Date.UTC(2025, 2, 1, 4, 40) + chunk * n * 180_000).toISOString() });
      // positions continue across chunks (the generator numbers each call from 1)
      for (const e of ledger.events) (e as { globalPosition: string }).globalPosition = (BigInt(e.globalPosition) + BigInt(events)).toString();
      const messages: OutgoingMessage[] = ledger.events.map((e: LedgerEvent) => {
        eventTypes[e.type] = (eventTypes[e.type] ?? 0) + 1;
        const m = toMessage(e);
        bytes += (m.value as string).length;
        return m;
      });
      // ≤ 1,000 records a request: even all on one partition they stay under the broker's 1 MiB batch limit
      for (let i = 0; i < messages.length; i += 1000) await producer.send(topic, messages.slice(i, i + 1000));
      events += ledger.events.length;
      shoes += n;
      chunk++;
      if (chunk % 10 === 0) say(`rebuild: ${events} events produced`);
    }
  } finally {
    await producer.disconnect();
  }
  return { events, shoes, seconds: round((nowMs() - started) / 1000, 1)!, meanValueBytes: Math.round(bytes / events), eventTypes };
}
