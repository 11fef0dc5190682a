/**
 * The fault-injection run (docs/guarantees.md §13), shared by test/fault/fault-injection.int.spec.ts (the
 * bounded form `npm test` runs) and scripts/fault-run.ts (longer soaks):
 *
 * 1. a private PostgreSQL cluster (initdb under `.stack/fault/<run>/pg`, its own port; the roles of
 *    scripts/database-roles.sql, the database `ledger_fault`, the migrations run by the services'
 *    start) and a private Kafka broker (scripts/stack.sh, own STACK_DIR and ports), the run's own
 *    topic, read-model schema and consumer group; the machine's PostgreSQL is never touched (its
 *    `pg_postmaster_start_time()` is compared before and after);
 * 2. the API, the relay and the projector as child processes from `dist/`;
 * 3. seeded simulated shoes dealt concurrently through the HTTP API (test/fault/driver.ts) while a
 *    seeded fault schedule, paced by the load's progress, SIGKILLs the API, the relay and the
 *    projector (each started again after a short random delay), stops and restarts Kafka cleanly
 *    once, SIGKILLs the broker once and the PostgreSQL postmaster once (crash recovery), each
 *    started again; a service that exits without being killed fails the run (it is not restarted);
 * 4. unless FAULT_SKIP_HARD_STEPS=1, the hard steps: the
 *    relay leader frozen (SIGSTOP) while a standby relay runs, a long broker outage under load, the
 *    ledger topic deleted and re-created, then republished from PostgreSQL;
 * 5. once everything has drained (outbox empty, projector at the topic's end), the checks of
 *    test/fault/checks.ts; every service, the broker and the private cluster are stopped whatever happens.
 *
 * Environment (all optional): FAULT_SEED (hex; printed), FAULT_KILLS [21], FAULT_SHOES [4],
 * FAULT_ROUNDS (rounds per shoe) [24], FAULT_SKIP_KAFKA_RESTART=1 (no broker stop nor kill),
 * FAULT_SKIP_HARD_STEPS=1 (not the steps of 4.), FAULT_FREEZE_S [15], FAULT_OUTAGE_S [180 with the hard
 * steps, 900 with FAULT_LONG=1, else 0: no long outage], FAULT_DB_NAME [ledger_fault],
 * FAULT_KAFKA_PORT [19192], FAULT_KAFKA_CONTROLLER_PORT [19193], FAULT_PG_PORT [19432],
 * FAULT_PG_BIN [/usr/lib/postgresql/15/bin], FAULT_REPUBLISH_CMD [npm run -s republish --],
 * FAULT_RESUME_CMD (the operator's step after a topic loss) [npm run -s projections:resume -- --by
 * fault-run --reason topic-re-created-and-republished --reset-offsets], FAULT_KEEP_RUN_DIR=1 (keep `.stack/fault/<run>/` with the logs after a passing run),
 * FAULT_LOAD_TIMEOUT_S (default: max(600, an estimate from the number of actions and faults)).
 * One fault run at a time per database name (lock file in the OS temp directory).
 */
import { spawnSync } from 'node:child_process';
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
import { FAULT_RUN_THRESHOLDS_ENV, significantMissing } from './significant';
import {
  assertBuilt,
  cleanStop,
  freePort,
  machinePostgresStartTime,
  PrivateKafka,
  PrivatePostgres,
  REPO_ROOT,
  runLogged,
  ServiceName,
  ServiceProcess,
  SERVICES,
  sleep,
  startWatchdog,
  waitFor,
  type FaultLog,
  type StopResult,
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
  /** A clean broker restart and a broker SIGKILL. */
  readonly kafkaRestart: boolean;
  /** The steps that need parts still being built (relay freeze, long outage, topic loss + republish). */
  readonly hardSteps: boolean;
  /** How long the relay leader stays frozen (SIGSTOP), in seconds. */
  readonly freezeS: number;
  /** How long the long broker outage lasts, in seconds (0: none). */
  readonly outageS: number;
  readonly dbName: string;
  readonly kafkaPort: number;
  readonly kafkaControllerPort: number;
  readonly pgPort: number;
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
  if (env.FAULT_SKIP_PG_RESTART) throw new Error("FAULT_SKIP_PG_RESTART is gone: the fault run crashes its own PostgreSQL cluster, never the machine's");
  const hardSteps = env.FAULT_SKIP_HARD_STEPS !== '1';
  return {
    seed: env.FAULT_SEED || SeededRandom.newSeed(),
    kills: intEnv(env, 'FAULT_KILLS', 21, 0, 10_000),
    shoes: intEnv(env, 'FAULT_SHOES', 4, 1, 200),
    rounds: intEnv(env, 'FAULT_ROUNDS', 24, 1, 200),
    kafkaRestart: env.FAULT_SKIP_KAFKA_RESTART !== '1',
    hardSteps,
    freezeS: intEnv(env, 'FAULT_FREEZE_S', 15, 1, 3600),
    outageS: intEnv(env, 'FAULT_OUTAGE_S', env.FAULT_LONG === '1' ? 900 : hardSteps ? 180 : 0, 0, 7 * 24 * 3600),
    dbName,
    kafkaPort: intEnv(env, 'FAULT_KAFKA_PORT', 19192, 1024, 65535),
    kafkaControllerPort: intEnv(env, 'FAULT_KAFKA_CONTROLLER_PORT', 19193, 1024, 65535),
    pgPort: intEnv(env, 'FAULT_PG_PORT', 19432, 1024, 65535),
    keepRunDir: env.FAULT_KEEP_RUN_DIR === '1',
    loadTimeoutS: env.FAULT_LOAD_TIMEOUT_S ? intEnv(env, 'FAULT_LOAD_TIMEOUT_S', 600, 10, 7 * 24 * 3600) : null,
  };
}

