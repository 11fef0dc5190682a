/**
 * Append latency against the length of the stream (the target "append latency, stream of 100 vs
 * 20,000 events"): one bet per request (`POST …/bets`) appended to a shoe stream that holds about
 * `shortEvents` events and to one that holds about `longEvents`, alternately, `samples` times each,
 * one request at a time (no queueing, so the latency is the append's own); p50/p99 of each.
 *
 * The streams: a shoe opened, commenced, a round opened and filled with bets (batches of ≤ 10,000)
 * up to the size, betting left open, so each sample is one more bet. The long stream grows by
 * `samples` events during the measure (≈ 1.5 % of 20,000); the short streams are many
 * (`perShortShoe` samples each) so each stays within `shortEvents + perShortShoe` events.
 */
import { LedgerClient } from '@ledger/simulator';
import { ACTORS, benchTables, injectedBets, send, shoeSteps, type Step } from '../lib/workload';
import { latencySummary, say } from '../lib/util';

export interface AppendFigures {
  readonly shortEvents: number;
  readonly longEvents: number;
  readonly samples: number;
  readonly short: ReturnType<typeof latencySummary>;
  readonly long: ReturnType<typeof latencySummary>;
  readonly shortShoes: number;
  readonly setupSeconds: number;
}

/** Opens a shoe with one round holding bets until its stream has about `events` events; returns the round's bets path and its events. */
async function prepare(client: LedgerClient, shoeId: string, events: number, tableNo: number): Promise<{ path: string; events: number; table: ReturnType<typeof benchTables>[number] }> {
  const table = benchTables()[tableNo % benchTables().length];
  // the steps before the bets: open shoe, commence, burns, open round (each one event)
  const head = shoeSteps({ table, shoeId, seed: `${shoeId}-seed`, rounds: 1, betsPerRound: 0, betMode: 'batch' });
  const upToRound = head.slice(0, head.findIndex((s) => s.path.endsWith('/rounds') && s.kind === 'fact') + 1);
  const before = upToRound.reduce((n, s) => n + s.expectedEvents, 0);
  const bets = Math.max(1, events - before);
  const steps = shoeSteps({ table, shoeId, seed: `${shoeId}-seed`, rounds: 1, betsPerRound: bets, betMode: 'batch', batchSize: 10_000 });
  const lastBets = steps.map((s) => s.kind).lastIndexOf('bets');
  const prefix = steps.slice(0, lastBets + 1);
  let n = 0;
  for (const s of prefix) n += (await send(client, s)).events.length;
  const path = prefix[prefix.length - 1].path.replace(/\/bets\/batch$/, '/bets');
  return { path, events: n, table };
}

/** One bet on the open round at `path` (a fresh bet id and account each time). */
function betStep(path: string, table: ReturnType<typeof benchTables>[number], key: string, k: number): Step {
  const roundId = decodeURIComponent(path.split('/rounds/')[1].split('/')[0]);
  const [bet] = injectedBets(table, `${roundId}-x${k}`, 1);
  return { kind: 'bet', role: 'betting-platform', sub: ACTORS.platform, path, body: { bet: { ...bet, accountId: `x${k}` } }, idempotencyKey: key, expectedEvents: 1 };
}

export async function measureAppend(client: LedgerClient, o: { prefix: string; shortEvents: number; longEvents: number; samples: number; perShortShoe: number }): Promise<AppendFigures> {
  const t0 = performance.now();
  say(`append latency: one bet per request on a stream of ~${o.shortEvents} vs ~${o.longEvents} events, ${o.samples} each`);
  const long = await prepare(client, `${o.prefix}-al`, o.longEvents, 0);
  const shorts: Awaited<ReturnType<typeof prepare>>[] = [];
  const shortShoes = Math.ceil(o.samples / o.perShortShoe);
  for (let i = 0; i < shortShoes; i++) shorts.push(await prepare(client, `${o.prefix}-as${i}`, o.shortEvents, 0));
  const setupSeconds = Math.round(performance.now() - t0) / 1000;
  const shortMs: number[] = [];
  const longMs: number[] = [];
  for (let k = 0; k < o.samples; k++) {
    const s = shorts[Math.floor(k / o.perShortShoe)];
    // alternate which goes first, so neither always follows the other
    const pair: [Step, number[]][] = [
      [betStep(s.path, s.table, `${o.prefix}-as:${k}`, k), shortMs],
      [betStep(long.path, long.table, `${o.prefix}-al:${k}`, k), longMs],
    ];
    if (k % 2) pair.reverse();
    for (const [step, into] of pair) into.push((await send(client, step)).ms);
  }
  return {
    shortEvents: shorts[0].events,
    longEvents: long.events,
    samples: o.samples,
    short: latencySummary(shortMs),
    long: latencySummary(longMs),
    shortShoes,
    setupSeconds,
  };
}
