/**
 * `npm run bench` (scripts/bench.sh → `npx tsx bench/run.ts`): the ledger's performance figures
 * in ONE run, each against the machine's own ceiling measured in the same run. Not a test: it
 * prints figures and marks the targets met or missed.
 *
 *   npx tsx bench/run.ts [--quick] [--profile] [--keep-topics] [--only ingest,append,relay,lag,round,audit,rebuild,ceilings]
 *
 * Expects (scripts/bench.sh does it): the stack up (`scripts/stack.sh up`), `dist/` built
 * (`npm run -s build`), and an empty bench database (`TEST_DB_NAME=ledger_bench bash scripts/stack.sh
 * fresh-test-db`). Starts the API, relay and projector from dist/ as its own child processes
 * (peak RSS from /proc/<pid>/status VmHWM), on port BENCH_PORT [3901], topics `bench.<run>.*`,
 * read schema `bench_read`, scratch schema `bench_rebuild`; stops them all by pid when done.
 *
 * Environment: BENCH_QUICK=1 (= --quick), BENCH_PROFILE=1 (= --profile: node --cpu-prof on every
 * Node process, summaries in the JSON), BENCH_DATABASE_URL
 * [postgres://ledger:ledger@127.0.0.1:5432/ledger_bench], BENCH_PORT [3901], KAFKA_BROKERS [127.0.0.1:9092]
 * (bench/lib/config.ts: every phase and every ceiling, the Java producer and Kafka's perf tools included).
 *
 * Output: the performance targets and the figures, as tables on stdout; the full results (with
 * `targets`, one row per target, bench/lib/targets.ts) in bench/results/latest.json and
 * bench/results/<timestamp>[-quick].json (fields: bench/results/README.md); logs of every process in
 * bench/results/logs/<run>/.
 */
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createKafka } from '@ledger/kafka';
import { LedgerClient } from '@ledger/simulator';
import { ensureTopics } from '@ledger/infra';
import { jwtSecret } from '@ledger/tokens';
import { connect, pgCounters, pgDelta, type Pg, type PgCounters } from './lib/pg';
import { killAll, runCommand, sampleAll, startNodeService, stopService, waitForLog, type Service } from './lib/procs';
import { renderTable, renderTargets } from './lib/report';
import { detailRows, targetInputs } from './lib/summary';
import { computeTargets } from './lib/targets';
import { summarizeDir } from './lib/cpuprofile';
import { brokersOf } from './lib/config';
import { cpuSecondsOf, fmtInt, load1, machineCpu, memoryOf, nowMs, round, say, sleep, waitFor } from './lib/util';
import { ingestBatched, ingestUnbatched, warmUp, type IngestFigures } from './phases/ingest';
import { benchTables, retries } from './lib/workload';
import { backlogOf, measureDrain, type RelayFigures } from './phases/relay';
import { measureLag, type LagFigures } from './phases/lag';
import { measureRound, type RoundFigures } from './phases/round';
import { measureAppend } from './phases/append';
import { measureAudit } from './phases/audit';
import { seedTopic, type SeedFigures } from './phases/rebuild';
import {
  commitCeiling,
  consumerPerformance,
  dropExport,
  exportRows,
  grownTables,
  headerProducer,
  kafkaBroker,
  loadCeiling,
  producerPerformance,
  sampleRecords,
  tableCounts,
  type ConsumerCeiling,
  type CopyExport,
  type RecordSample,
} from './phases/ceilings';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const PROFILE = argv.includes('--profile') || process.env.BENCH_PROFILE === '1';
const KEEP_TOPICS = argv.includes('--keep-topics');
const onlyArg = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? (argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined);
const ONLY = onlyArg ? new Set(onlyArg.split(',')) : null;
const want = (phase: string) => !ONLY || ONLY.has(phase);

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://ledger:ledger@127.0.0.1:5432/ledger_bench';
/** The database the counters are read for: BENCH_DATABASE_URL's. */
const DB_NAME = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1)) || 'ledger_bench';
const BROKERS = brokersOf(process.env);
const PORT = Number(process.env.BENCH_PORT ?? 3901);
const READ_SCHEMA = 'bench_read';
const REBUILD_SCHEMA = 'bench_rebuild';