/** One step of the fault schedule; `at` is the fraction of the load's actions answered before it fires. */
export type Fault = { readonly at: number; readonly jitterMs: number } & (
  | { readonly kind: 'kill'; readonly target: ServiceName; readonly restartDelayMs: number }
  /** `scripts/stack.sh down`, then up: a clean broker stop. */
  | { readonly kind: 'kafka-restart'; readonly downMs: number }
  /** SIGKILL of the broker's JVM, then up (log recovery). */
  | { readonly kind: 'kafka-kill'; readonly downMs: number }
  /** SIGKILL of the postmaster and its children, then start (crash recovery). */
  | { readonly kind: 'pg-crash'; readonly downMs: number }
  /** Pending step: SIGSTOP the relay leader for `freezeMs` while a standby runs; the standby must publish within 10 s. */
  | { readonly kind: 'relay-freeze'; readonly freezeMs: number }
  /** Pending step: the broker down for `downMs` while dealing goes on; only the outbox grows. */
  | { readonly kind: 'kafka-outage'; readonly downMs: number }
  /** Pending step: the ledger topic deleted and re-created, then republished from PostgreSQL. */
  | { readonly kind: 'topic-recreate' }
);

/** Whether a fault is an outage of the infrastructure (or a freeze): it wants settled services and a stretch of load with no kill after it. */
const isOutage = (f: Fault) => f.kind !== 'kill';

/**
 * The seeded schedule: `kills` SIGKILLs (targets balanced over the three services, in a shuffled
 * order) at random points between 2 % and 90 % of the load, each followed by a restart after
 * 0.2–2 s; a clean broker restart (down 1–3 s) at 20–28 %, a broker SIGKILL (down 1–3 s) at 40–48 %
 * and a PostgreSQL postmaster SIGKILL (down 0.5–2 s) at 60–68 %, each followed by a stretch of the
 * load (8 %) with no kill, so dealing goes on during the outage. With the hard steps: the relay
 * freeze at 10 %, the long outage at 74 % and the topic loss at 84 % (windows of 4–6 %).
 * Each fault strikes 20–400 ms after the load passes its point (requests are in flight by then).
 */
