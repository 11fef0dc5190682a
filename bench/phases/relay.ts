/**
 * Relay to Kafka: the outbox backlog the ingest left (the relay is not running during ingest) is
 * drained by the relay process; events/s = backlog ÷ (time the last row was seen published −
 * time the first batch was claimed, `min(published_at)`).
 */
import type { Pg } from '../lib/pg';
import { round, say, sleep } from '../lib/util';

export interface RelayFigures {
  readonly backlog: number;
  readonly seconds: number | null;
  readonly eventsPerSecond: number | null;
  /** From the relay's spawn to its first claimed batch (process start, connections, leader lock). */
  readonly startupMs: number | null;
  readonly batches: number;
}

export async function backlogOf(pg: Pg): Promise<number> {
  return (await pg.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)).rows[0].n;
}

/** Waits until the outbox is empty; call right after starting the relay at `spawnedAt`. */
export async function measureDrain(pg: Pg, backlog: number, spawnedAt: number, timeoutMs: number): Promise<RelayFigures> {
  say(`relay: draining an outbox backlog of ${backlog} events`);
  const deadline = Date.now() + timeoutMs;
  let doneAt = NaN;
  for (;;) {
    const left = await backlogOf(pg);
    if (left === 0) {
      doneAt = Date.now();
      break;
    }
    if (Date.now() > deadline) throw new Error(`relay: ${left} of ${backlog} events still unpublished after ${timeoutMs} ms`);
    await sleep(20);
  }
  const r = (
    await pg.query(
      `SELECT extract(epoch FROM min(published_at)) * 1000 AS first, extract(epoch FROM max(published_at)) * 1000 AS last, count(DISTINCT published_at)::int AS batches
         FROM outbox WHERE published_at IS NOT NULL`,
    )
  ).rows[0];
  const first = Number(r.first);
  const seconds = (doneAt - first) / 1000;
  return {
    backlog,
    seconds: round(seconds, 2),
    eventsPerSecond: round(backlog / seconds),
    startupMs: round(first - spawnedAt),
    batches: r.batches,
  };
}
