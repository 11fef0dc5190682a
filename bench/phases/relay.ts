/**
 * Relay to Kafka: the backlog the ingest left (the relay is not running during ingest: every event
 * in the store is unpublished) is drained by the relay process. Measured on Kafka itself, so it
 * does not depend on how the store marks rows published: the topic's records (sum of the
 * partitions' high watermarks, polled every 20 ms) from the first record seen to `backlog`
 * records; events/s = records published in that span ÷ its length.
 */
import type { KafkaAdmin } from '@ledger/kafka';
import type { Pg } from '../lib/pg';
import { nowMs, round, say, sleep } from '../lib/util';

export interface RelayFigures {
  readonly backlog: number;
  readonly seconds: number | null;
  readonly eventsPerSecond: number | null;
  /** From the relay's spawn to its first record on the topic (process start, connections, leader lease). */
  readonly startupMs: number | null;
  readonly measuredOn: string;
}

/** Events in the store (the ingest's backlog: nothing was published yet). */
export async function backlogOf(pg: Pg): Promise<number> {
  return (await pg.query(`SELECT count(*)::int AS n FROM events`)).rows[0].n;
}

async function recordsOn(admin: KafkaAdmin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((n, o) => n + Number(BigInt(o.high) - BigInt(o.low)), 0);
}

/** Waits until `topic` holds `backlog` records; call right after starting the relay at `spawnedAt`. */
export async function measureDrain(admin: KafkaAdmin, topic: string, backlog: number, spawnedAt: number, timeoutMs: number): Promise<RelayFigures> {
  say(`relay: draining a backlog of ${backlog} events onto ${topic}`);
  const deadline = nowMs() + timeoutMs;
  let firstAt = NaN;
  let atFirst = 0;
  let doneAt = NaN;
  for (;;) {
    const n = await recordsOn(admin, topic);
    const t = nowMs();
    if (n > 0 && !Number.isFinite(firstAt)) {
      firstAt = t;
      atFirst = n;
    }
    if (n >= backlog) {
      doneAt = t;
      break;
    }
    if (t > deadline) throw new Error(`relay: ${n} of ${backlog} events on ${topic} after ${timeoutMs} ms`);
    await sleep(20);
  }
  const seconds = (doneAt - firstAt) / 1000;
  return {
    backlog,
    seconds: round(seconds, 2),
    eventsPerSecond: seconds > 0 ? round((backlog - atFirst) / seconds) : null,
    startupMs: round(firstAt - spawnedAt),
    measuredOn: `${topic} high watermarks, polled every 20 ms (the first poll's records excluded)`,
  };
}
