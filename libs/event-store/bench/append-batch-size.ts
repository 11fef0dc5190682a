/**
 * Cost per event of one append as the append grows (500, 2,000, 10,000 BetPlaced events by default),
 * on this machine's PostgreSQL: the figure should stay flat. Between two measured appends the same
 * connection makes small appends (one card), as the API's do, so `ledger_append` keeps planning its
 * insert with the call's values (a custom plan: where reading the arrays element by element was
 * O(n²), see migration `1799500000000-AppendByUnnest`).
 *
 *   npx tsx libs/event-store/bench/append-batch-size.ts
 *
 * Environment: BENCH_DATABASE_URL [postgres://ledger_owner:ledger_owner@127.0.0.1:5432/ledger_test]
 * (the owner: it runs the migrations, then appends as `ledger_app`), BENCH_SIZES [500,2000,10000],
 * BENCH_EVENTS [20000] events per size. Prints one JSON line per size. The database keeps the events
 * (append-only): run it on a test database.
 */
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '@ledger/events';
import { databaseUrlForRole } from '@ledger/infra';
import { createDataSource, runMigrations } from '../src/data-source';
import { PgEventStore } from '../src/event-store';
import type { LedgerLogger } from '../src/logger';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://ledger_owner:ledger_owner@127.0.0.1:5432/ledger_test';
const SIZES = (process.env.BENCH_SIZES ?? '500,2000,10000').split(',').map(Number);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const quiet: LedgerLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const CODES = ['PLAYER', 'BANKER', 'TIE'] as const;

function bets(n: number): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    eventId: randomUUID(),
    type: 'BetPlaced' as const,
    data: { betId: `B-${randomUUID()}`, roundId: 'R-1', accountId: `acct-${i % 500}`, betCode: CODES[i % 3], stake: String(100 + (i % 977)), currency: 'EUR' },
  }));
}

/** One append of `events` as version `version` + 1.. of `streamId`, with an idempotency key as the API sends; its milliseconds. */
async function timedAppend(store: PgEventStore, streamId: string, version: number, events: NewEvent[]): Promise<number> {
  const started = performance.now();
  await store.append({
    streamId,
    tableId: 'T-BENCH-SIZE',
    expectedVersion: version,
    events,
    metadata: { actor: { id: 'bench', role: 'betting-platform' }, correlationId: randomUUID() },
    idempotency: { caller: 'betting-platform:bench', key: randomUUID(), requestHash: 'bench', statusCode: 201, response: (e) => ({ count: e.length }) },
  });
  return performance.now() - started;
}

/** `EVENTS` events in appends of `size`, each after a one-card append on the same stream; µs per event of the big appends. */
async function measure(store: PgEventStore, size: number): Promise<{ size: number; appends: number; msPerAppend: number; usPerEvent: number }> {
  const appends = Math.max(1, Math.round(EVENTS / size));
  let ms = 0;
  for (let i = 0; i < appends; i++) {
    const streamId = `shoe-bench-size-${randomUUID()}`;
    await timedAppend(store, streamId, 0, [{ eventId: randomUUID(), type: 'CardDealt', data: { roundId: 'R-1', position: 'P1', card: 'TH' } }]);
    ms += await timedAppend(store, streamId, 1, bets(size));
  }
  return { size, appends, msPerAppend: +(ms / appends).toFixed(1), usPerEvent: +((ms * 1000) / appends / size).toFixed(1) };
}

async function main(): Promise<void> {
  const owner = createDataSource(DATABASE_URL, { poolSize: 2, applicationName: 'bench-append-size' });
  await owner.initialize();
  await runMigrations(owner);
  await owner.destroy();
  // one connection: every append plans on the same session, as a busy API's pooled connections do
  const ds = createDataSource(databaseUrlForRole(DATABASE_URL, 'ledger_app'), { poolSize: 1, applicationName: 'bench-append-size' });
  await ds.initialize();
  try {
    const store = new PgEventStore(ds, { logger: quiet });
    for (const size of SIZES) await measure(store, Math.min(size, 1000)); // warm-up: JIT, plans
    for (const size of SIZES) process.stdout.write(`${JSON.stringify(await measure(store, size))}\n`);
  } finally {
    await ds.destroy();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
