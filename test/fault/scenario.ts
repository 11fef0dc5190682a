/**
 * The fault-injection run (docs/guarantees.md §13), shared by test/fault/fault-injection.int.spec.ts (the
 * bounded form `npm test` runs) and scripts/fault-run.ts (longer soaks):
 *
 * 1. a fresh database (`ledger_fault`), a private Kafka broker (scripts/stack.sh, own STACK_DIR and
 *    ports), the run's own topic, read-model schema and consumer group;
 * 2. the API, the relay and the projector as child processes from `dist/`;
 * 3. seeded simulated shoes dealt concurrently through the HTTP API (test/fault/driver.ts) while a
 *    seeded fault schedule, paced by the load's progress, SIGKILLs the API, the relay and the
 *    projector (each started again after a short random delay), stops and restarts Kafka once and
 *    PostgreSQL once (FAULT_SKIP_PG_RESTART=1 leaves PostgreSQL alone);
 * 4. once everything has drained (outbox empty, projector at the topic's end), the checks of
 *    test/fault/checks.ts; every service and the broker are stopped whatever happens.
 *
 * Environment (all optional): FAULT_SEED (hex; printed), FAULT_KILLS [21], FAULT_SHOES [4],
 * FAULT_ROUNDS (rounds per shoe) [24], FAULT_SKIP_PG_RESTART=1, FAULT_SKIP_KAFKA_RESTART=1,
 * FAULT_DB_NAME [ledger_fault], FAULT_KAFKA_PORT [19192], FAULT_KAFKA_CONTROLLER_PORT [19193],
 * FAULT_KEEP_RUN_DIR=1 (keep `.stack/fault/<run>/` with the logs after a passing run),
 * FAULT_LOAD_TIMEOUT_S (default: max(600, an estimate from the number of actions and faults)).
 * One fault run at a time per database name: a second one refuses to start (lock file in the OS
 * temp directory).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { databaseUrlForRole, ensureTopics } from '@ledger/infra';
import { createProjectionDataSource } from '@ledger/projections';
import { generateShoeScript, SeededRandom, type ShoeScript, type SimTable } from '@ledger/simulator';
import { CheckReport, verifyAfterDrain } from './checks';
import {
  assertBuilt,
  freePort,
  PostgresControl,
  PrivateKafka,
  REPO_ROOT,
  runLogged,
  ServiceName,
  ServiceProcess,
  SERVICES,
  sleep,
  startWatchdog,
  waitFor,
  type FaultLog,
  type UnexpectedExit,
} from './cluster';
import { ShoeDriver, type DriverStats, type UnexpectedResponse } from './driver';

/** What a run does; {@link faultOptionsFromEnv} reads it from the environment. */
export interface FaultOptions {
  readonly seed: string;
  /** SIGKILLs in all, spread over the API, the relay and the projector. */
  readonly kills: number;
  readonly shoes: number;
  /** Rounds per shoe (a shoe then closes; a full 8-deck shoe is about 80). */
  readonly rounds: number;
  readonly pgRestart: boolean;
  readonly kafkaRestart: boolean;
  readonly dbName: string;
  readonly kafkaPort: number;
  readonly kafkaControllerPort: number;
  readonly keepRunDir: boolean;
  /** The load (dealing + faults) must end within this, or the run stops and fails. @default max(600 s, an estimate from the size) */
  readonly loadTimeoutS: number | null;
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer ${min}..${max}, got ${JSON.stringify(raw)}`);
  return n;
}

export function faultOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FaultOptions {
  const dbName = env.FAULT_DB_NAME || 'ledger_fault';
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName) || dbName === 'ledger' || dbName === 'ledger_test') throw new Error('FAULT_DB_NAME must be a plain lower-case name other than ledger and ledger_test');
  return {
    seed: env.FAULT_SEED || SeededRandom.newSeed(),
    kills: intEnv(env, 'FAULT_KILLS', 21, 0, 10_000),
    shoes: intEnv(env, 'FAULT_SHOES', 4, 1, 200),
    rounds: intEnv(env, 'FAULT_ROUNDS', 24, 1, 200),
    pgRestart: env.FAULT_SKIP_PG_RESTART !== '1',
    kafkaRestart: env.FAULT_SKIP_KAFKA_RESTART !== '1',
    dbName,
    kafkaPort: intEnv(env, 'FAULT_KAFKA_PORT', 19192, 1024, 65535),
    kafkaControllerPort: intEnv(env, 'FAULT_KAFKA_CONTROLLER_PORT', 19193, 1024, 65535),
    keepRunDir: env.FAULT_KEEP_RUN_DIR === '1',
    loadTimeoutS: env.FAULT_LOAD_TIMEOUT_S ? intEnv(env, 'FAULT_LOAD_TIMEOUT_S', 600, 10, 7 * 24 * 3600) : null,
  };
}

/** One step of the fault schedule; `at` is the fraction of the load's actions answered before it fires. */
export type Fault = { readonly at: number; readonly jitterMs: number } & (
  | { readonly kind: 'kill'; readonly target: ServiceName; readonly restartDelayMs: number }
  | { readonly kind: 'kafka-restart'; readonly downMs: number }
  | { readonly kind: 'pg-restart'; readonly downMs: number }
);

/**
 * The seeded schedule: `kills` SIGKILLs (targets balanced over the three services, in a shuffled
 * order) at random points between 2 % and 90 % of the load, each followed by a restart after
 * 0.2–2 s; Kafka down for 1–3 s at 25–40 % and PostgreSQL down for 0.5–2 s at 55–70 %, each
 * followed by a stretch of the load (12 %, 6 %) with no kill, so dealing goes on during the outage.
 * Each fault strikes 20–400 ms after the load passes its point (requests are in flight by then).
 */
export function planFaults(o: Pick<FaultOptions, 'seed' | 'kills' | 'pgRestart' | 'kafkaRestart'>): Fault[] {
  const rng = new SeededRandom(`${o.seed}/faults`);
  const u = (lo: number, hi: number) => lo + (rng.int(1_000_000) / 1_000_000) * (hi - lo);
  const targets = rng.shuffle(Array.from({ length: o.kills }, (_, i) => SERVICES[i % SERVICES.length]));
  const jitter = () => Math.round(u(20, 400));
  const plan: Fault[] = [];
  // after an outage's point, a stretch of the load with no other fault: the load goes on during the
  // outage up to the next fault's point (and waits there until the outage is over)
  const windows: [number, number][] = [];
  if (o.kafkaRestart) {
    const at = u(0.25, 0.4);
    plan.push({ at, jitterMs: jitter(), kind: 'kafka-restart', downMs: Math.round(u(1000, 3000)) });
    windows.push([at, at + 0.12]);
  }
  if (o.pgRestart) {
    const at = u(0.55, 0.7);
    plan.push({ at, jitterMs: jitter(), kind: 'pg-restart', downMs: Math.round(u(500, 2000)) });
    windows.push([at, at + 0.06]);
  }
  // kill points uniform over [0.02, 0.9] without the windows
  const free = 0.88 - windows.reduce((n, [a, b]) => n + (b - a), 0);
  const points = Array.from({ length: o.kills }, () => {
    let x = 0.02 + u(0, free);
    for (const [a, b] of windows) if (x > a) x += b - a;
    return x;
  }).sort((a, b) => a - b);
  targets.forEach((target, i) => plan.push({ at: points[i], jitterMs: jitter(), kind: 'kill', target, restartDelayMs: Math.round(u(200, 2000)) }));
  return plan.sort((a, b) => a.at - b.at);
}

/** What a run did and found. */
export interface FaultReport {
  readonly options: FaultOptions;
  readonly runTag: string;
  readonly runDir: string;
  readonly durationMs: number;
  readonly phasesMs: Record<string, number>;
  readonly kills: Record<ServiceName, number>;
  readonly restarts: Record<ServiceName, number>;
  readonly unexpectedExits: UnexpectedExit[];
  readonly kafkaRestarts: number;
  readonly pgRestarts: number;
  /** Faults that fired after the load had ended (none when the load outlasted the schedule). */
  readonly faultsAfterLoad: number;
  /** API kills that struck while the driver had requests in flight. */
  readonly apiKillsInFlight: number;
  readonly shoes: number;
  readonly actions: number;
  readonly driver: DriverStats;
  readonly unexpectedResponses: UnexpectedResponse[];
  readonly checks: CheckReport | null;
  /** Set when the run could not get to its checks (setup failed, the load did not drain…). */
  readonly error: string | null;
}

/** Runs the whole scenario (see the file comment). Never throws for a failed check: see {@link failures}. */
export async function runFaultScenario(o: FaultOptions, log: FaultLog): Promise<FaultReport> {
  assertBuilt();
  const stale = newestSourceAfter(statSync(join(REPO_ROOT, 'dist/apps/ledger/src/main.js')).mtimeMs);
  if (stale) log(`WARNING: dist/ is older than ${stale}; the services run the last build (npm run -s build)`);
  const releaseLock = takeRunLock(o.dbName);
  try {
    return await runLocked(o, log);
  } finally {
    releaseLock();
  }
}

/**
 * One run per database name on this machine (a second would drop the first one's database):
 * an exclusive lock file holding the pid; a lock whose process is gone is taken over.
 * @throws when another live fault run holds it
 */
function takeRunLock(dbName: string): () => void {
  const file = join(tmpdir(), `ledger-fault-${dbName}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch {
      const pid = Number(readFileSync(file, 'utf8'));
      let alive = false;
      try {
        alive = pid > 0 && pid !== process.pid && process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (alive) throw new Error(`another fault run (pid ${pid}) uses database ${dbName} (lock ${file}); wait for it or set FAULT_DB_NAME`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

/** A TypeScript file of apps/ or libs/ modified after `ms`, if any (dist/ is then stale). */
function newestSourceAfter(ms: number): string | null {
  const walk = (dir: string): string | null => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules') continue;
        const found = walk(p);
        if (found) return found;
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && statSync(p).mtimeMs > ms) return p.slice(REPO_ROOT.length + 1);
    }
    return null;
  };
  return walk(join(REPO_ROOT, 'apps')) ?? walk(join(REPO_ROOT, 'libs'));
}

async function runLocked(o: FaultOptions, log: FaultLog): Promise<FaultReport> {
  const t0 = Date.now();
  const phasesMs: Record<string, number> = {};
  let phaseStart = t0;
  const phase = (name: string) => {
    phasesMs[name] = Date.now() - phaseStart;
    phaseStart = Date.now();
  };
  const runTag = `${createHash('sha256').update(o.seed).digest('hex').slice(0, 6)}${Date.now().toString(36).slice(-5)}`;
  const runDir = join(REPO_ROOT, '.stack', 'fault', runTag);
  const logDir = join(runDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const infraLog = join(logDir, 'infra.log');
  const pgMarker = join(runDir, 'pg-stopped');
  log(`seed ${o.seed}  run ${runTag}  logs ${runDir}`);
  const envLine = `FAULT_SEED=${o.seed} FAULT_KILLS=${o.kills} FAULT_SHOES=${o.shoes} FAULT_ROUNDS=${o.rounds}${o.pgRestart ? '' : ' FAULT_SKIP_PG_RESTART=1'}${o.kafkaRestart ? '' : ' FAULT_SKIP_KAFKA_RESTART=1'}`;
  log(`reproduce: ${envLine} npx tsx scripts/fault-run.ts   (or the spec: ${envLine} npx jest --selectProjects int -- test/fault)`);

  const topic = `fault.ledger.events.${runTag}`;
  const schema = `fault_read_${runTag}`;
  const group = `fault-projector-${runTag}`;
  const analyticsTopics = ['round-outcomes', 'settlements', 'roads'].map((k) => `fault.analytics.${k}.${runTag}`);
  // as the owner: setup and the checks; the services log in as their runtime roles (docs/architecture.md §10)
  const databaseUrl = `postgres://ledger_owner:ledger_owner@127.0.0.1:5432/${o.dbName}`;
  const jwtSecret = randomBytes(24).toString('hex');
  const pg = new PostgresControl(pgMarker, infraLog);
  const kafkaPort = await freePort(o.kafkaPort);
  const controllerPort = await freePort(o.kafkaControllerPort === kafkaPort ? undefined : o.kafkaControllerPort);
  const broker = new PrivateKafka(runDir, kafkaPort, controllerPort, infraLog);
  const apiPort = await freePort();
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const common = { DATABASE_URL: databaseUrlForRole(databaseUrl, 'ledger_app'), MIGRATIONS_DATABASE_URL: databaseUrl, KAFKA_BROKERS: broker.brokers.join(','), LOG_LEVEL: 'info', RELAY_CRASH_POINT: '', ANALYTICS_PUBLISHER_CRASH_POINT: '', PROJECTOR_FAULT_DELAY_IN_TX_MS: '' };
  const services: Record<ServiceName, ServiceProcess> = {
    api: new ServiceProcess(
      'api',
      { ...common, PORT: String(apiPort), HOST: '127.0.0.1', LEDGER_EVENTS_TOPIC: topic, READ_SCHEMA: schema, PROJECTIONS_SCHEMA: schema, JWT_SECRET: jwtSecret, RUN_MIGRATIONS: 'true', TABLES_FILE: join(REPO_ROOT, 'config/tables.json') },
      join(logDir, 'api.log'),
      log,
    ),
    relay: new ServiceProcess('relay', { ...common, RELAY_POLL_INTERVAL_MS: '100' }, join(logDir, 'relay.log'), log),
    projector: new ServiceProcess(
      'projector',
      {
        ...common,
        LEDGER_EVENTS_TOPIC: topic,
        PROJECTOR_GROUP: group,
        PROJECTIONS_SCHEMA: schema,
        RUN_MIGRATIONS: 'true',
        ANALYTICS_ROUND_OUTCOMES_TOPIC: analyticsTopics[0],
        ANALYTICS_SETTLEMENTS_TOPIC: analyticsTopics[1],
        ANALYTICS_ROADS_TOPIC: analyticsTopics[2],
      },
      join(logDir, 'projector.log'),
      log,
    ),
  };
  const killAll = () => SERVICES.forEach((s) => services[s].killNow());
  process.once('exit', killAll);

  const apiHealthy = async () => {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  };
  let kafka: KafkaClient | null = null;
  let ds: DataSource | null = null;
  let watchdog: ReturnType<typeof startWatchdog> | null = null;
  let driver: ShoeDriver | null = null;
  let scripts: ShoeScript[] = [];
  let checks: CheckReport | null = null;
  let error: string | null = null;
  let kafkaRestarts = 0;
  let faultsAfterLoad = 0;
  let apiKillsInFlight = 0;
  try {
    // ---------------------------------------------------------------------------------- setup
    await pg.start();
    await runLogged('bash', ['scripts/stack.sh', 'fresh-test-db'], { TEST_DB_NAME: o.dbName }, infraLog, 60_000);
    log(`database ${o.dbName} recreated; starting a private Kafka broker on 127.0.0.1:${kafkaPort}`);
    watchdog = startWatchdog(broker, pg, pgMarker, infraLog);
    await broker.up();
    kafka = createKafka({ clientId: `fault-run-${runTag}`, brokers: broker.brokers, logLevel: 'nothing', retries: 10 });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const configs = { 'retention.ms': '-1', 'cleanup.policy': 'delete' };
      // a broker just started may answer metadata for a new topic before it hosts its partitions
      for (let attempt = 1; ; attempt++) {
        try {
          await ensureTopics(admin, [topic, ...analyticsTopics].map((name) => ({ name, partitions: 6, configs })));
          break;
        } catch (e) {
          if (attempt >= 20) throw e;
          await sleep(500);
        }
      }
    } finally {
      await admin.disconnect();
    }
    services.api.start();
    if (!(await waitFor(apiHealthy, 90_000))) throw new Error(`the API did not answer /health within 90 s (log ${logDir}/api.log)`);
    services.relay.start();
    services.projector.start();
    phase('setup');

    // ---------------------------------------------------------------------------- load + faults
    const tables: SimTable[] = JSON.parse(readFileSync(join(REPO_ROOT, 'config/tables.json'), 'utf8')).tables;
    scripts = Array.from({ length: o.shoes }, (_, i) => {
      const table = tables[i % tables.length];
      return generateShoeScript(table, `${o.seed}/shoe/${i + 1}`, {
        shoeId: `fault-${runTag}-${i + 1}`,
        dealerId: `dealer-${(i % 5) + 1}`,
        accounts: 8,
        betChance: 0.6,
        exposedCardChance: 0.02,
        droppedCardChance: 0.02,
        unneededCardChance: 0.03,
        managementVoidChance: 0.05,
        correctionChance: 0.06,
        maxRounds: o.rounds,
      });
    });
    const plan = planFaults(o);
    // faults started so far; the load waits at a fault's point until it has started, so every
    // fault hits the load where the schedule says, however fast the dealing goes
    let started = 0;
    let timedOut = false;
    const gate = async () => {
      const until = Date.now() + 300_000;
      while (!timedOut && started < plan.length && plan[started].at <= d.progress && Date.now() < until) await sleep(20);
    };
    const d = new ShoeDriver({ baseUrl, jwtSecret, scripts, keyPrefix: `fault-${runTag}`, log, gate });
    driver = d;
    const loadTimeoutMs = 1000 * (o.loadTimeoutS ?? Math.max(600, Math.round(60 + 0.25 * d.totalActions + 12 * plan.length)));
    const loadTimer = setTimeout(() => {
      timedOut = true;
      d.abort();
    }, loadTimeoutMs);
    log(`dealing ${scripts.length} shoes (${d.totalActions} actions) with ${plan.length} faults: ${o.kills} kills${o.kafkaRestart ? ', a Kafka restart' : ''}${o.pgRestart ? ', a PostgreSQL restart' : ''}`);
    const gapRng = new SeededRandom(`${o.seed}/gaps`);
    const settled = () => waitFor(() => SERVICES.every((s) => services[s].upForMs() >= 5000), 60_000, 100);
    const faults = (async () => {
      for (const [i, f] of plan.entries()) {
        // paced by the load (bounded by the load's deadline)
        await waitFor(() => d.done || timedOut || d.progress >= f.at, loadTimeoutMs, 50);
        if (timedOut) break;
        if (d.done) faultsAfterLoad++;
        // an infrastructure outage should hit running services, not ones still starting from the last kill
        if (f.kind !== 'kill') await settled();
        started = i + 1;
        await sleep(f.jitterMs);
        const tag = `fault ${i + 1}/${plan.length} at ${(d.progress * 100).toFixed(0)} %:`;
        if (f.kind === 'kill') {
          const svc = services[f.target];
          const inFlight = d.inFlight;
          await svc.kill();
          if (f.target === 'api' && inFlight > 0) apiKillsInFlight++;
          log(`${tag} SIGKILL ${f.target}${f.target === 'api' ? ` (${inFlight} request(s) in flight)` : ''}; restart in ${f.restartDelayMs} ms`);
          await sleep(f.restartDelayMs);
          svc.start();
          if (f.target === 'api' && (await waitFor(apiHealthy, 60_000, 100))) svc.markHealthy();
        } else if (f.kind === 'kafka-restart') {
          const s = Date.now();
          await broker.down();
          kafkaRestarts++;
          log(`${tag} Kafka stopped; starting it again in ${f.downMs} ms`);
          await sleep(f.downMs);
          await broker.up();
          log(`Kafka back after ${((Date.now() - s) / 1000).toFixed(1)} s`);
        } else {
          const s = Date.now();
          log(`${tag} PostgreSQL stop -m fast; start again in ${f.downMs} ms`);
          await pg.restart(f.downMs);
          log(`PostgreSQL back after ${((Date.now() - s) / 1000).toFixed(1)} s`);
        }
        await sleep(200 + gapRng.int(800));
      }
    })();
    try {
      await Promise.all([
        d.run(),
        faults.catch((e) => {
          d.abort();
          throw e;
        }),
      ]);
    } finally {
      clearTimeout(loadTimer);
    }
    if (timedOut) throw new Error(`the load did not end within ${loadTimeoutMs / 1000} s (FAULT_LOAD_TIMEOUT_S)`);
    phase('load');
    log(`load done: ${d.stats.shoesFinished}/${scripts.length} shoes, ${d.stats.actionsDone}/${d.totalActions} actions, ${d.accepted.size} events accepted, ${d.stats.retries} retries`);

    // ------------------------------------------------------------------------------------ drain
    for (const s of SERVICES) services[s].start();
    if (!(await waitFor(apiHealthy, 90_000))) throw new Error('the API did not come back for the drain');
    await services.api.stop();
    ds = createProjectionDataSource(databaseUrl, { applicationName: `fault-check-${runTag}`, poolSize: 4 });
    await ds.initialize();
    const dsq = ds;
    const unpublished = async () => Number((await dsq.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`))[0].n);
    if (!(await waitFor(async () => (await unpublished()) === 0, 180_000, 250))) throw new Error(`the relay did not drain the outbox within 180 s (${await unpublished()} rows left)`);
    const k = kafka;
    const behind = async () => {
      const a = k.admin();
      await a.connect();
      try {
        const hw = await a.fetchTopicOffsets(topic);
        const cps: { partition: number; next_offset: string }[] = await dsq.query(
          `SELECT partition, next_offset::text AS next_offset FROM "${schema}".checkpoints WHERE consumer_group = $1 AND topic = $2`,
          [group, topic],
        );
        const cp = new Map(cps.map((c) => [c.partition, BigInt(c.next_offset)]));
        return hw.reduce((n, o) => n + Number(BigInt(o.high) - (cp.get(o.partition) ?? 0n)), 0);
      } finally {
        await a.disconnect();
      }
    };
    if (!(await waitFor(async () => (await behind()) <= 0, 240_000, 500))) throw new Error(`the projector did not reach the topic's end within 240 s (${await behind()} records behind)`);
    await services.relay.stop();
    await services.projector.stop();
    phase('drain');

    // ----------------------------------------------------------------------------------- checks
    checks = await verifyAfterDrain({ ds, kafka, topic, schema, group, scripts, driver: d });
    phase('checks');
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    log(`run failed: ${error}`);
    driver?.abort();
  } finally {
    killAll();
    await Promise.all(SERVICES.map((s) => services[s].stop(5000)));
    await ds?.destroy().catch(() => undefined);
    await pg.start().catch((e) => log(`PostgreSQL did not come back: ${e}`));
    await broker.down().catch((e) => log(`the private broker did not stop cleanly: ${e}`));
    if (watchdog?.pid) {
      try {
        process.kill(watchdog.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    process.removeListener('exit', killAll);
  }

  const report: FaultReport = {
    options: o,
    runTag,
    runDir,
    durationMs: Date.now() - t0,
    phasesMs,
    kills: Object.fromEntries(SERVICES.map((s) => [s, services[s].kills])) as Record<ServiceName, number>,
    restarts: Object.fromEntries(SERVICES.map((s) => [s, services[s].restarts])) as Record<ServiceName, number>,
    unexpectedExits: SERVICES.flatMap((s) => services[s].unexpectedExits),
    kafkaRestarts,
    pgRestarts: pg.stops,
    faultsAfterLoad,
    apiKillsInFlight,
    shoes: scripts.length,
    actions: driver?.totalActions ?? 0,
    driver: driver?.stats ?? { requests: 0, retries: 0, connectionErrors: 0, timeouts: 0, serverErrors: 0, actionsDone: 0, shoesFinished: 0 },
    unexpectedResponses: driver?.unexpected ?? [],
    checks,
    error,
  };
  if (failures(report).length === 0 && !o.keepRunDir && existsSync(runDir)) rmSync(runDir, { recursive: true, force: true });
  else if (existsSync(join(runDir, 'stack', 'kafka', 'data'))) rmSync(join(runDir, 'stack', 'kafka', 'data'), { recursive: true, force: true });
  return report;
}

/** Why the run failed, one line per reason; empty when it passed. */
export function failures(r: FaultReport): string[] {
  const out: string[] = [];
  if (r.error) out.push(`run error: ${r.error}`);
  const totalKills = SERVICES.reduce((n, s) => n + r.kills[s], 0);
  if (totalKills < r.options.kills) out.push(`only ${totalKills} of ${r.options.kills} kills happened`);
  if (r.options.kafkaRestart && r.kafkaRestarts < 1) out.push('Kafka was not restarted');
  if (r.options.pgRestart && r.pgRestarts < 1) out.push('PostgreSQL was not restarted');
  if (r.unexpectedResponses.length) out.push(`${r.unexpectedResponses.length} unexpected response(s)`);
  if (r.driver.shoesFinished !== r.shoes) out.push(`${r.shoes - r.driver.shoesFinished} shoe(s) not finished`);
  const c = r.checks;
  if (!c) return out;
  if (c.lost) out.push(`${c.lost} accepted event(s) lost`);
  if (c.duplicatedInPg) out.push(`${c.duplicatedInPg} event(s) duplicated in PostgreSQL`);
  if (c.missingOnKafka) out.push(`${c.missingOnKafka} stored event(s) missing on Kafka`);
  if (!c.kafkaDuplicatesIdentical) out.push('Kafka duplicates with different content');
  if (c.settlementsAppliedTwice) out.push(`${c.settlementsAppliedTwice} settlement(s) applied twice`);
  if (c.stakesLost) out.push(`${c.stakesLost} stake(s) lost`);
  if (c.chainProblems) out.push(`${c.chainProblems} hash-chain problem(s)`);
  if (c.mismatchCount) out.push(`${c.mismatchCount} mismatch(es)`);
  return out;
}

/** The run's summary, as printed by the spec and the script. */
export function formatReport(r: FaultReport): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const c = r.checks;
  const totalKills = SERVICES.reduce((n, x) => n + r.kills[x], 0);
  const lines = [
    `fault run ${r.runTag}  seed ${r.options.seed}`,
    `  duration ${s(r.durationMs)} (${Object.entries(r.phasesMs).map(([k, v]) => `${k} ${s(v)}`).join(', ')})`,
    `  kills ${totalKills}: ${SERVICES.map((x) => `${x} ${r.kills[x]}`).join(', ')} (API kills with requests in flight: ${r.apiKillsInFlight}); restarts: ${SERVICES.map((x) => `${x} ${r.restarts[x]}`).join(', ')}`,
    `  unexpected exits (restarted by the supervisor): ${r.unexpectedExits.length}${r.unexpectedExits.length ? ` (${r.unexpectedExits.map((e) => `${e.service} code ${e.code}`).join(', ')})` : ''}`,
    `  Kafka restarts ${r.kafkaRestarts}, PostgreSQL restarts ${r.pgRestarts}${r.options.pgRestart ? '' : ' (skipped: FAULT_SKIP_PG_RESTART=1)'}, faults after the load ended ${r.faultsAfterLoad}`,
    `  load: ${r.driver.shoesFinished}/${r.shoes} shoes, ${r.driver.actionsDone}/${r.actions} actions, ${r.driver.requests} requests, ${r.driver.retries} retries (${r.driver.connectionErrors} connection errors, ${r.driver.timeouts} timeouts, ${r.driver.serverErrors} 5xx)`,
    `  unexpected responses ${r.unexpectedResponses.length}${r.unexpectedResponses.length ? `: ${r.unexpectedResponses.map((u) => `${u.shoeId}#${u.actionIndex} ${u.action} ${u.status} ${u.code}`).join('; ')}` : ''}`,
  ];
  if (c) {
    lines.push(
      `  events accepted ${c.eventsAccepted}, in PostgreSQL ${c.eventsInPg}, records on Kafka ${c.recordsOnKafka}`,
      `  duplicates on Kafka ${c.kafkaDuplicates} (all same id and same content: ${c.kafkaDuplicatesIdentical ? 'yes' : 'NO'}), stored events missing on Kafka ${c.missingOnKafka}`,
      `  lost ${c.lost}, duplicated in PostgreSQL ${c.duplicatedInPg}, settlements applied twice ${c.settlementsAppliedTwice}, stakes lost ${c.stakesLost}`,
      `  bets placed ${c.betsPlaced}: settled ${c.betsSettled}, refunded ${c.betsRefunded}, resettled ${c.betsResettled}; settlement revisions in the read model ${c.settlementRevisionsInReadModel}`,
      `  hash chains: ${c.chainStreams} streams, ${c.chainEvents} events, ${c.chainProblems} problems; projections: ${c.projectionsChecksummed} checksums compared with a rebuild of ${c.rebuildEvents} events`,
      `  mismatches ${c.mismatchCount}${c.mismatches.length ? ':\n    ' + c.mismatches.join('\n    ') : ''}`,
    );
  } else lines.push('  checks: not reached');
  if (r.error) lines.push(`  error: ${r.error}`);
  const f = failures(r);
  lines.push(f.length ? `  FAILED: ${f.join('; ')} (logs kept in ${r.runDir})` : '  passed');
  return lines.join('\n');
}
