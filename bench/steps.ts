/**
 * The phases of `npm run bench` (bench/run.ts runs them in this order, each through
 * bench/lib/contain.ts `contained`): ingest (unbatched, then each batch size), append latency,
 * relay drain, the live services (API, relay, projector) for lag, the big round and the audit
 * pages, the PostgreSQL and Kafka ceilings, the rebuild. Each fills its part of `results`; each
 * throws on failure, and each ceiling runs on its own so one failing leaves the others' figures.
 * Every Kafka client and tool is given the configured brokers (bench/lib/config.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import type { KafkaAdmin, KafkaClient } from '@ledger/kafka';
import type { LedgerClient } from '@ledger/simulator';
import { contained } from './lib/contain';
import { cpuMeter, startApi, startProjector, startRelay, stopAndRecord, nodeArgs, type BenchContext } from './lib/context';
import { pgCounters, pgDelta, type Pg } from './lib/pg';
import { runCommand } from './lib/procs';
import { fmtInt, load1, machineCpu, nowMs, round, say, sleep, waitFor } from './lib/util';
import { ingestBatched, ingestUnbatched, warmUp } from './phases/ingest';
import { backlogOf, measureDrain } from './phases/relay';
import { measureLag } from './phases/lag';
import { measureRound } from './phases/round';
import { measureAppend } from './phases/append';
import { measureAudit } from './phases/audit';
import { measureSignificant } from './phases/significant';
import { seedTopic } from './phases/rebuild';
import { commitCeiling, consumerPerformance, dropExport, exportRows, grownTables, headerProducer, loadCeiling, producerPerformance, sampleRecords, tableCounts } from './phases/ceilings';

/** The connections a phase needs. @throws Error when the set-up did not open them */
function conn(c: BenchContext): { pg: Pg; kafka: KafkaClient; admin: KafkaAdmin; client: LedgerClient } {
  if (!c.pg || !c.kafka || !c.admin || !c.client) throw new Error('not connected (the set-up failed)');
  return { pg: c.pg, kafka: c.kafka, admin: c.admin, client: c.client };
}

/** Ingest: unbatched, then each batch size (each contained); exports each batch size's rows for its COPY ceiling. */
export async function ingestPhase(c: BenchContext): Promise<void> {
  const { pg, client } = conn(c);
  const db = c.config.databaseName;
  const ingest: Record<string, unknown> = {};
  const batched: Record<string, unknown> = {};
  c.results.ingest = ingest;
  await contained(c.failures, 'ingest.unbatched', async () => {
    const c0 = await pgCounters(pg, db);
    const cpu = await cpuMeter(c, pg);
    const u = await ingestUnbatched(client, { prefix: `${c.run}u`, ...c.sizes.unbatched });
    ingest.unbatched = { ...u, postgres: pgDelta(c0, await pgCounters(pg, db), u.events), cpu: await cpu(), loadAverage: load1() };
    say(`  unbatched: ${fmtInt(u.eventsPerSecond)} events/s, ${fmtInt(u.requestsPerSecond)} requests/s, p50 ${u.latencyMs.all.p50} ms p99 ${u.latencyMs.all.p99} ms`);
  });
  ingest.batched = batched;
  for (const size of c.sizes.batched.sizes) {
    await contained(c.failures, `ingest.batched.${size}`, async () => {
      // exact row counts of every table before and after: the COPY ceiling copies what this run wrote
      const before = c.want('ceilings') ? await tableCounts(pg, 'public') : {};
      const c0 = await pgCounters(pg, db);
      const cpu = await cpuMeter(c, pg);
      const f = await ingestBatched(client, { prefix: `${c.run}b`, clients: c.sizes.batched.clients, batchSize: size, bets: c.sizes.batched.betsPerSize });
      batched[String(size)] = { ...f, postgres: pgDelta(c0, await pgCounters(pg, db), f.events), cpu: await cpu(), loadAverage: load1() };
      say(`  batch ${size}: ${fmtInt(f.eventsPerSecond)} events/s (${fmtInt(f.clientEventsPerSecond)} client events/s), bets p50 ${f.latencyMs.bets?.p50} ms p99 ${f.latencyMs.bets?.p99} ms`);
      if (c.want('ceilings')) {
        const grown = grownTables('public', before, await tableCounts(pg, 'public'));
        c.exports[`ingest${size}`] = await exportRows(pg, c.config.databaseUrl, { label: `ingest${size}`, sources: grown, tmpDir: c.dirs.tmp, logDir: c.dirs.log });
      }
    });
  }
}