/**
 * Sizes: full run, and the quick run for CI (every figure by the same code, small, < ~4 minutes;
 * the targets whose size differs are marked `sizeDiffers`). Lag: enough shoes that each shoe's
 * interval (shoes ÷ ≈ 230 requests/s at 1,000 events/s) is far above a request's latency.
 */
const P = QUICK
  ? {
      unbatched: { clients: 4, seconds: 4, betsPerRound: 20 },
      batched: { clients: 2, sizes: [500, 2000], betsPerSize: 6000 },
      append: { shortEvents: 100, longEvents: 20_000, samples: 60, perShortShoe: 10 },
      lag: { rate: 1000, seconds: 6, warmupSeconds: 1, shoes: 64, pollMs: 5 },
      round: { bets: 1000, batchSize: 1000, runs: 1 },
      audit: { rows: 100_000, values: 2, pages: 3 },
      rebuild: { events: 20_000, concurrency: 2, maxRecordsPerTx: 5000 },
      pgbench: { seconds: 2, clients: 8 },
      producer: { records: 100_000, latencySeconds: 3, sampleRecords: 2000 },
    }
  : {
      unbatched: { clients: 8, seconds: 15, betsPerRound: 20 },
      batched: { clients: 3, sizes: [500, 2000, 10000], betsPerSize: 60_000 },
      append: { shortEvents: 100, longEvents: 20_000, samples: 300, perShortShoe: 10 },
      lag: { rate: 1000, seconds: 20, warmupSeconds: 3, shoes: 96, pollMs: 5 },
      round: { bets: 10_000, batchSize: 10_000, runs: 3 },
      audit: { rows: 2_000_000, values: 6, pages: 4 },
      rebuild: { events: 1_000_000, concurrency: 2, maxRecordsPerTx: 5000 },
      pgbench: { seconds: 5, clients: 8 },
      producer: { records: 1_000_000, latencySeconds: 10, sampleRecords: 5000 },
    };

const RUN = `r${Date.now().toString(36)}`;
const RESULTS_DIR = resolve('bench/results');
const LOG_DIR = join(RESULTS_DIR, 'logs', RUN);
const PROFILE_DIR = join(RESULTS_DIR, 'profiles', RUN);
const TMP_DIR = join('/tmp', `ledger-bench-${RUN}`);
const TOPICS = {
  ingest: `bench.${RUN}.ingest`,
  live: `bench.${RUN}.live`,
  rebuild: `bench.${RUN}.rebuild`,
  perf: `bench.${RUN}.perf`,
  roundOutcomes: `bench.${RUN}.analytics.round-outcomes`,
  settlements: `bench.${RUN}.analytics.settlements`,
  roads: `bench.${RUN}.analytics.roads`,
};

interface ProcessFigures {
  peakMiB: number;
  cpuSeconds: number | null;
  note?: string;
}

const results: Record<string, unknown> = {};
const warnings: string[] = [];
const memory: Record<string, ProcessFigures> = {};

function nodeArgs(name: string): string[] {
  return PROFILE ? ['--cpu-prof', '--cpu-prof-dir', join(PROFILE_DIR, name)] : [];
}

async function stopAndRecord(s: Service | null, key: string): Promise<void> {
  if (!s) return;
  const r = await stopService(s);
  const prev = memory[key];
  memory[key] = { peakMiB: Math.max(prev?.peakMiB ?? 0, r.peakMiB), cpuSeconds: (prev?.cpuSeconds ?? 0) + (r.cpuSeconds ?? 0) };
  say(`stopped ${s.name} (pid ${s.pid}): peak RSS ${r.peakMiB} MiB, CPU ${r.cpuSeconds} s, exit ${r.exitCode}`);
}