export function planFaults(o: Pick<FaultOptions, 'seed' | 'kills' | 'kafkaRestart' | 'hardSteps' | 'freezeS' | 'outageS'>): Fault[] {
  const rng = new SeededRandom(`${o.seed}/faults`);
  const u = (lo: number, hi: number) => lo + (rng.int(1_000_000) / 1_000_000) * (hi - lo);
  const targets = rng.shuffle(Array.from({ length: o.kills }, (_, i) => SERVICES[i % SERVICES.length]));
  const jitter = () => Math.round(u(20, 400));
  const plan: Fault[] = [];
  // after an outage's point, a stretch of the load with no other fault: the load goes on during the
  // outage up to the next fault's point (and waits there until the outage is over)
  const windows: [number, number][] = [];
  const outage = (at: number, width: number, f: Fault) => {
    plan.push(f);
    windows.push([at, at + width]);
  };
  if (o.hardSteps) {
    outage(0.1, 0.05, { at: 0.1, jitterMs: jitter(), kind: 'relay-freeze', freezeMs: o.freezeS * 1000 });
  }
  if (o.kafkaRestart) {
    const a = u(0.2, 0.28);
    outage(a, 0.08, { at: a, jitterMs: jitter(), kind: 'kafka-restart', downMs: Math.round(u(1000, 3000)) });
    const b = u(0.4, 0.48);
    outage(b, 0.08, { at: b, jitterMs: jitter(), kind: 'kafka-kill', downMs: Math.round(u(1000, 3000)) });
  }
  const c = u(0.6, 0.68);
  outage(c, 0.08, { at: c, jitterMs: jitter(), kind: 'pg-crash', downMs: Math.round(u(500, 2000)) });
  if (o.outageS > 0) outage(0.74, 0.06, { at: 0.74, jitterMs: jitter(), kind: 'kafka-outage', downMs: o.outageS * 1000 });
  if (o.hardSteps) outage(0.84, 0.04, { at: 0.84, jitterMs: jitter(), kind: 'topic-recreate' });
  windows.sort((x, y) => x[0] - y[0]);
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

/** What a hard step found (the freeze, the outage, the topic loss; skipped with FAULT_SKIP_HARD_STEPS=1). */
export interface HardStepResult {
  readonly step: 'relay-freeze' | 'kafka-outage' | 'topic-recreate';
  readonly ok: boolean;
  readonly detail: string;
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
  /** Exits nobody asked for: each one fails the run. */
  readonly unexpectedExits: UnexpectedExit[];
  /** The graceful stops (SIGTERM) at the drain: each must exit 0 without being forced. */
  readonly stops: StopResult[];
  readonly kafkaRestarts: number;
  readonly kafkaKills: number;
  readonly pgKills: number;
  /** Crash recoveries the private PostgreSQL's log reports. */
  readonly pgCrashRecoveries: number;
  /** Seconds each part of the infrastructure was not answering because of the run (kill or stop until ready again). */
  readonly outageMs: { readonly kafka: number; readonly postgres: number; readonly relayFrozen: number };
  /** `pg_postmaster_start_time()` of the machine's PostgreSQL before and after the run (null: not answering). */
  readonly machinePg: { readonly before: string | null; readonly after: string | null };
  readonly hardSteps: HardStepResult[];
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
  log(`seed ${o.seed}  run ${runTag}  logs ${runDir}`);
  const envLine = `FAULT_SEED=${o.seed} FAULT_KILLS=${o.kills} FAULT_SHOES=${o.shoes} FAULT_ROUNDS=${o.rounds}${o.kafkaRestart ? '' : ' FAULT_SKIP_KAFKA_RESTART=1'}${o.hardSteps ? '' : ' FAULT_SKIP_HARD_STEPS=1'}${o.outageS ? ` FAULT_OUTAGE_S=${o.outageS}` : ''}`;
  log(`reproduce: ${envLine} npx tsx scripts/fault-run.ts   (or the spec: ${envLine} TEST_TIERS=int bash scripts/test.sh test/fault)`);
  const machinePgBefore = await machinePostgresStartTime();

  const topic = `fault.ledger.events.${runTag}`;
  const schema = `fault_read_${runTag}`;
  const group = `fault-projector-${runTag}`;
  const analyticsTopics = ['round-outcomes', 'settlements', 'roads'].map((k) => `fault.analytics.${k}.${runTag}`);
  const jwtSecret = randomBytes(24).toString('hex');
  const pg = new PrivatePostgres(PrivatePostgres.directory(join(runDir, 'pg')), await freePort(o.pgPort), infraLog);
  // as the owner: setup and the checks; the services log in as their runtime roles (docs/architecture.md §10)
  const databaseUrl = pg.url('ledger_owner', o.dbName);
  const kafkaPort = await freePort(o.kafkaPort);
  const controllerPort = await freePort(o.kafkaControllerPort === kafkaPort ? undefined : o.kafkaControllerPort);
  const broker = new PrivateKafka(runDir, kafkaPort, controllerPort, infraLog);
  const apiPort = await freePort();
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  // every database URL said out loud: nothing a service inherits may point it at another server
  const common = {
    DATABASE_URL: databaseUrlForRole(databaseUrl, 'ledger_app'),
    MIGRATIONS_DATABASE_URL: databaseUrl,
    RELAY_DATABASE_URL: databaseUrlForRole(databaseUrl, 'ledger_relay'),
    PROJECTOR_DATABASE_URL: databaseUrlForRole(databaseUrl, 'ledger_projector'),
    KAFKA_BROKERS: broker.brokers.join(','),
    // development mode (as `npm test` runs): the development keys and secrets
    LEDGER_ENV: process.env.LEDGER_ENV || 'development',
    LOG_LEVEL: 'info',
    RELAY_CRASH_POINT: '',
    ANALYTICS_PUBLISHER_CRASH_POINT: '',
    PROJECTOR_FAULT_DELAY_IN_TX_MS: '',
  };
  // a service that dies by itself fails the run at once (it is not restarted)
  let broken: string | null = null;
  let driver: ShoeDriver | null = null;
  const onUnexpectedExit = (e: UnexpectedExit) => {
    broken ??= `${e.service} exited by itself (code ${e.code}, signal ${e.signal}) ${(e.atMs / 1000).toFixed(1)} s into the run`;
    driver?.abort();
  };
  const relayEnv = { ...common, LEDGER_EVENTS_TOPIC: topic, RELAY_POLL_INTERVAL_MS: '100' };
  const services: Record<ServiceName, ServiceProcess> = {
    // no automatic gaming-day close (GAMING_DAY_CLOSE_SWEEP_MS 0), clock or configuration attestation
    // (CLOCK_ATTESTATION_INTERVAL_MS 0, CONFIGURATION_ATTESTATION false): the run accounts for every
    // event as an answer to the driver, and a close or an attestation is the ledger's own event. The
    // significant-event monitor runs (it is killed with the API): its raises are checked apart, each
    // exactly once (./significant.ts)
    api: new ServiceProcess(
      'api',
      {
        ...common,
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        LEDGER_EVENTS_TOPIC: topic,
        READ_SCHEMA: schema,
        PROJECTIONS_SCHEMA: schema,
        JWT_SECRET: jwtSecret,
        RUN_MIGRATIONS: 'true',
        TABLES_FILE: join(REPO_ROOT, 'config/tables.json'),
        GAMING_DAY_CLOSE_SWEEP_MS: '0',
        CLOCK_ATTESTATION_INTERVAL_MS: '0',
        CONFIGURATION_ATTESTATION: 'false',
        SIGNIFICANT_MONITOR: 'true',
        SIGNIFICANT_MONITOR_GROUP: `significant-${runTag}`,
        SIGNIFICANT_WIN_MULTIPLE: FAULT_RUN_THRESHOLDS_ENV.SIGNIFICANT_WIN_MULTIPLE,
        SIGNIFICANT_WIN_AMOUNT_MINOR: FAULT_RUN_THRESHOLDS_ENV.SIGNIFICANT_WIN_AMOUNT_MINOR,
        OCCURRED_AT_MAX_SKEW_MS: String(FAULT_RUN_THRESHOLDS_ENV.OCCURRED_AT_MAX_SKEW_MS),
      },
      join(logDir, 'api.log'),
      log,
      { onUnexpectedExit },
    ),
    relay: new ServiceProcess('relay', relayEnv, join(logDir, 'relay.log'), log, { onUnexpectedExit }),
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
      { onUnexpectedExit },
    ),
  };
  // the relay freeze needs a second relay standing by
  const standby = o.hardSteps ? new ServiceProcess('relay', relayEnv, join(logDir, 'relay-standby.log'), log, { name: 'relay-standby', onUnexpectedExit }) : null;
  const all = [...SERVICES.map((s) => services[s]), ...(standby ? [standby] : [])];
  const killAll = () => all.forEach((s) => s.killNow());
  process.once('exit', killAll);

  const apiHealthy = async () => {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  };
  let kafka: KafkaClient | null = null;
  let ds: DataSource | null = null;
  let watchdog: ReturnType<typeof startWatchdog> | null = null;
  let scripts: ShoeScript[] = [];
  let checks: CheckReport | null = null;
  let error: string | null = null;
  let kafkaRestarts = 0;
  let faultsAfterLoad = 0;
  let apiKillsInFlight = 0;
  const outageMs = { kafka: 0, postgres: 0, relayFrozen: 0 };
  const hardResults: HardStepResult[] = [];
  try {
    // ---------------------------------------------------------------------------------- setup
    watchdog = startWatchdog(broker, pg, infraLog);
    await pg.init();
    await pg.start();
    await pg.psql('postgres', { file: join(REPO_ROOT, 'scripts/database-roles.sql') });
    await pg.psql('postgres', { command: `CREATE DATABASE ${o.dbName} OWNER ledger_owner` });
    log(`private PostgreSQL (${pg.dataDir}) on 127.0.0.1:${pg.port} with database ${o.dbName}; starting a private Kafka broker on 127.0.0.1:${kafkaPort}`);
    await broker.up();
    kafka = createKafka({ clientId: `fault-run-${runTag}`, brokers: broker.brokers, logLevel: 'nothing', retries: 10 });
    const k = kafka;
    const createTopics = async (names: string[]) => {
      const admin = k.admin();
      await admin.connect();
      try {
        const configs = { 'retention.ms': '-1', 'cleanup.policy': 'delete' };
        // a broker just started may answer metadata for a new topic before it hosts its partitions
        for (let attempt = 1; ; attempt++) {
          try {
            await ensureTopics(
              admin,
              names.map((name) => ({ name, partitions: 6, configs })),
            );
            break;
          } catch (e) {
            if (attempt >= 20) throw e;
            await sleep(500);
          }
        }
      } finally {
        await admin.disconnect();
      }
    };
    await createTopics([topic, ...analyticsTopics]);
    services.api.start();
    if (!(await waitFor(apiHealthy, 90_000))) throw new Error(`the API did not answer /health within 90 s (log ${logDir}/api.log)`);
    services.relay.start();
    services.projector.start();
    // the standby starts once the first relay leads (it then stands by)
    if (standby) {
      await waitFor(() => leadership(join(logDir, 'relay.log')) === 'leader', 60_000);
      standby.start();
    }
    ds = createProjectionDataSource(databaseUrl, { applicationName: `fault-check-${runTag}`, poolSize: 4 });
    await ds.initialize();
    const dsq = ds;
    const unpublished = async () => Number((await dsq.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`))[0].n);
    const behind = async () => {
      const a = k.admin();
      await a.connect();
      try {
        const hw = await a.fetchTopicOffsets(topic);
        const cps: { partition: number; next_offset: string }[] = await dsq.query(`SELECT partition, next_offset::text AS next_offset FROM "${schema}".checkpoints WHERE consumer_group = $1 AND topic = $2`, [group, topic]);
        const cp = new Map(cps.map((c) => [c.partition, BigInt(c.next_offset)]));
        return hw.reduce((n, x) => n + Number(BigInt(x.high) - (cp.get(x.partition) ?? 0n)), 0);
      } finally {
        await a.disconnect();
      }
    };
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
    // a step that needs the load held while it runs (the topic loss)
    let holding = false;
    // the long outage: dealing goes on whatever the schedule says (the load may already stand at the
    // next fault's point when the outage starts; holding it there would test nothing)
    let unpaced = false;
    const gate = async () => {
      const until = Date.now() + 300_000 + o.outageS * 1000;
      while (!timedOut && !broken && (holding || (!unpaced && started < plan.length && plan[started].at <= d.progress)) && Date.now() < until) await sleep(20);
    };
    const d = new ShoeDriver({ baseUrl, jwtSecret, scripts, keyPrefix: `fault-${runTag}`, log, gate, actionDeadlineMs: Math.max(180_000, (o.outageS + 60) * 1000) });
    driver = d;
    const loadTimeoutMs = 1000 * (o.loadTimeoutS ?? Math.max(600, Math.round(60 + 0.25 * d.totalActions + 12 * plan.length + o.outageS + (o.hardSteps ? o.freezeS + 120 : 0))));
    const loadTimer = setTimeout(() => {
      timedOut = true;
      d.abort();
    }, loadTimeoutMs);
    const names = plan.filter(isOutage).map((f) => f.kind);
    log(`dealing ${scripts.length} shoes (${d.totalActions} actions) with ${plan.length} faults: ${o.kills} kills${names.length ? `, ${names.join(', ')}` : ''}`);
    const gapRng = new SeededRandom(`${o.seed}/gaps`);
    const settled = () => waitFor(() => all.every((s) => s.upForMs() >= 5000), 60_000, 100);
    const faults = (async () => {
      for (const [i, f] of plan.entries()) {
        // paced by the load (bounded by the load's deadline)
        await waitFor(() => d.done || timedOut || !!broken || d.progress >= f.at, loadTimeoutMs, 50);
        if (timedOut || broken) break;
        if (d.done) faultsAfterLoad++;
        // an infrastructure outage should hit running services, not ones still starting from the last kill
        if (isOutage(f)) await settled();
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
          if (f.target === 'api') await waitFor(apiHealthy, 60_000, 100);
        } else if (f.kind === 'kafka-restart' || f.kind === 'kafka-kill') {
          const s = Date.now();
          if (f.kind === 'kafka-restart') {
            await broker.down();
            kafkaRestarts++;
          } else await broker.crash();
          log(`${tag} Kafka ${f.kind === 'kafka-restart' ? 'stopped' : 'SIGKILLed'}; starting it again in ${f.downMs} ms`);
          await sleep(f.downMs);
          await broker.up();
          outageMs.kafka += Date.now() - s;
          log(`Kafka back after ${((Date.now() - s) / 1000).toFixed(1)} s`);
        } else if (f.kind === 'pg-crash') {
          const s = Date.now();
          const inFlight = d.inFlight;
          await pg.crash();
          log(`${tag} SIGKILL of the PostgreSQL postmaster and its children (${inFlight} request(s) in flight); start again in ${f.downMs} ms`);
          await sleep(f.downMs);
          await pg.start();
          outageMs.postgres += Date.now() - s;
          log(`PostgreSQL back after ${((Date.now() - s) / 1000).toFixed(1)} s (crash recoveries in its log: ${pg.crashRecoveries()})`);
        } else if (f.kind === 'relay-freeze') {
          hardResults.push(await freezeRelayLeader(f.freezeMs, tag));
        } else if (f.kind === 'kafka-outage') {
          hardResults.push(await longOutage(f.downMs, tag));
        } else {
          holding = true;
          try {
            hardResults.push(await loseTopic(tag));
          } finally {
            holding = false;
          }
        }
        await sleep(200 + gapRng.int(800));
      }
    })();

    /** Pending step: SIGSTOP the leading relay; a standby must publish within 10 s; SIGCONT after `freezeMs`. */
    async function freezeRelayLeader(freezeMs: number, tag: string): Promise<HardStepResult> {
      // the lease row names its holder's pid (the relay lease); else the relays' logs say who leads
      const holder: string | null = await dsq
        .query(`SELECT holder FROM outbox_leases WHERE name = 'ledger-relay'`)
        .then((r: { holder: string }[]) => r[0]?.holder ?? null)
        .catch(() => null);
      const leader =
        holder && standby?.pid && holder.includes(`:${standby.pid}:`)
          ? standby
          : holder && services.relay.pid && holder.includes(`:${services.relay.pid}:`)
            ? services.relay
            : leadership(join(logDir, 'relay-standby.log')) === 'leader'
              ? standby!
              : services.relay;
      const [{ p }] = await dsq.query(`SELECT coalesce(max(global_position), 0)::text AS p FROM outbox`);
      const s = Date.now();
      leader.freeze();
      log(`${tag} SIGSTOP ${leader.name} (the leader) for ${freezeMs / 1000} s; a standby must publish what comes after position ${p} within 10 s`);
      let takeoverMs: number | null = null;
      try {
        // a takeover: the outbox lease names another process than the frozen one, and rows past the
        // freeze were published (by it: the frozen one cannot mark)
        const frozenPid = `:${leader.pid}:`;
        const ok = await waitFor(
          async () => {
            const [{ holder: now }] = await dsq.query(`SELECT holder FROM outbox_leases WHERE name = 'ledger-relay'`);
            if (typeof now !== 'string' || now.includes(frozenPid)) return false;
            return Number((await dsq.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position > $1 AND published_at IS NOT NULL`, [p]))[0].n) > 0;
          },
          Math.min(freezeMs, 10_000),
          1000,
        );
        if (ok) takeoverMs = Date.now() - s;
        await sleep(Math.max(0, freezeMs - (Date.now() - s)));
      } finally {
        leader.thaw();
        outageMs.relayFrozen += Date.now() - s;
      }
      log(`${leader.name} thawed; ${takeoverMs === null ? 'NO standby published within 10 s' : `a standby published after ${(takeoverMs / 1000).toFixed(1)} s`}`);
      return { step: 'relay-freeze', ok: takeoverMs !== null, detail: takeoverMs === null ? 'no standby published within 10 s of the freeze' : `standby published ${(takeoverMs / 1000).toFixed(1)} s after the freeze` };
    }

    /** Pending step: the broker SIGKILLed and kept down `downMs` under load: the load goes on, only the outbox grows. */
    async function longOutage(downMs: number, tag: string): Promise<HardStepResult> {
      const s = Date.now();
      const actions0 = d.stats.actionsDone;
      const samples = [await unpublished()];
      await broker.crash();
      log(`${tag} Kafka SIGKILLed for a long outage of ${downMs / 1000} s (dealing goes on)`);
      unpaced = true;
      try {
        while (Date.now() - s < downMs && !broken && !timedOut) {
          await sleep(Math.min(5000, Math.max(0, downMs - (Date.now() - s))));
          samples.push(await unpublished());
        }
      } finally {
        unpaced = false;
      }
      const actions = d.stats.actionsDone - actions0;
      await broker.up();
      outageMs.kafka += Date.now() - s;
      const shrank = samples.some((n, i) => i > 0 && n < samples[i - 1]);
      const grew = samples[samples.length - 1] > samples[0];
      log(`Kafka back after ${((Date.now() - s) / 1000).toFixed(1)} s; ${actions} actions answered meanwhile; unpublished outbox rows ${samples[0]} → ${samples[samples.length - 1]}`);
      return {
        step: 'kafka-outage',
        ok: actions > 0 && grew && !shrank,
        detail: `${(downMs / 1000).toFixed(0)} s down: ${actions} actions answered, unpublished outbox ${samples[0]} → ${samples[samples.length - 1]}${shrank ? ' (it shrank while the broker was down)' : ''}`,
      };
    }

    /**
     * Pending step, the load held: outbox drained and projector caught up; the relay stopped; the
     * ledger topic deleted and re-created; `npm run -s republish` from PostgreSQL (FAULT_REPUBLISH_CMD);
     * the relay started; the projector must halt every partition holding data with an open incident
     * (`<schema>.projection_incidents`) instead of skipping; the operator's resume step
     * (FAULT_RESUME_CMD, default `npm run -s projections:resume -- --by fault-run --reason … --reset-offsets`);
     * the load goes on.
     */
    async function loseTopic(tag: string): Promise<HardStepResult> {
      const fail = (detail: string): HardStepResult => ({ step: 'topic-recreate', ok: false, detail });
      if (!(await waitFor(async () => (await unpublished()) === 0, 120_000, 250))) return fail('the outbox did not drain before the topic loss');
      await waitFor(async () => (await behind()) <= 0, 120_000, 500);
      await services.relay.stop();
      await standby?.stop();
      const admin = k.admin();
      await admin.connect();
      try {
        await admin.deleteTopics([topic]);
        await waitFor(async () => !(await admin.listTopics()).includes(topic), 60_000, 500);
      } finally {
        await admin.disconnect();
      }
      await createTopics([topic]);
      log(`${tag} topic ${topic} deleted and re-created; republishing from PostgreSQL`);
      const command = (env: string | undefined, fallback: string[]) => (env ? env.split(/\s+/).filter(Boolean) : fallback);
      const [cmd, ...args] = command(process.env.FAULT_REPUBLISH_CMD, ['npm', 'run', '-s', 'republish', '--']);
      try {
        await runLogged(cmd, args, { ...relayEnv }, join(logDir, 'republish.log'), 300_000);
      } catch (e) {
        services.relay.start();
        standby?.start();
        return fail(`republish failed: ${(e as Error).message}`);
      }
      services.relay.start();
      standby?.start();
      // loudly, not silently: every partition that holds data again halts with an open incident
      const a2 = k.admin();
      await a2.connect();
      const withData = (await a2.fetchTopicOffsets(topic).finally(() => a2.disconnect())).filter((x) => BigInt(x.high) > 0n).length;
      const halted = async () => Number((await dsq.query(`SELECT count(DISTINCT partition)::int AS n FROM "${schema}".projection_incidents WHERE resolved_at IS NULL AND consumer_group = $1 AND topic = $2`, [group, topic]))[0].n);
      if (!(await waitFor(async () => (await halted()) >= withData, 60_000, 500))) {
        return fail(`the projector did not halt the ${withData} partition(s) of the re-created topic within 60 s (open incidents: ${await halted().catch(() => 'no incident table')})`);
      }
      log(`the projector halted ${withData} partition(s) of the re-created topic; the operator resumes them`);
      const [rc, ...ra] = command(process.env.FAULT_RESUME_CMD, ['npm', 'run', '-s', 'projections:resume', '--', '--by', 'fault-run', '--reason', 'topic-re-created-and-republished', '--reset-offsets']);
      try {
        await runLogged(rc, ra, { ...common, LEDGER_EVENTS_TOPIC: topic, PROJECTOR_GROUP: group, PROJECTIONS_SCHEMA: schema }, join(logDir, 'resume.log'), 120_000);
      } catch (e) {
        return fail(`the resume step failed: ${(e as Error).message}`);
      }
      log('topic loss: republished, the halted partitions resumed');
      return { step: 'topic-recreate', ok: true, detail: `republished; ${withData} partition(s) halted loudly, then resumed` };
    }

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
    if (broken) throw new Error(broken);
    if (timedOut) throw new Error(`the load did not end within ${loadTimeoutMs / 1000} s (FAULT_LOAD_TIMEOUT_S)`);
    phase('load');
    log(`load done: ${d.stats.shoesFinished}/${scripts.length} shoes, ${d.stats.actionsDone}/${d.totalActions} actions, ${d.accepted.size} events accepted, ${d.stats.retries} retries`);

    // ------------------------------------------------------------------------------------ drain
    for (const s of all) s.start();
    if (!(await waitFor(apiHealthy, 90_000))) throw new Error('the API did not come back for the drain');
    // the monitor in the API raises what the load caused before the API stops
    const checkDs = ds!;
    if (!(await waitFor(async () => (await significantMissing(checkDs)) === 0 || !!broken, 120_000, 500)))
      throw new Error(`the significant-event monitor did not raise every significant event within 120 s (${await significantMissing(checkDs)} missing)`);
    await services.api.stop();
    if (!(await waitFor(async () => (await unpublished()) === 0 || !!broken, 180_000, 250))) throw new Error(`the relay did not drain the outbox within 180 s (${await unpublished()} rows left)`);
    if (!(await waitFor(async () => (await behind()) <= 0 || !!broken, 240_000, 500))) throw new Error(`the projector did not reach the topic's end within 240 s (${await behind()} records behind)`);
    if (broken) throw new Error(broken);
    await standby?.stop();
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
    await Promise.all(all.map((s) => s.stop(5000, false)));
    await ds?.destroy().catch(() => undefined);
    await pg.stop().catch((e) => log(`the private PostgreSQL did not stop cleanly: ${e}`));
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
  const machinePgAfter = await machinePostgresStartTime();

  const report: FaultReport = {
    options: o,
    runTag,
    runDir,
    durationMs: Date.now() - t0,
    phasesMs,
    kills: Object.fromEntries(SERVICES.map((s) => [s, services[s].kills])) as Record<ServiceName, number>,
    restarts: Object.fromEntries(SERVICES.map((s) => [s, services[s].restarts])) as Record<ServiceName, number>,
    unexpectedExits: all.flatMap((s) => s.unexpectedExits),
    // the drain's stops (the teardown's second stop finds nothing running)
    stops: all.flatMap((s) => s.stops),
    kafkaRestarts,
    kafkaKills: broker.kills,
    pgKills: pg.kills,
    pgCrashRecoveries: pg.crashRecoveries(),
    outageMs,
    machinePg: { before: machinePgBefore, after: machinePgAfter },
    hardSteps: hardResults,
    faultsAfterLoad,
    apiKillsInFlight,
    shoes: scripts.length,
    actions: driver?.totalActions ?? 0,
    driver: driver?.stats ?? { requests: 0, retries: 0, connectionErrors: 0, timeouts: 0, serverErrors: 0, actionsDone: 0, shoesFinished: 0 },
    unexpectedResponses: driver?.unexpected ?? [],
    checks,
    error,
  };
  if (failures(report).length === 0 && !o.keepRunDir && existsSync(runDir)) {
    rmSync(runDir, { recursive: true, force: true });
    rmSync(pg.dir, { recursive: true, force: true });
  } else {
    for (const heavy of [join(runDir, 'stack', 'kafka', 'data'), pg.dataDir]) if (existsSync(heavy)) rmSync(heavy, { recursive: true, force: true });
  }
  return report;
}