/** Append latency on a short and a long stream. */
export async function appendPhase(c: BenchContext): Promise<void> {
  const a = await measureAppend(conn(c).client, { prefix: `${c.run}a`, ...c.sizes.append });
  c.results.append = a;
  say(`  append: p50/p99 ${a.short.p50}/${a.short.p99} ms on ${a.shortEvents} events, ${a.long.p50}/${a.long.p99} ms on ${a.longEvents} events`);
}

/** The relay drains the backlog the ingest left; then a sample of its records (for the producer ceiling). */
export async function relayPhase(c: BenchContext): Promise<void> {
  const { pg, kafka, admin } = conn(c);
  const backlog = await backlogOf(pg);
  if (backlog === 0) throw new Error('no backlog to drain (the ingest wrote no events)');
  const cpuR = await cpuMeter(c, pg);
  const spawnedAt = nowMs();
  startRelay(c);
  const relayFigures = await measureDrain(admin, c.topics.ingest, backlog, spawnedAt, Math.max(120_000, backlog * 5));
  // the relay's own records (keys, values, headers): what the producer ceiling sends
  c.recordSample = await sampleRecords(kafka, c.topics.ingest, c.sizes.producer.sampleRecords, join(c.dirs.tmp, 'relay-records.tsv'));
  const { file: _file, ...sampleFigures } = c.recordSample;
  c.results.relay = { ...relayFigures, records: sampleFigures, cpu: await cpuR(), loadAverage: load1() };
  say(`  relay: ${fmtInt(relayFigures.eventsPerSecond)} events/s (${backlog} events in ${relayFigures.seconds} s; records ${c.recordSample.meanValueBytes} B + ${c.recordSample.meanHeaders} headers)`);
}