/** CPU seconds of the PostgreSQL backends serving the bench database, by pid (they live as long as their pooled connection). */
async function backendCpu(pg: Pg): Promise<Map<number, number>> {
  const { rows } = await pg.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [DB_NAME]);
  return new Map(rows.map((r: { pid: number }) => [r.pid, cpuSecondsOf(r.pid) ?? 0]));
}

/** CPU seconds per process, of the PostgreSQL backends and machine-wide over a phase (the machine is shared with whatever else runs). */
async function cpuMeter(pg: Pg, services: () => Service[]) {
  const m0 = machineCpu();
  const self0 = cpuSecondsOf('self') ?? 0;
  const p0 = new Map(services().map((s) => [s.name, cpuSecondsOf(s.pid) ?? 0]));
  const b0 = await backendCpu(pg);
  return async () => {
    const m1 = machineCpu();
    const b1 = await backendCpu(pg);
    let backends = 0;
    for (const [pid, c] of b1) backends += c - (b0.get(pid) ?? 0);
    const out: Record<string, number | null> = {
      machineBusyCores: round((m1.busy - m0.busy) / ((m1.total - m0.total) / cpus().length), 2),
      postgresBackendsCpuSeconds: round(backends, 2),
      benchCpuSeconds: round((cpuSecondsOf('self') ?? 0) - self0, 2),
    };
    for (const s of services()) out[`${s.name}CpuSeconds`] = round((cpuSecondsOf(s.pid) ?? 0) - (p0.get(s.name) ?? 0), 2);
    return out;
  };
}