/** The leadership a relay's log says it has now (its last leadership line since its last start), or null. */
function leadership(logFile: string): 'leader' | 'standby' | null {
  if (!existsSync(logFile)) return null;
  const text = readFileSync(logFile, 'utf8');
  const since = text.slice(text.lastIndexOf('===== '));
  let state: 'leader' | 'standby' | null = null;
  for (const line of since.split('\n')) {
    if (/"msg":"(relay is the leader|took over publishing)"/.test(line)) state = 'leader';
    else if (/"msg":"(another relay publishes: standing by|relay lost the lease[^"]*)"/.test(line)) state = 'standby';
  }
  return state;
}

/** Why the run failed, one line per reason; empty when it passed. */
export function failures(r: FaultReport): string[] {
  const out: string[] = [];
  if (r.error) out.push(`run error: ${r.error}`);
  const totalKills = SERVICES.reduce((n, s) => n + r.kills[s], 0);
  if (totalKills < r.options.kills) out.push(`only ${totalKills} of ${r.options.kills} kills happened`);
  if (r.options.kafkaRestart && r.kafkaRestarts < 1) out.push('Kafka was not restarted');
  if (r.options.kafkaRestart && r.kafkaKills < 1) out.push('Kafka was not SIGKILLed');
  if (r.pgKills < 1) out.push('the PostgreSQL postmaster was not SIGKILLed');
  else if (r.pgCrashRecoveries < r.pgKills) out.push(`PostgreSQL crashed ${r.pgKills} time(s) but its log shows ${r.pgCrashRecoveries} crash recovery(ies)`);
  if (r.unexpectedExits.length) out.push(`${r.unexpectedExits.length} service exit(s) nobody asked for: ${r.unexpectedExits.map((e) => `${e.service} code ${e.code} signal ${e.signal}`).join(', ')}`);
  const unclean = r.stops.filter((s) => !cleanStop(s));
  if (unclean.length) out.push(`graceful stop not clean: ${unclean.map((s) => `${s.service} code ${s.code} signal ${s.signal}${s.forced ? ' (SIGKILLed after the grace period)' : ''}`).join(', ')}`);
  if (r.machinePg.before !== r.machinePg.after) out.push(`the machine's PostgreSQL was restarted (postmaster start ${r.machinePg.before} → ${r.machinePg.after})`);
  for (const p of r.hardSteps) if (!p.ok) out.push(`${p.step}: ${p.detail}`);
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
  if (c.significant.missing || c.significant.duplicated || c.significant.notGenuine)
    out.push(`significant events: ${c.significant.missing} not raised, ${c.significant.duplicated} raised twice, ${c.significant.notGenuine} not genuine`);
  if (c.mismatchCount) out.push(`${c.mismatchCount} mismatch(es)`);
  return out;
}

