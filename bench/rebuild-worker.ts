/**
 * The rebuild as its own process (started by bench/run.ts from dist/bench/rebuild-worker.js):
 * `rebuildProjections` of REBUILD_TOPIC into the scratch schema REBUILD_SCHEMA, with a timing
 * breakdown: every PostgreSQL round trip is timed (pg's Client.query is wrapped), grouped by
 * statement shape, so the report can say how much of the rebuild waits on the database and on
 * which statements. Prints one line `RESULT <json>` on stdout.
 *
 * The breakdown also holds the peaks of `process.memoryUsage()` (rss, heapUsed, heapTotal,
 * external, arrayBuffers; MiB), sampled every 250 ms, and the phase each peak was seen in.
 *
 * Environment: DATABASE_URL, KAFKA_BROKERS, REBUILD_TOPIC, REBUILD_SCHEMA,
 * REBUILD_CONCURRENCY [2], REBUILD_MAX_RECORDS_PER_TX [5000].
 */
import { Client } from 'pg';
import { createKafka } from '@ledger/kafka';
import { createProjectionDataSource, rebuildProjections, scopedRebuild } from '@ledger/projections';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';
import { brokersOf } from './lib/config';

interface Stat {
  calls: number;
  ms: number;
}
const stats = new Map<string, Stat>();
let dbMs = 0;
let dbCalls = 0;

/** A statement's shape: parameters and VALUES lists folded, so multi-row INSERTs of any size group together. */
function shape(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\(\$\d+[^)]*\)(\s*,\s*\(\$\d+[^)]*\))+/g, '(…)×n')
    .replace(/"[a-z0-9_]+"\./g, '')
    .slice(0, 110);
}

const original = Client.prototype.query as (...args: unknown[]) => unknown;
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: Client, ...args: unknown[]) {
  const result = original.apply(this, args);
  if (!result || typeof (result as Promise<unknown>).then !== 'function') return result;
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first?.text ?? '?');
  const t0 = performance.now();
  return (result as Promise<unknown>).then(
    (r) => {
      const ms = performance.now() - t0;
      const k = shape(text);
      const s = stats.get(k) ?? { calls: 0, ms: 0 };
      s.calls++;
      s.ms += ms;
      stats.set(k, s);
      dbMs += ms;
      dbCalls++;
      return r;
    },
    (e) => {
      throw e;
    },
  );
};

/** The largest of each figure of `process.memoryUsage()` seen by {@link sampleMemory}, MiB, and the phase each was seen in. */
const memoryPeaks: Record<string, { mib: number; phase: string }> = {};
let memoryPhase = 'start';

/** Samples `process.memoryUsage()` (rss, heapUsed, heapTotal, external, arrayBuffers) into {@link memoryPeaks}. */
function sampleMemory(): void {
  for (const [k, v] of Object.entries(process.memoryUsage())) {
    const mib = Math.round((v / 1_048_576) * 10) / 10;
    if (!memoryPeaks[k] || mib > memoryPeaks[k].mib) memoryPeaks[k] = { mib, phase: memoryPhase };
  }
}

async function main(): Promise<void> {
  const sampler = setInterval(sampleMemory, 250);
  sampler.unref();
  const topic = process.env.REBUILD_TOPIC!;
  const schema = process.env.REBUILD_SCHEMA!;
  const concurrency = Number(process.env.REBUILD_CONCURRENCY ?? 2);
  const maxRecordsPerTransaction = Number(process.env.REBUILD_MAX_RECORDS_PER_TX ?? 5000);
  const ds = createProjectionDataSource(process.env.DATABASE_URL, { applicationName: 'ledger-bench-rebuild', poolSize: concurrency + 3 });
  await ds.initialize();
  const kafka = createKafka({ clientId: 'ledger-bench-rebuild', brokers: brokersOf(process.env), logLevel: 'error' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  memoryPhase = 'rebuild';
  const r = await rebuildProjections({ ds, kafka, topic, schema, projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, partitionsConsumedConcurrently: concurrency, maxRecordsPerTransaction });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  memoryPhase = 'scoped';
  const scoped = await scopedFigures({ ds, kafka, topic, schema });
  await ds.destroy();
  const top = [...stats.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 12)
    .map(([sql, s]) => ({ sql, calls: s.calls, ms: Math.round(s.ms), msPerCall: Math.round((s.ms / s.calls) * 100) / 100 }));
  const out = {
    schema: r.schema,
    records: r.records,
    events: r.events,
    durationMs: r.durationMs,
    eventsPerSecond: r.eventsPerSecond,
    rows: Object.fromEntries(Object.entries(r.checksums).map(([k, v]) => [k, v.rows])),
    scoped,
    breakdown: {
      wallMsIncludingSchemaAndChecksums: Math.round(wallMs),
      concurrency,
      maxRecordsPerTransaction,
      dbRoundTrips: dbCalls,
      dbWaitMs: Math.round(dbMs),
      cpuUserMs: Math.round(cpu.user / 1000),
      cpuSystemMs: Math.round(cpu.system / 1000),
      topStatements: top,
      /** Peak of each `process.memoryUsage()` figure (MiB, sampled every 250 ms) and the phase it was seen in (rebuild, scoped). */
      memoryPeaks,
    },
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

/**
 * A scoped rebuild (one gaming day of one gaming table: the busiest of the rebuilt schema) against
 * the full rebuild just made, which stands for the live schema (its checkpoints are the stop
 * offsets): its replay time next to the full one's, and whether its rows equal the full rebuild's.
 */
async function scopedFigures(o: { ds: ReturnType<typeof createProjectionDataSource>; kafka: ReturnType<typeof createKafka>; topic: string; schema: string }) {
  const [pick] = await o.ds.query(`SELECT table_id, gaming_day::text AS day, count(*)::int AS rounds FROM "${o.schema}".hand_outcomes GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1`);
  if (!pick) return null;
  const scratchSchema = `${o.schema}_scoped`;
  const r = await scopedRebuild({
    ds: o.ds,
    kafka: o.kafka,
    topic: o.topic,
    projections: ALL_PROJECTIONS,
    migrations: READ_MODEL_MIGRATIONS,
    scope: { tableId: pick.table_id, gamingDay: pick.day },
    liveSchema: o.schema,
    scratchSchema,
  });
  await o.ds.query(`DROP SCHEMA IF EXISTS "${scratchSchema}" CASCADE`);
  return { tableId: pick.table_id, gamingDay: pick.day, rounds: pick.rounds, records: r.records, events: r.events, durationMs: r.durationMs, recordsPerSecond: r.recordsPerSecond, checksumMs: r.checksumMs, equal: r.equal };
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`rebuild-worker: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
