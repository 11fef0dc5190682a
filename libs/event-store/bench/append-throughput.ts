/**
 * Append and relay throughput of the event store on this machine's PostgreSQL (and Kafka).
 *
 *   npx tsx libs/event-store/bench/append-throughput.ts
 *
 * Environment: BENCH_DATABASE_URL [postgres://ledger:ledger@127.0.0.1:5432/ledger_test],
 * KAFKA_BROKERS [127.0.0.1:9092], BENCH_EVENTS [10000], BENCH_SKIP_RELAY [unset].
 *
 * Scenarios (each on fresh streams):
 *  - batched:     BENCH_EVENTS events in appends of 100, one writer, 10 streams round-robin;
 *  - batched x4:  the same with 4 concurrent writers on their own streams;
 *  - single:      1,000 appends of 1 event (the shape of one HTTP request: one card), one writer;
 *  - single x8:   the same with 8 concurrent writers;
 *  - relay:       publishing everything pending to Kafka (one runOnce), events/s.
 * Prints one JSON line per scenario on stdout. The database keeps the events (append-only): run it on
 * a test database.
 */
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '@ledger/events';
import { createDataSource, runMigrations } from '../src/data-source';
import { PgEventStore } from '../src/event-store';
import { OutboxRelay, parseBrokers } from '../src/outbox-relay';
import type { LedgerLogger } from '../src/logger';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://ledger:ledger@127.0.0.1:5432/ledger_test';
const TOTAL = Number(process.env.BENCH_EVENTS ?? 10_000);
const quiet: LedgerLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function cardEvents(n: number, roundId: string): NewEvent[] {
  const positions = ['P1', 'B1', 'P2', 'B2', 'P3', 'B3'] as const;
  return Array.from({ length: n }, (_, i) => ({
    eventId: randomUUID(),
    type: 'CardDealt' as const,
    data: { roundId, position: positions[i % 6], card: 'TH' },
  }));
}

function report(scenario: string, events: number, appends: number, ms: number, extra: Record<string, unknown> = {}) {
  process.stdout.write(
    JSON.stringify({
      scenario,
      events,
      appends,
      seconds: +(ms / 1000).toFixed(3),
      eventsPerSecond: Math.round((events / ms) * 1000),
      appendsPerSecond: Math.round((appends / ms) * 1000),
      msPerAppend: +(ms / appends).toFixed(3),
      ...extra,
    }) + '\n',
  );
}

/** `writers` concurrent writers, each appending `appendsEach` appends of `batch` events over `streamsEach` streams. */
async function run(store: PgEventStore, writers: number, appendsEach: number, batch: number, streamsEach: number) {
  const tableId = `BENCH-${randomUUID().slice(0, 8)}`;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      const streams = Array.from({ length: streamsEach }, () => ({ id: `shoe-bench-${randomUUID()}`, version: 0 }));
      for (let i = 0; i < appendsEach; i++) {
        const s = streams[i % streams.length];
        const r = await store.append({
          streamId: s.id,
          tableId,
          expectedVersion: s.version,
          events: cardEvents(batch, `round-${i}`),
          metadata: { actor: { id: 'bench', role: 'table-device' }, correlationId: randomUUID() },
        });
        s.version = r.lastVersion;
      }
    }),
  );
  return performance.now() - started;
}

async function main(): Promise<void> {
  const ds = createDataSource(DATABASE_URL, { poolSize: 16, applicationName: 'ledger-bench' });
  await ds.initialize();
  await runMigrations(ds);
  const store = new PgEventStore(ds, { logger: quiet });
  await run(store, 1, 20, 10, 2); // warm-up: connections, plans

  const batchedAppends = Math.ceil(TOTAL / 100);
  report('batched 100/append, 1 writer', batchedAppends * 100, batchedAppends, await run(store, 1, batchedAppends, 100, 10));
  const each = Math.ceil(batchedAppends / 4);
  report('batched 100/append, 4 writers', each * 4 * 100, each * 4, await run(store, 4, each, 100, 3));
  report('single event/append, 1 writer', 1000, 1000, await run(store, 1, 1000, 1, 10));
  report('single event/append, 8 writers', 1000, 1000, await run(store, 8, 125, 1, 2));

  if (!process.env.BENCH_SKIP_RELAY) {
    const relay = new OutboxRelay({
      databaseUrl: DATABASE_URL,
      brokers: parseBrokers(process.env.KAFKA_BROKERS),
      logger: quiet,
      crashPoint: null,
    });
    try {
      const started = performance.now();
      const r = await relay.runOnce();
      const ms = performance.now() - started;
      report('relay to Kafka (500/batch)', r.published, r.batches, ms, { leader: r.leader });
    } finally {
      await relay.stop();
    }
  }
  await ds.destroy();
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