/** The figures of the summary line: kills, crashes, outage seconds (non-zero by design), duplicates found, mismatches (zero when it passed). */
export function headlineFigures(r: FaultReport): { kills: number; crashes: number; outageSeconds: number; duplicatesFound: number; mismatches: number } {
  const c = r.checks;
  return {
    kills: SERVICES.reduce((n, s) => n + r.kills[s], 0) + r.kafkaKills + r.pgKills,
    crashes: r.kafkaKills + r.pgKills,
    outageSeconds: Math.round((r.outageMs.kafka + r.outageMs.postgres + r.outageMs.relayFrozen) / 100) / 10,
    // what must never be: a fact twice in PostgreSQL, a settlement applied twice, two different records under one id
    duplicatesFound: c ? c.duplicatedInPg + c.settlementsAppliedTwice + (c.kafkaDuplicatesIdentical ? 0 : 1) : -1,
    mismatches: c ? c.mismatchCount : -1,
  };
}

/** The run's summary, as printed by the spec and the script. */
export function formatReport(r: FaultReport): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const c = r.checks;
  const totalKills = SERVICES.reduce((n, x) => n + r.kills[x], 0);
  const h = headlineFigures(r);
  const lines = [
    `fault run ${r.runTag}  seed ${r.options.seed}`,
    `  duration ${s(r.durationMs)} (${Object.entries(r.phasesMs)
      .map(([k, v]) => `${k} ${s(v)}`)
      .join(', ')})`,
    `  service kills ${totalKills}: ${SERVICES.map((x) => `${x} ${r.kills[x]}`).join(', ')} (API kills with requests in flight: ${r.apiKillsInFlight}); restarts after those kills: ${SERVICES.map((x) => `${x} ${r.restarts[x]}`).join(', ')}`,
    `  infrastructure: Kafka clean restarts ${r.kafkaRestarts}, Kafka SIGKILLs ${r.kafkaKills}, PostgreSQL postmaster SIGKILLs ${r.pgKills} (crash recoveries in its log ${r.pgCrashRecoveries}); outage Kafka ${s(r.outageMs.kafka)}, PostgreSQL ${s(r.outageMs.postgres)}${r.outageMs.relayFrozen ? `, relay leader frozen ${s(r.outageMs.relayFrozen)}` : ''}`,
    `  machine's PostgreSQL started at ${r.machinePg.before ?? '(not answering)'} before, ${r.machinePg.after ?? '(not answering)'} after: ${r.machinePg.before === r.machinePg.after ? 'untouched' : 'RESTARTED'}`,
    `  unexpected exits ${r.unexpectedExits.length}${r.unexpectedExits.length ? ` (${r.unexpectedExits.map((e) => `${e.service} code ${e.code} signal ${e.signal}`).join(', ')})` : ''}; graceful stops ${r.stops.map((x) => `${x.service} ${x.forced ? 'FORCED' : x.code === null ? `by ${x.signal}` : `code ${x.code}`}${cleanStop(x) ? '' : ' (NOT CLEAN)'}`).join(', ') || 'none'}`,
    `  hard steps ${r.options.hardSteps ? r.hardSteps.map((p) => `${p.step} ${p.ok ? 'ok' : 'FAILED'} (${p.detail})`).join('; ') || 'none reached' : 'off (FAULT_SKIP_HARD_STEPS=1)'}${r.options.outageS && !r.options.hardSteps ? `; long outage: ${r.hardSteps.map((p) => p.detail).join('; ')}` : ''}`,
    `  faults after the load ended ${r.faultsAfterLoad}`,
    `  load: ${r.driver.shoesFinished}/${r.shoes} shoes, ${r.driver.actionsDone}/${r.actions} actions, ${r.driver.requests} requests, ${r.driver.retries} retries (${r.driver.connectionErrors} connection errors, ${r.driver.timeouts} timeouts, ${r.driver.serverErrors} 5xx)`,
    `  unexpected responses ${r.unexpectedResponses.length}${r.unexpectedResponses.length ? `: ${r.unexpectedResponses.map((u) => `${u.shoeId}#${u.actionIndex} ${u.action} ${u.status} ${u.code}`).join('; ')}` : ''}`,
  ];
  if (c) {
    lines.push(
      `  events accepted ${c.eventsAccepted}, in PostgreSQL ${c.eventsInPg}, records on Kafka ${c.recordsOnKafka}`,
      `  redelivered copies on Kafka ${c.kafkaDuplicates} (all same id and same bytes: ${c.kafkaDuplicatesIdentical ? 'yes' : 'NO'}; absorbed by the projector: ${c.settlementsAppliedTwice === 0 ? 'yes' : 'NO'}), stored events missing on Kafka ${c.missingOnKafka}`,
      `  lost ${c.lost}, duplicated in PostgreSQL ${c.duplicatedInPg}, settlements applied twice ${c.settlementsAppliedTwice}, stakes lost ${c.stakesLost}`,
      `  bets placed ${c.betsPlaced}: settled ${c.betsSettled}, refunded ${c.betsRefunded}, resettled ${c.betsResettled}; settlement revisions in the read model ${c.settlementRevisionsInReadModel}`,
      `  hash chains: ${c.chainStreams} streams, ${c.chainEvents} events, ${c.chainProblems} problems; projections: ${c.projectionsChecksummed} checksums compared with a rebuild of ${c.rebuildEvents} events`,
      `  significant events: ${c.significant.raised} raised by the API's monitor, ${c.significant.expected} expected once each: ${c.significant.missing} not raised, ${c.significant.duplicated} raised twice, ${c.significant.notGenuine} not genuine`,
      `  mismatches ${c.mismatchCount}${c.mismatches.length ? ':\n    ' + c.mismatches.join('\n    ') : ''}`,
    );
  } else lines.push('  checks: not reached');
  lines.push(`  FIGURES kills ${h.kills}, crashes ${h.crashes}, outage seconds ${h.outageSeconds}, duplicates found ${h.duplicatesFound}, mismatches ${h.mismatches}`);
  if (r.error) lines.push(`  error: ${r.error}`);
  const f = failures(r);
  lines.push(f.length ? `  FAILED: ${f.join('; ')} (logs kept in ${r.runDir})` : '  passed');
  return lines.join('\n');
}
