/**
 * Ingest through the HTTP API into the event store (closed loop: each client sends its next
 * request when the previous one is answered).
 *
 * - unbatched: `clients` concurrent clients, each on its own shoe, every table fact and every bet
 *   one request (`POST …/bets` with one bet), `betsPerRound` bets a round, for `seconds`;
 * - batched: for each batch size, `clients` concurrent clients on their own shoes play rounds
 *   whose bets arrive as ONE `POST …/bets/batch` of that size, then close betting and deal (the
 *   last card records the result and one settlement per bet), until `betsPerSize` bets are in.
 *
 * Figures: events recorded per second (every event the requests recorded, settlements included),
 * client events per second (the facts and bets the clients sent, without the result and the
 * settlements the ledger derives), request latency p50/p99 per kind of request.
 */
import { LedgerClient } from '@ledger/simulator';
import { benchTables, DERIVED_TYPES, send, shoeSteps, type Sent, type Step } from '../lib/workload';
import { latencySummary, nowMs, round, say } from '../lib/util';

export interface IngestFigures {
  readonly clients: number;
  readonly seconds: number;
  readonly requests: number;
  readonly events: number;
  readonly clientEvents: number;
  readonly bets: number;
  readonly eventsPerSecond: number | null;
  readonly clientEventsPerSecond: number | null;
  readonly requestsPerSecond: number | null;
  readonly latencyMs: Record<string, ReturnType<typeof latencySummary>>;
}

function figures(clients: number, sent: Sent[], ms: number): IngestFigures {
  const events = sent.reduce((n, s) => n + s.events.length, 0);
  const clientEvents = sent.reduce((n, s) => n + s.events.filter((e) => !DERIVED_TYPES.has(e.type)).length, 0);
  const bets = sent.reduce((n, s) => n + s.events.filter((e) => e.type === 'BetPlaced').length, 0);
  const byKind: Record<string, number[]> = { all: [] };
  for (const s of sent) {
    byKind.all.push(s.ms);
    (byKind[s.step.kind] ??= []).push(s.ms);
  }
  const latencyMs: Record<string, ReturnType<typeof latencySummary>> = {};
  for (const [k, v] of Object.entries(byKind)) latencyMs[k] = latencySummary(v);
  const sec = ms / 1000;
  return {
    clients,
    seconds: round(sec, 2)!,
    requests: sent.length,
    events,
    clientEvents,
    bets,
    eventsPerSecond: round(events / sec),
    clientEventsPerSecond: round(clientEvents / sec),
    requestsPerSecond: round(sent.length / sec),
    latencyMs,
  };
}

/** A client's endless supply of shoes (a new one when the cut card ends the previous). */
function shoeSupply(prefix: string, clientNo: number, make: (table: ReturnType<typeof benchTables>[number], shoeId: string, seed: string) => Step[]) {
  const tables = benchTables();
  let n = 0;
  return () => {
    n++;
    const table = tables[(clientNo + n) % tables.length];
    const shoeId = `${prefix}-c${clientNo}-s${n}`;
    return make(table, shoeId, `${shoeId}-seed`);
  };
}

/** Unbatched ingest. */
export async function ingestUnbatched(client: LedgerClient, o: { prefix: string; clients: number; seconds: number; betsPerRound: number }): Promise<IngestFigures> {
  say(`ingest unbatched: ${o.clients} clients, one bet or fact per request, ${o.seconds} s`);
  const sent: Sent[] = [];
  const started = nowMs();
  const deadline = started + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.clients }, async (_, c) => {
      const next = shoeSupply(o.prefix, c, (table, shoeId, seed) => shoeSteps({ table, shoeId, seed, rounds: 200, betsPerRound: o.betsPerRound, betMode: 'single' }));
      let steps = next();
      let i = 0;
      while (nowMs() < deadline) {
        if (i >= steps.length) {
          steps = next();
          i = 0;
        }
        sent.push(await send(client, steps[i++]));
      }
    }),
  );
  return figures(o.clients, sent, nowMs() - started);
}

/** Batched ingest for one batch size. */
export async function ingestBatched(client: LedgerClient, o: { prefix: string; clients: number; batchSize: number; bets: number }): Promise<IngestFigures> {
  const roundsTotal = Math.max(o.clients, Math.ceil(o.bets / o.batchSize));
  const roundsEach = Math.ceil(roundsTotal / o.clients);
  say(`ingest batched: ${o.clients} clients × ${roundsEach} rounds of ${o.batchSize} bets in one request (then close, deal, settle)`);
  // every request is prepared before the clock starts (a 10,000-bet body is a few MB of JSON to build)
  const plans = Array.from({ length: o.clients }, (_, c) => {
    const next = shoeSupply(`${o.prefix}-b${o.batchSize}`, c, (table, shoeId, seed) => shoeSteps({ table, shoeId, seed, rounds: roundsEach, betsPerRound: o.batchSize, betMode: 'batch', batchSize: o.batchSize }));
    const steps: Step[] = [];
    let rounds = 0;
    while (rounds < roundsEach) {
      const shoe = next();
      // rounds this shoe holds before its cut card
      const opened = shoe.filter((s) => s.path.endsWith('/rounds') && s.kind === 'fact').length;
      let take = shoe.length;
      if (rounds + opened > roundsEach) {
        let seen = 0;
        take = shoe.findIndex((s) => s.path.endsWith('/rounds') && s.kind === 'fact' && ++seen > roundsEach - rounds);
      }
      steps.push(...shoe.slice(0, take));
      rounds += Math.min(opened, roundsEach - rounds);
    }
    return steps;
  });
  const sent: Sent[] = [];
  const started = nowMs();
  await Promise.all(
    plans.map(async (steps) => {
      for (const step of steps) sent.push(await send(client, step));
    }),
  );
  return figures(o.clients, sent, nowMs() - started);
}

/** A few rounds to warm the API up (JIT, connection pool, plans); not measured. */
export async function warmUp(client: LedgerClient, prefix: string): Promise<void> {
  const tables = benchTables();
  await Promise.all(
    tables.map(async (table, i) => {
      for (const step of shoeSteps({ table, shoeId: `${prefix}-warm-${i}`, seed: `${prefix}-warm-${i}`, rounds: 3, betsPerRound: 200, betMode: 'batch' })) await send(client, step);
      for (const step of shoeSteps({ table, shoeId: `${prefix}-warm1-${i}`, seed: `${prefix}-warm1-${i}`, rounds: 2, betsPerRound: 5, betMode: 'single' })) await send(client, step);
    }),
  );
}