async function startApi(topic: string, label: string): Promise<Service> {
  const api = startNodeService(label, 'apps/ledger/src/main.js', { PORT: String(PORT), HOST: '127.0.0.1', DATABASE_URL, LEDGER_EVENTS_TOPIC: topic, READ_SCHEMA, LOG_LEVEL: 'warn' }, LOG_DIR, nodeArgs(label));
  await waitFor(
    'the API to answer /health',
    async () => {
      if (api.exitCode !== null) throw new Error(`${label} exited (${api.exitCode}); see ${api.logFile}`);
      return fetch(`http://127.0.0.1:${PORT}/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    60_000,
    200,
  );
  say(`${label} up (pid ${api.pid}) on :${PORT}, topic ${topic}`);
  return api;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = nowMs();
  say(`run ${RUN} (${QUICK ? 'quick' : 'full'}${PROFILE ? ', profiling' : ''}); logs in ${LOG_DIR}`);
  mkdirSync(LOG_DIR, { recursive: true });
  mkdirSync(TMP_DIR, { recursive: true });
  const memTimer = setInterval(sampleAll, 500);

  const pg = await connect(DATABASE_URL);
  const kafka = createKafka({ clientId: `ledger-bench-${RUN}`, brokers: BROKERS, logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(
    admin,
    Object.values(TOPICS).map((name) => ({ name, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } })),
  );
  const broker = kafkaBroker(BROKERS);
  const kafkaPid = broker.pid;
  const pgVersion = (await pg.query('SHOW server_version')).rows[0].server_version;
  const postmasterStart = async () => String((await pg.query('SELECT pg_postmaster_start_time()::text AS t')).rows[0].t);
  const pgStartedAt = await postmasterStart();
  const settings = Object.fromEntries(
    (await pg.query(`SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit','fsync','shared_buffers','wal_level','commit_delay','max_wal_size')`)).rows.map((r: { name: string; setting: string }) => [
      r.name,
      r.setting,
    ]),
  );
  results.environment = {
    run: RUN,
    mode: QUICK ? 'quick' : 'full',
    profile: PROFILE,
    startedAt: startedAt.toISOString(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    loadAverageAtStart: load1(),
    node: process.version,
    postgres: pgVersion,
    postgresSettings: settings,
    kafkaPid,
    database: DB_NAME,
    port: PORT,
    topics: TOPICS,
    readSchema: READ_SCHEMA,
    sizes: P,
  };
  const client = new LedgerClient(`http://127.0.0.1:${PORT}`, jwtSecret(), { deviceTables: benchTables().map((t) => t.tableId) });

  let api: Service | null = null;
  let relay: Service | null = null;
  let projector: Service | null = null;
  const live = () => [api, relay, projector].filter((s): s is Service => s !== null);
  const exports: Record<string, CopyExport> = {};
  let recordSample: RecordSample | null = null;

  try {
    // ------------------------------------------------------------------ 1. ingest (no relay: the backlog fills)
    if (want('ingest') || want('relay') || want('append')) {
      api = await startApi(TOPICS.ingest, 'api');
      await warmUp(client, `${RUN}w`);
      if (want('ingest')) {
        const ingest: Record<string, unknown> = {};
        let c0: PgCounters = await pgCounters(pg, DB_NAME);
        let cpu = await cpuMeter(pg, live);
        const unbatched = await ingestUnbatched(client, { prefix: `${RUN}u`, ...P.unbatched });
        ingest.unbatched = { ...unbatched, postgres: pgDelta(c0, await pgCounters(pg, DB_NAME), unbatched.events), cpu: await cpu(), loadAverage: load1() };
        say(`  unbatched: ${fmtInt(unbatched.eventsPerSecond)} events/s, ${fmtInt(unbatched.requestsPerSecond)} requests/s, p50 ${unbatched.latencyMs.all.p50} ms p99 ${unbatched.latencyMs.all.p99} ms`);
        const batched: Record<string, unknown> = {};
        for (const size of P.batched.sizes) {
          // exact row counts of every table before and after: the COPY ceiling copies what this run wrote
          const before = want('ceilings') ? await tableCounts(pg, 'public') : {};
          c0 = await pgCounters(pg, DB_NAME);
          cpu = await cpuMeter(pg, live);
          const f: IngestFigures = await ingestBatched(client, { prefix: `${RUN}b`, clients: P.batched.clients, batchSize: size, bets: P.batched.betsPerSize });
          batched[String(size)] = { ...f, postgres: pgDelta(c0, await pgCounters(pg, DB_NAME), f.events), cpu: await cpu(), loadAverage: load1() };
          say(`  batch ${size}: ${fmtInt(f.eventsPerSecond)} events/s (${fmtInt(f.clientEventsPerSecond)} client events/s), bets p50 ${f.latencyMs.bets?.p50} ms p99 ${f.latencyMs.bets?.p99} ms`);
          if (want('ceilings')) {
            const grown = grownTables('public', before, await tableCounts(pg, 'public'));
            exports[`ingest${size}`] = await exportRows(pg, DATABASE_URL, { label: `ingest${size}`, sources: grown, tmpDir: TMP_DIR, logDir: LOG_DIR });
          }
        }
        ingest.batched = batched;
        results.ingest = ingest;
      }
      // ---------------------------------------------------------------- 1b. append latency on a short and a long stream
      if (want('append')) {
        const a = await measureAppend(client, { prefix: `${RUN}a`, ...P.append });
        results.append = a;
        say(`  append: p50/p99 ${a.short.p50}/${a.short.p99} ms on ${a.shortEvents} events, ${a.long.p50}/${a.long.p99} ms on ${a.longEvents} events`);
      }

      // ---------------------------------------------------------------- 2. relay: drain the backlog
      const backlog = await backlogOf(pg);
      if (backlog > 0 && (want('relay') || want('lag') || want('round') || want('ceilings'))) {
        const cpuR = await cpuMeter(pg, live);
        const spawnedAt = nowMs();
        relay = startNodeService('relay', 'apps/relay/src/main.js', { DATABASE_URL, KAFKA_BROKERS: BROKERS.join(','), RELAY_HTTP_PORT: '0', LOG_LEVEL: 'warn' }, LOG_DIR, nodeArgs('relay'));
        const relayFigures: RelayFigures = await measureDrain(admin, TOPICS.ingest, backlog, spawnedAt, Math.max(120_000, backlog * 5));
        // the relay's own records (keys, values, headers): what the producer ceiling sends
        recordSample = await sampleRecords(kafka, TOPICS.ingest, P.producer.sampleRecords, join(TMP_DIR, 'relay-records.tsv'));
        const { file: _file, ...sampleFigures } = recordSample;
        results.relay = { ...relayFigures, records: sampleFigures, cpu: await cpuR(), loadAverage: load1() };
        say(`  relay: ${fmtInt(relayFigures.eventsPerSecond)} events/s (${backlog} events in ${relayFigures.seconds} s; records ${recordSample.meanValueBytes} B + ${recordSample.meanHeaders} headers)`);
      }
      await stopAndRecord(api, 'api');
      api = null;
    }

    // --------------------------------------------------------------- 3. lag, the big round and the audit pages (all three running)
    if (want('lag') || want('round') || want('audit')) {
      api = await startApi(TOPICS.live, 'api-live');
      relay ??= startNodeService('relay', 'apps/relay/src/main.js', { DATABASE_URL, KAFKA_BROKERS: BROKERS.join(','), RELAY_HTTP_PORT: '0', LOG_LEVEL: 'warn' }, LOG_DIR, nodeArgs('relay'));
      projector = startNodeService(
        'projector',
        'apps/projector/src/main.js',
        {
          DATABASE_URL,
          KAFKA_BROKERS: BROKERS.join(','),
          LEDGER_EVENTS_TOPIC: TOPICS.live,
          PROJECTOR_GROUP: `bench-projector-${RUN}`,
          PROJECTIONS_SCHEMA: READ_SCHEMA,
          ANALYTICS_ROUND_OUTCOMES_TOPIC: TOPICS.roundOutcomes,
          ANALYTICS_SETTLEMENTS_TOPIC: TOPICS.settlements,
          ANALYTICS_ROADS_TOPIC: TOPICS.roads,
          PROJECTOR_HTTP_PORT: '0',
          LOG_LEVEL: 'warn',
        },
        LOG_DIR,
        nodeArgs('projector'),
      );
      await sleep(1000);
      await waitFor(
        'the projector to join its group',
        async () => {
          if (projector!.exitCode !== null) throw new Error(`projector exited; see ${projector!.logFile}`);
          const { rows } = await pg.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'ledger-projector:%' AND datname = $1`, [DB_NAME]);
          return rows[0].n > 0;
        },
        60_000,
        200,
      );
      // warm-up of the live path: a few rounds, and wait until projected
      await warmUp(client, `${RUN}lw`);
      const hw = await admin.fetchTopicOffsets(TOPICS.live);
      await waitFor(
        'the warm-up to be projected',
        async () => {
          const { rows } = await pg.query(`SELECT partition, next_offset::text AS o FROM "${READ_SCHEMA}".checkpoints WHERE topic = $1`, [TOPICS.live]).catch(() => ({ rows: [] }));
          const cps = new Map(rows.map((r: { partition: number; o: string }) => [r.partition, BigInt(r.o)]));
          return hw.every((h) => BigInt(h.high) === 0n || (cps.get(h.partition) ?? 0n) >= BigInt(h.high));
        },
        120_000,
        100,
      );

      if (want('lag')) {
        const c0 = await pgCounters(pg, DB_NAME);
        const cpu = await cpuMeter(pg, live);
        const lag: LagFigures = await measureLag(client, pg, { prefix: RUN, schema: READ_SCHEMA, ...P.lag, drainTimeoutMs: 60_000 });
        results.lag = { ...lag, postgres: pgDelta(c0, await pgCounters(pg, DB_NAME), lag.events), cpu: await cpu(), loadAverage: load1() };
        const l = lag.lagMs ?? lag.lagMsUnsustained;
        say(`  lag: ${lag.sustained ? '' : 'NOT SUSTAINED, '}p50 ${l?.p50} ms, p99 ${l?.p99} ms scheduled → projected; achieved ${lag.achievedEventsPerSecond} of ${lag.offeredEventsPerSecond} events/s`);
        await sleep(1000);
      }
      if (want('round')) {
        const cpu = await cpuMeter(pg, live);
        const r: RoundFigures = await measureRound(client, pg, { prefix: RUN, schema: READ_SCHEMA, ...P.round, timeoutMs: 120_000 });
        results.round = { ...r, cpu: await cpu(), loadAverage: load1() };
        say(`  round of ${r.bets} bets: projected ${r.runs.map((x) => x.projectedMs).join(', ')} ms after the last card's request`);
      }
      if (want('audit')) {
        const a = await measureAudit(client, pg, DATABASE_URL, { schema: READ_SCHEMA, ...P.audit, logDir: LOG_DIR });
        results.audit = a;
        say(`  audit: p50 ${a.pageMs.p50} ms, p99 ${a.pageMs.p99} ms over ${a.requests} pages of ${fmtInt(a.rows)} rows (${a.failed} failed)`);
      }
      await stopAndRecord(projector, 'projector');
      projector = null;
      await stopAndRecord(api, 'api');
      api = null;
    }
    await stopAndRecord(relay, 'relay');
    relay = null;

    // ---------------------------------------------------------------- 4. ceilings of PostgreSQL and the Kafka producer
    if (want('ceilings')) {
      const ceilings: Record<string, unknown> = {};
      const copies: Record<string, unknown> = {};
      for (const [label, e] of Object.entries(exports)) {
        // the live write path keeps its indexes while it writes: the ingest's ceiling is the indexed load
        copies[label] = await loadCeiling(pg, DATABASE_URL, e, { strategies: ['indexed'], logDir: LOG_DIR });
        dropExport(e);
      }
      ceilings.copyIngest = copies;
      ceilings.commits = await commitCeiling(pg, DATABASE_URL, { ...P.pgbench, tmpDir: TMP_DIR, logDir: LOG_DIR });
      if (recordSample) {
        ceilings.producer = await headerProducer({ brokers: BROKERS, name: 'header-producer', topic: TOPICS.perf, records: P.producer.records, throughput: -1, samples: recordSample, tmpDir: TMP_DIR, logDir: LOG_DIR });
        ceilings.producerAt1000 = await headerProducer({
          brokers: BROKERS,
          name: 'header-producer-1000',
          topic: TOPICS.perf,
          records: 1000 * P.producer.latencySeconds,
          throughput: 1000,
          samples: recordSample,
          tmpDir: TMP_DIR,
          logDir: LOG_DIR,
        });
        ceilings.producerPerformanceNoHeaders = await producerPerformance({
          brokers: BROKERS,
          name: 'kafka-producer-perf',
          topic: TOPICS.perf,
          records: P.producer.records,
          recordBytes: recordSample.meanValueBytes,
          throughput: -1,
          logDir: LOG_DIR,
        });
      }
      results.ceilings = ceilings;
    }

    // ---------------------------------------------------------------- 5. rebuild from offset zero
    if (want('rebuild')) {
      const seed: SeedFigures = await seedTopic(kafka, TOPICS.rebuild, P.rebuild.events, `${RUN}`);
      const ceilings = (results.ceilings ??= {}) as Record<string, unknown>;
      if (want('ceilings')) ceilings.consumer = (await consumerPerformance({ brokers: BROKERS, topic: TOPICS.rebuild, records: seed.events, group: `bench-consumer-perf-${RUN}`, logDir: LOG_DIR })) as ConsumerCeiling;
      say(`rebuild: ${seed.events} events into ${REBUILD_SCHEMA} (own process)`);
      const c0 = await pgCounters(pg, DB_NAME);
      const m0 = machineCpu();
      const r = await runCommand('rebuild-worker', process.execPath, [...nodeArgs('rebuild'), '-r', 'tsconfig-paths/register', 'dist/bench/rebuild-worker.js'], LOG_DIR, {
        env: {
          TS_NODE_BASEURL: './dist',
          DATABASE_URL,
          KAFKA_BROKERS: BROKERS.join(','),
          REBUILD_TOPIC: TOPICS.rebuild,
          REBUILD_SCHEMA,
          REBUILD_CONCURRENCY: String(P.rebuild.concurrency),
          REBUILD_MAX_RECORDS_PER_TX: String(P.rebuild.maxRecordsPerTx),
        },
        timeoutMs: 1_800_000,
      });
      const m1 = machineCpu();
      const line = r.out.split('\n').find((l) => l.startsWith('RESULT '));
      if (r.code !== 0 || !line) throw new Error(`rebuild worker failed (${r.code}): ${r.out.slice(-3000)}`);
      const rebuilt = JSON.parse(line.slice('RESULT '.length));
      memory.rebuildWorker = { peakMiB: r.peakMiB, cpuSeconds: round((rebuilt.breakdown.cpuUserMs + rebuilt.breakdown.cpuSystemMs) / 1000, 1) };
      results.rebuild = {
        seed,
        ...rebuilt,
        postgres: pgDelta(c0, await pgCounters(pg, DB_NAME), rebuilt.events),
        machineBusyCores: round((m1.busy - m0.busy) / ((m1.total - m0.total) / cpus().length), 2),
        loadAverage: load1(),
      };
      say(`  rebuild: ${fmtInt(rebuilt.eventsPerSecond)} events/s (${fmtInt(rebuilt.events)} events in ${rebuilt.durationMs} ms)`);
      if (rebuilt.scoped) {
        const sc = rebuilt.scoped;
        say(`  scoped rebuild of ${sc.tableId} on ${sc.gamingDay}: ${fmtInt(sc.events)} events applied of ${fmtInt(sc.records)} records in ${sc.durationMs} ms (full: ${rebuilt.durationMs} ms); rows equal: ${sc.equal}`);
      }
      if (want('ceilings')) {
        const tables = (await pg.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`, [REBUILD_SCHEMA])).rows.map(
          (x: { table_name: string }) => x.table_name,
        );
        const e = await exportRows(pg, DATABASE_URL, { label: 'rebuild', sources: tables.map((table: string) => ({ schema: REBUILD_SCHEMA, table, rows: 'all' as const })), tmpDir: TMP_DIR, logDir: LOG_DIR });
        // the rebuild may load first and index after: the ceiling is the faster of both ways
        ceilings.copyRebuild = { ...(await loadCeiling(pg, DATABASE_URL, e, { strategies: ['indexed', 'load-then-index'], logDir: LOG_DIR })), events: rebuilt.events };
        dropExport(e);
      }
      await pg.query(`DROP SCHEMA IF EXISTS "${REBUILD_SCHEMA}" CASCADE`);
    }
    const now = await postmasterStart();
    if (now !== pgStartedAt) {
      warnings.push(`PostgreSQL was restarted during the run (started ${pgStartedAt}, now ${now}): not by the bench; figures may be disturbed`);
    }
  } finally {
    clearInterval(memTimer);
    for (const [s, key] of [
      [projector, 'projector'],
      [api, 'api'],
      [relay, 'relay'],
    ] as const) {
      await stopAndRecord(s, key).catch(() => undefined);
    }
    if (!KEEP_TOPICS) await admin.deleteTopics(Object.values(TOPICS)).catch((e) => say(`could not delete the bench topics: ${String(e)}`));
    await admin.disconnect().catch(() => undefined);
    await pg.end().catch(() => undefined);
    rmSync(TMP_DIR, { recursive: true, force: true });
  }

  const self = memoryOf('self');
  memory.bench = { peakMiB: self?.peakMiB ?? NaN, cpuSeconds: cpuSecondsOf('self') };
  if (kafkaPid !== null) {
    const k = memoryOf(kafkaPid);
    memory.kafkaBroker = { peakMiB: k?.peakMiB ?? NaN, cpuSeconds: null, note: `JVM pid ${kafkaPid}, shared broker not started by the bench: peak over its lifetime; RSS now ${k?.rssMiB} MiB` };
  }
  const c = results.ceilings as Record<string, { peakMiB?: number }> | undefined;
  if (c?.producer?.peakMiB) memory.kafkaProducerCeiling = { peakMiB: c.producer.peakMiB, cpuSeconds: null };
  if (c?.consumer?.peakMiB) memory.kafkaConsumerPerformance = { peakMiB: c.consumer.peakMiB, cpuSeconds: null };
  results.memoryMiB = memory;
  if (PROFILE) {
    const profiles: Record<string, unknown> = {};
    for (const name of ['api', 'api-live', 'relay', 'projector', 'rebuild']) {
      const s = summarizeDir(join(PROFILE_DIR, name));
      if (s.length) profiles[name] = s;
    }
    results.profiles = profiles;
  }
  const seconds = round((nowMs() - t0) / 1000, 1)!;
  results.runSeconds = seconds;
  if (load1() > cpus().length || (results.environment as { loadAverageAtStart: number }).loadAverageAtStart > cpus().length) {
    warnings.push(
      `the machine was busy with other work (1-minute load ${(results.environment as { loadAverageAtStart: number }).loadAverageAtStart} at start, ${load1()} at the end, on ${cpus().length} cores): figures are lower than on a quiet machine`,
    );
  }
  if (retries.count > 0) warnings.push(`${retries.count} request(s) answered 5xx or lost their connection and were sent again (last: ${retries.last})`);
  results.retriedRequests = retries.count;
  results.warnings = warnings;
  const targets = computeTargets(targetInputs(results, QUICK));
  results.targets = targets;
  const rows = detailRows(results);
  results.table = rows;

  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = JSON.stringify(results, null, 2);
  writeFileSync(join(RESULTS_DIR, 'latest.json'), json);
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  writeFileSync(join(RESULTS_DIR, `${stamp}${QUICK ? '-quick' : ''}.json`), json);

  const title = `Ledger bench ${RUN} (${QUICK ? 'quick' : 'full'}), ${seconds} s, ${cpus().length} cores, load ${(results.environment as { loadAverageAtStart: number }).loadAverageAtStart} at start`;
  process.stdout.write('\n' + renderTargets(`Targets — ${title}`, targets));
  process.stdout.write('\n' + renderTable('Figures', rows));
  const lagResult = results.lag as LagFigures | undefined;
  if (lagResult) {
    process.stdout.write(`lag stages (one wall clock; boundaries made monotone, ${lagResult.stageClockInversions} raised; sources: ${lagResult.stageSources.join('; ')}):\n`);
    for (const [k, v] of Object.entries(lagResult.stageMeaning)) process.stdout.write(`  ${k}: ${v}\n`);
  }
  process.stdout.write(
    `peak RSS (VmHWM), MiB: ${Object.entries(memory)
      .map(([k, v]) => `${k} ${v.peakMiB}`)
      .join(', ')}\n`,
  );
  for (const w of warnings) process.stdout.write(`WARNING: ${w}\n`);
  process.stdout.write(`full results: bench/results/latest.json, bench/results/${stamp}${QUICK ? '-quick' : ''}.json\n`);
}

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
process.on('SIGTERM', () => {
  killAll();
  process.exit(143);
});
process.on('exit', killAll);

main().then(
  () => process.exit(0),
  (e: unknown) => {
    say(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    killAll();
    process.exit(1);
  },
);
