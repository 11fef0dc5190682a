/**
 * `npm run bench` (scripts/bench.sh → `npx tsx bench/run.ts`): the ledger's performance figures
 * in ONE run, each against the machine's own ceiling measured in the same run. Not a test: it
 * prints figures and marks the targets met, not met or not measured.
 *
 *   npx tsx bench/run.ts [--quick] [--profile] [--keep-topics] [--only ingest,append,relay,lag,round,audit,significant,rebuild,ceilings]
 *
 * Expects (scripts/bench.sh does it): the stack up (`scripts/stack.sh up`), `dist/` built
 * (`npm run -s build`), and an empty bench database (`TEST_DB_NAME=ledger_bench bash scripts/stack.sh
 * fresh-test-db`). Starts the API, relay and projector from dist/ as its own child processes
 * (peak RSS from /proc/<pid>/status VmHWM), on port BENCH_PORT [3901], topics `bench.<run>.*`,
 * read schema `bench_read`, scratch schema `bench_rebuild`; stops them all by pid when done.
 *
 * Environment: BENCH_QUICK=1 (= --quick), BENCH_PROFILE=1 (= --profile: node --cpu-prof on every
 * Node process, summaries in the JSON), BENCH_DATABASE_URL
 * [postgres://ledger:ledger@127.0.0.1:5432/ledger_bench], BENCH_PORT [3901], KAFKA_BROKERS
 * [127.0.0.1:9092] (bench/lib/config.ts): every phase and every ceiling, the Java producer and
 * Kafka's perf tools included, uses these; KAFKA_LIBS (the Kafka jars of the Java ceilings).
 *
 * Failures: each phase and each ceiling is contained (bench/lib/contain.ts): one that fails is
 * recorded in `failures` (name → error) and the others still run; latest.json is written in any
 * case, and the targets a failure left without a figure say 'not measured' and why. Exit code 0
 * when nothing failed (missed targets included), 1 when a phase or ceiling failed.
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
import { benchConfig } from './lib/config';
import { contained, exitCodeOf } from './lib/contain';
import { sizesFor, startApi, stopAndRecord, topicsOf, type BenchContext } from './lib/context';
import { connect } from './lib/pg';
import { killAll, sampleAll } from './lib/procs';
import { renderTable, renderTargets } from './lib/report';
import { finishResults } from './lib/summary';
import { summarizeDir } from './lib/cpuprofile';
import { cpuSecondsOf, load1, memoryOf, nowMs, round, say } from './lib/util';
import { warmUp } from './phases/ingest';
import { benchTables, retries } from './lib/workload';
import type { LagFigures } from './phases/lag';
import { dropExport, kafkaBroker } from './phases/ceilings';
import { appendPhase, auditPhase, ceilingsPhase, ingestPhase, lagPhase, livePhase, rebuildPhase, relayPhase, roundPhase, significantPhase, stopServices } from './steps';

const PHASES = ['ingest', 'append', 'relay', 'lag', 'round', 'audit', 'significant', 'rebuild', 'ceilings'] as const;
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const onlyArg = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? (argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined);
const ONLY = onlyArg ? new Set(onlyArg.split(',')) : null;
const RUN = `r${Date.now().toString(36)}`;
const RESULTS_DIR = resolve('bench/results');

const ctx: BenchContext = {
  run: RUN,
  quick: QUICK,
  profile: argv.includes('--profile') || process.env.BENCH_PROFILE === '1',
  config: benchConfig(process.env),
  sizes: sizesFor(QUICK),
  topics: topicsOf(RUN),
  dirs: { log: join(RESULTS_DIR, 'logs', RUN), tmp: join('/tmp', `ledger-bench-${RUN}`), profile: join(RESULTS_DIR, 'profiles', RUN) },
  readSchema: 'bench_read',
  rebuildSchema: 'bench_rebuild',
  want: (phase: string) => !ONLY || ONLY.has(phase),
  results: {},
  memory: {},
  failures: {},
  exports: {},
  pg: null,
  kafka: null,
  admin: null,
  client: null,
  recordSample: null,
  api: null,
  relay: null,
  projector: null,
};
const warnings: string[] = [];

/** Connects to PostgreSQL and Kafka (the configured addresses), creates the run's topics, records the environment. */
async function setUp(c: BenchContext, startedAt: Date): Promise<void> {
  c.results.environment = {
    run: RUN,
    mode: QUICK ? 'quick' : 'full',
    profile: c.profile,
    startedAt: startedAt.toISOString(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    loadAverageAtStart: load1(),
    node: process.version,
    kafkaBrokers: c.config.brokers,
    kafkaPid: null,
    database: c.config.databaseName,
    port: c.config.port,
    topics: c.topics,
    readSchema: c.readSchema,
    sizes: c.sizes,
  };
  const env = c.results.environment as Record<string, unknown>;
  c.pg = await connect(c.config.databaseUrl);
  env.postgres = (await c.pg.query('SHOW server_version')).rows[0].server_version;
  const settings = await c.pg.query(`SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit','fsync','shared_buffers','wal_level','commit_delay','max_wal_size')`);
  env.postgresSettings = Object.fromEntries(settings.rows.map((r: { name: string; setting: string }) => [r.name, r.setting]));
  env.postgresStartedAt = await postmasterStart(c);
  // the broker serving KAFKA_BROKERS on this machine, for its memory (null when it runs elsewhere)
  env.kafkaPid = (() => {
    try {
      return kafkaBroker(c.config.brokers).pid;
    } catch {
      return null;
    }
  })();
  c.kafka = createKafka({ clientId: `ledger-bench-${RUN}`, brokers: [...c.config.brokers], logLevel: 'nothing' });
  const admin = c.kafka.admin();
  await admin.connect();
  c.admin = admin; // set once connected: the tear-down deletes the run's topics only then
  const topics = Object.values(c.topics).map((name) => ({ name, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }));
  await ensureTopics(admin, topics);
  c.client = new LedgerClient(`http://127.0.0.1:${c.config.port}`, jwtSecret(), { deviceTables: benchTables().map((t) => t.tableId) });
}

async function postmasterStart(c: BenchContext): Promise<string> {
  return String((await c.pg!.query('SELECT pg_postmaster_start_time()::text AS t')).rows[0].t);
}

/** Every phase, in order, each contained: a failure is recorded and the next phase runs. */
async function runPhases(c: BenchContext): Promise<void> {
  const { want, failures } = c;
  if (want('ingest') || want('relay') || want('append')) {
    const up = await contained(failures, 'ingest.api', async () => {
      await startApi(c, c.topics.ingest, 'api');
      await warmUp(c.client!, `${RUN}w`);
      return true;
    });
    if (up && want('ingest')) await ingestPhase(c);
    if (up && want('append')) await contained(failures, 'append', () => appendPhase(c));
    if (up && (want('relay') || want('lag') || want('round') || want('ceilings'))) await contained(failures, 'relay', () => relayPhase(c));
    await contained(failures, 'ingest.stop', () => stopServices(c, false));
  }
  if (want('lag') || want('round') || want('audit') || want('significant')) {
    const live = await contained(failures, 'live', async () => (await livePhase(c), true));
    if (live && want('lag')) await contained(failures, 'lag', () => lagPhase(c));
    if (live && want('round')) await contained(failures, 'round', () => roundPhase(c));
    if (live && want('audit')) await contained(failures, 'audit', () => auditPhase(c));
    if (live && want('significant')) await contained(failures, 'significant', () => significantPhase(c));
  }
  await contained(failures, 'live.stop', () => stopServices(c, true));
  if (want('ceilings')) await contained(failures, 'ceilings', () => ceilingsPhase(c));
  if (want('rebuild')) await contained(failures, 'rebuild', () => rebuildPhase(c));
}

/** Stops whatever still runs, deletes the run's topics (unless --keep-topics), closes the connections, removes the scratch files. */
async function tearDown(c: BenchContext): Promise<void> {
  for (const [s, key] of [
    [c.projector, 'projector'],
    [c.api, 'api'],
    [c.relay, 'relay'],
  ] as const) {
    await stopAndRecord(c, s, key).catch(() => undefined);
  }
  for (const e of Object.values(c.exports)) dropExport(e);
  if (c.admin && !argv.includes('--keep-topics')) await c.admin.deleteTopics(Object.values(c.topics)).catch((e) => say(`could not delete the bench topics: ${String(e)}`));
  await c.admin?.disconnect().catch(() => undefined);
  if (c.pg) {
    const env = c.results.environment as { postgresStartedAt?: string };
    const now = await postmasterStart(c).catch(() => null);
    if (now && env.postgresStartedAt && now !== env.postgresStartedAt) {
      warnings.push(`PostgreSQL was restarted during the run (started ${env.postgresStartedAt}, now ${now}): not by the bench; figures may be disturbed`);
    }
  }
  await c.pg?.end().catch(() => undefined);
  rmSync(c.dirs.tmp, { recursive: true, force: true });
}

/** Peak memory of the bench, the broker and the Java ceilings; CPU profiles; warnings. */
function collectMemoryAndWarnings(c: BenchContext): void {
  const { memory, results } = c;
  const self = memoryOf('self');
  memory.bench = { peakMiB: self?.peakMiB ?? NaN, cpuSeconds: cpuSecondsOf('self') };
  const env = results.environment as { kafkaPid: number | null; loadAverageAtStart: number };
  if (env.kafkaPid !== null) {
    const k = memoryOf(env.kafkaPid);
    memory.kafkaBroker = { peakMiB: k?.peakMiB ?? NaN, cpuSeconds: null, note: `JVM pid ${env.kafkaPid}, shared broker not started by the bench: peak over its lifetime; RSS now ${k?.rssMiB} MiB` };
  }
  const ce = results.ceilings as Record<string, { peakMiB?: number }> | undefined;
  if (ce?.producer?.peakMiB) memory.kafkaProducerCeiling = { peakMiB: ce.producer.peakMiB, cpuSeconds: null };
  if (ce?.consumer?.peakMiB) memory.kafkaConsumerPerformance = { peakMiB: ce.consumer.peakMiB, cpuSeconds: null };
  results.memoryMiB = memory;
  if (c.profile) {
    const profiles: Record<string, unknown> = {};
    for (const name of ['api', 'api-live', 'relay', 'projector', 'rebuild']) {
      const s = summarizeDir(join(c.dirs.profile, name));
      if (s.length) profiles[name] = s;
    }
    results.profiles = profiles;
  }
  if (load1() > cpus().length || env.loadAverageAtStart > cpus().length) {
    warnings.push(`the machine was busy with other work (1-minute load ${env.loadAverageAtStart} at start, ${load1()} at the end, on ${cpus().length} cores): figures are lower than on a quiet machine`);
  }
  if (retries.count > 0) warnings.push(`${retries.count} request(s) answered 5xx or lost their connection and were sent again (last: ${retries.last})`);
  results.retriedRequests = retries.count;
  results.warnings = warnings;
}

/** Writes latest.json and the dated copy, and prints the tables. */
function report(c: BenchContext, startedAt: Date, seconds: number): void {
  const { results } = c;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = JSON.stringify(results, null, 2);
  writeFileSync(join(RESULTS_DIR, 'latest.json'), json);
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  writeFileSync(join(RESULTS_DIR, `${stamp}${QUICK ? '-quick' : ''}.json`), json);
  const load = (results.environment as { loadAverageAtStart: number }).loadAverageAtStart;
  const title = `Ledger bench ${RUN} (${QUICK ? 'quick' : 'full'}), ${seconds} s, ${cpus().length} cores, load ${load} at start`;
  process.stdout.write('\n' + renderTargets(`Targets — ${title}`, results.targets as Parameters<typeof renderTargets>[1]));
  process.stdout.write('\n' + renderTable('Figures', results.table as Parameters<typeof renderTable>[1]));
  const lagResult = results.lag as LagFigures | undefined;
  if (lagResult) {
    process.stdout.write(`lag stages (one wall clock; boundaries made monotone, ${lagResult.stageClockInversions} raised; sources: ${lagResult.stageSources.join('; ')}):\n`);
    for (const [k, v] of Object.entries(lagResult.stageMeaning)) process.stdout.write(`  ${k}: ${v}\n`);
  }
  const peaks = Object.entries(c.memory).map(([k, v]) => `${k} ${v.peakMiB}`);
  process.stdout.write(`peak RSS (VmHWM), MiB: ${peaks.join(', ')}\n`);
  for (const w of warnings) process.stdout.write(`WARNING: ${w}\n`);
  for (const [k, e] of Object.entries(c.failures)) process.stdout.write(`FAILED: ${k}: ${e}\n`);
  process.stdout.write(`full results: bench/results/latest.json, bench/results/${stamp}${QUICK ? '-quick' : ''}.json\n`);
}

/** The whole run; resolves to the exit code (bench/lib/contain.ts `exitCodeOf`). latest.json is written whatever failed. */
async function main(): Promise<number> {
  const startedAt = new Date();
  const t0 = nowMs();
  say(`run ${RUN} (${QUICK ? 'quick' : 'full'}${ctx.profile ? ', profiling' : ''}); brokers ${ctx.config.brokers.join(',')}, database ${ctx.config.databaseName}, port ${ctx.config.port}; logs in ${ctx.dirs.log}`);
  mkdirSync(ctx.dirs.log, { recursive: true });
  mkdirSync(ctx.dirs.tmp, { recursive: true });
  const memTimer = setInterval(sampleAll, 500);
  try {
    if (await contained(ctx.failures, 'setup', async () => (await setUp(ctx, startedAt), true))) await contained(ctx.failures, 'run', () => runPhases(ctx));
  } finally {
    clearInterval(memTimer);
    await contained(ctx.failures, 'teardown', () => tearDown(ctx));
  }
  collectMemoryAndWarnings(ctx);
  const seconds = round((nowMs() - t0) / 1000, 1)!;
  ctx.results.runSeconds = seconds;
  finishResults(ctx.results, { quick: QUICK, failures: ctx.failures, skipped: PHASES.filter((p) => !ctx.want(p)) });
  report(ctx, startedAt, seconds);
  return exitCodeOf(ctx.failures);
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
  (code) => process.exit(code),
  (e: unknown) => {
    say(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    killAll();
    process.exit(1);
  },
);