/** The live path: API on the live topic, relay, projector; waits until the projector joined and a warm-up is projected. */
export async function livePhase(c: BenchContext): Promise<void> {
  const { pg, admin, client } = conn(c);
  await startApi(c, c.topics.live, 'api-live');
  startRelay(c);
  const projector = startProjector(c);
  await sleep(1000);
  await waitFor(
    'the projector to join its group',
    async () => {
      if (projector.exitCode !== null) throw new Error(`projector exited; see ${projector.logFile}`);
      const { rows } = await pg.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'ledger-projector:%' AND datname = $1`, [c.config.databaseName]);
      return rows[0].n > 0;
    },
    60_000,
    200,
  );
  // warm-up of the live path: a few rounds, and wait until projected
  await warmUp(client, `${c.run}lw`);
  const hw = await admin.fetchTopicOffsets(c.topics.live);
  await waitFor(
    'the warm-up to be projected',
    async () => {
      const { rows } = await pg.query(`SELECT partition, next_offset::text AS o FROM "${c.readSchema}".checkpoints WHERE topic = $1`, [c.topics.live]).catch(() => ({ rows: [] }));
      const cps = new Map(rows.map((r: { partition: number; o: string }) => [r.partition, BigInt(r.o)]));
      return hw.every((h) => BigInt(h.high) === 0n || (cps.get(h.partition) ?? 0n) >= BigInt(h.high));
    },
    120_000,
    100,
  );
}

/** Lag at the offered rate (open loop), scheduled → projected. */
export async function lagPhase(c: BenchContext): Promise<void> {
  const { pg, client } = conn(c);
  const c0 = await pgCounters(pg, c.config.databaseName);
  const cpu = await cpuMeter(c, pg);
  const lag = await measureLag(client, pg, { prefix: c.run, schema: c.readSchema, ...c.sizes.lag, drainTimeoutMs: 60_000 });
  c.results.lag = { ...lag, postgres: pgDelta(c0, await pgCounters(pg, c.config.databaseName), lag.events), cpu: await cpu(), loadAverage: load1() };
  const l = lag.lagMs ?? lag.lagMsUnsustained;
  say(`  lag: ${lag.sustained ? '' : 'NOT SUSTAINED, '}p50 ${l?.p50} ms, p99 ${l?.p99} ms scheduled → projected; achieved ${lag.achievedEventsPerSecond} of ${lag.offeredEventsPerSecond} events/s`);
  await sleep(1000);
}

/** The big round: last card → every settlement projected. */
export async function roundPhase(c: BenchContext): Promise<void> {
  const { pg, client } = conn(c);
  const cpu = await cpuMeter(c, pg);
  const r = await measureRound(client, pg, { prefix: c.run, schema: c.readSchema, ...c.sizes.round, timeoutMs: 120_000 });
  c.results.round = { ...r, cpu: await cpu(), loadAverage: load1() };
  say(`  round of ${r.bets} bets: projected ${r.runs.map((x) => x.projectedMs).join(', ')} ms after the last card's request`);
}

/**
 * Significant events at the bench's load: cause recordedAt → the raise on the significant-events
 * topic and on `GET /significant-events`, per kind (bench/phases/significant.ts), while the
 * unbatched ingest drives the live API; also written to bench/results/significant-latest.json.
 */
export async function significantPhase(c: BenchContext): Promise<void> {
  const { pg, kafka, client } = conn(c);
  const cpu = await cpuMeter(c, pg);
  const s = await measureSignificant(client, pg, kafka, { prefix: c.run, topic: c.topics.liveSignificant, ...c.sizes.significant, timeoutMs: 60_000 });
  c.results.significant = { ...s, cpu: await cpu(), loadAverage: load1() };
  writeFileSync(join('bench/results', 'significant-latest.json'), JSON.stringify({ run: c.run, quick: c.quick, at: new Date().toISOString(), cores: cpus().length, ...(c.results.significant as object) }, null, 2));
}

/** Audit pages over the seeded rows. */
export async function auditPhase(c: BenchContext): Promise<void> {
  const { pg, client } = conn(c);
  const a = await measureAudit(client, pg, c.config.databaseUrl, { schema: c.readSchema, ...c.sizes.audit, logDir: c.dirs.log });
  c.results.audit = a;
  say(`  audit: p50 ${a.pageMs.p50} ms, p99 ${a.pageMs.p99} ms over ${a.requests} pages of ${fmtInt(a.rows)} rows (${a.failed} failed)`);
}

/** Stops the API, and with `all` the projector and the relay too, keeping their peaks (memory `api`, `projector`, `relay`). */
export async function stopServices(c: BenchContext, all: boolean): Promise<void> {
  if (all) {
    await stopAndRecord(c, c.projector, 'projector');
    c.projector = null;
  }
  await stopAndRecord(c, c.api, 'api');
  c.api = null;
  if (all) {
    await stopAndRecord(c, c.relay, 'relay');
    c.relay = null;
  }
}

/** The ceilings of PostgreSQL (COPY of the ingest's rows, commits) and of the Kafka producer, each contained. */
export async function ceilingsPhase(c: BenchContext): Promise<void> {
  const { pg } = conn(c);
  const ceilings = (c.results.ceilings ??= {}) as Record<string, unknown>;
  const copies: Record<string, unknown> = {};
  ceilings.copyIngest = copies;
  for (const [label, e] of Object.entries(c.exports)) {
    // the live write path keeps its indexes while it writes: the ingest's ceiling is the indexed load
    await contained(c.failures, `ceilings.copyIngest.${label}`, async () => (copies[label] = await loadCeiling(pg, c.config.databaseUrl, e, { strategies: ['indexed'], logDir: c.dirs.log })));
    dropExport(e);
    delete c.exports[label];
  }
  const url = c.config.databaseUrl;
  await contained(c.failures, 'ceilings.commits', async () => (ceilings.commits = await commitCeiling(pg, url, { ...c.sizes.pgbench, tmpDir: c.dirs.tmp, logDir: c.dirs.log })));
  const samples = c.recordSample;
  if (!samples) return;
  const brokers = c.config.brokers;
  const common = { brokers, topic: c.topics.perf, samples, tmpDir: c.dirs.tmp, logDir: c.dirs.log };
  const P = c.sizes.producer;
  await contained(c.failures, 'ceilings.producer', async () => (ceilings.producer = await headerProducer({ ...common, name: 'header-producer', records: P.records, throughput: -1 })));
  await contained(c.failures, 'ceilings.producerAt1000', async () => (ceilings.producerAt1000 = await headerProducer({ ...common, name: 'header-producer-1000', records: 1000 * P.latencySeconds, throughput: 1000 })));
  await contained(
    c.failures,
    'ceilings.producerPerformanceNoHeaders',
    async () =>
      (ceilings.producerPerformanceNoHeaders = await producerPerformance({
        brokers,
        name: 'kafka-producer-perf',
        topic: c.topics.perf,
        records: P.records,
        recordBytes: samples.meanValueBytes,
        throughput: -1,
        logDir: c.dirs.log,
      })),
  );
}

/** Rebuild from offset zero in its own process (the configured brokers), with the consumer and COPY ceilings of it, each contained. */
export async function rebuildPhase(c: BenchContext): Promise<void> {
  const { pg, kafka } = conn(c);
  const seed = await seedTopic(kafka, c.topics.rebuild, c.sizes.rebuild.events, `${c.run}`);
  const ceilings = (c.results.ceilings ??= {}) as Record<string, unknown>;
  if (c.want('ceilings')) {
    const o = { brokers: c.config.brokers, topic: c.topics.rebuild, records: seed.events, group: `bench-consumer-perf-${c.run}`, logDir: c.dirs.log };
    await contained(c.failures, 'ceilings.consumer', async () => (ceilings.consumer = await consumerPerformance(o)));
  }
  say(`rebuild: ${seed.events} events into ${c.rebuildSchema} (own process)`);
  const c0 = await pgCounters(pg, c.config.databaseName);
  const m0 = machineCpu();
  const env = {
    TS_NODE_BASEURL: './dist',
    DATABASE_URL: c.config.databaseUrl,
    KAFKA_BROKERS: c.config.brokers.join(','),
    REBUILD_TOPIC: c.topics.rebuild,
    REBUILD_SCHEMA: c.rebuildSchema,
    REBUILD_CONCURRENCY: String(c.sizes.rebuild.concurrency),
    REBUILD_MAX_RECORDS_PER_TX: String(c.sizes.rebuild.maxRecordsPerTx),
  };
  const r = await runCommand('rebuild-worker', process.execPath, [...nodeArgs(c, 'rebuild'), '-r', 'tsconfig-paths/register', 'dist/bench/rebuild-worker.js'], c.dirs.log, { env, timeoutMs: 1_800_000 });
  const m1 = machineCpu();
  const line = r.out.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.code !== 0 || !line) throw new Error(`rebuild worker failed (${r.code}): ${r.out.slice(-3000)}`);
  const rebuilt = JSON.parse(line.slice('RESULT '.length));
  c.memory.rebuildWorker = { peakMiB: r.peakMiB, cpuSeconds: round((rebuilt.breakdown.cpuUserMs + rebuilt.breakdown.cpuSystemMs) / 1000, 1) };
  const busy = round((m1.busy - m0.busy) / ((m1.total - m0.total) / cpus().length), 2);
  c.results.rebuild = { seed, ...rebuilt, postgres: pgDelta(c0, await pgCounters(pg, c.config.databaseName), rebuilt.events), machineBusyCores: busy, loadAverage: load1() };
  say(`  rebuild: ${fmtInt(rebuilt.eventsPerSecond)} events/s (${fmtInt(rebuilt.events)} events in ${rebuilt.durationMs} ms)`);
  if (rebuilt.scoped) {
    const sc = rebuilt.scoped;
    say(`  scoped rebuild of ${sc.tableId} on ${sc.gamingDay}: ${fmtInt(sc.events)} events applied of ${fmtInt(sc.records)} records in ${sc.durationMs} ms (full: ${rebuilt.durationMs} ms); rows equal: ${sc.equal}`);
  }
  if (c.want('ceilings')) await contained(c.failures, 'ceilings.copyRebuild', async () => (ceilings.copyRebuild = await rebuildCopyCeiling(c, pg, rebuilt.events)));
  await pg.query(`DROP SCHEMA IF EXISTS "${c.rebuildSchema}" CASCADE`);
}

/** COPY ceiling of every table the rebuild filled: the faster of indexed and load-then-index. */
async function rebuildCopyCeiling(c: BenchContext, pg: Pg, events: number) {
  const tables = (await pg.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`, [c.rebuildSchema])).rows.map(
    (x: { table_name: string }) => x.table_name,
  );
  const sources = tables.map((table: string) => ({ schema: c.rebuildSchema, table, rows: 'all' as const }));
  const e = await exportRows(pg, c.config.databaseUrl, { label: 'rebuild', sources, tmpDir: c.dirs.tmp, logDir: c.dirs.log });
  try {
    // the rebuild may load first and index after: the ceiling is the faster of both ways
    return { ...(await loadCeiling(pg, c.config.databaseUrl, e, { strategies: ['indexed', 'load-then-index'], logDir: c.dirs.log })), events };
  } finally {
    dropExport(e);
  }
}
