/**
 * The fault run's cluster (docs/guarantees.md §13): the ledger API, the outbox relay and the projector as
 * separate OS processes built from `dist/` (as scripts/demo.sh runs them), a private Kafka broker
 * started by scripts/stack.sh in its own STACK_DIR on its own ports, and a private PostgreSQL
 * cluster (initdb under the run's directory in `.stack/fault/`, its own port), each of which the
 * run can SIGKILL and start again. The machine's PostgreSQL service is never touched.
 *
 * Everything here stops by itself: services are killed at teardown, every wait has a deadline, and
 * a detached watchdog (started by {@link startWatchdog}) stops the private broker and the private
 * PostgreSQL cluster if the process running the fault run dies without tearing down (a node child
 * also exits when its parent is gone: see orphan-guard.js).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { alive, appendAsServerUser, handToServerUser, killServer, postgresBinDir, postmasterPid, runLogged, serverCommand, serverUserCanReach } from '../../scripts/cluster/pg-server';

// shared with the cluster's PostgreSQL pair (scripts/cluster/postgres.ts); re-exported for the fault run's specs
export { alive, postgresBinDir, runLogged };

/** The checkout this file lives in. */
export const REPO_ROOT = resolve(__dirname, '../..');

/** A logger for the run's progress lines. */
export type FaultLog = (line: string) => void;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it returns true or `timeoutMs` passes. @returns whether it became true */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      /* not yet */
    }
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** A free TCP port on 127.0.0.1 (`preferred` when it is free). */
export async function freePort(preferred?: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((res) => {
      const srv = createServer();
      srv.once('error', () => res(null));
      srv.listen(port, '127.0.0.1', () => {
        const got = (srv.address() as { port: number }).port;
        srv.close(() => res(got));
      });
    });
  if (preferred) {
    const p = await tryPort(preferred);
    if (p) return p;
  }
  const p = await tryPort(0);
  if (!p) throw new Error('no free port on 127.0.0.1');
  return p;
}

/** The three services of the ledger, each its own process. */
export type ServiceName = 'api' | 'relay' | 'projector';
export const SERVICES: readonly ServiceName[] = ['api', 'relay', 'projector'];

/**
 * The environment every ledger service under test shares: its database (app role `databaseUrl`, owner
 * `migrationsUrl` for RUN_MIGRATIONS), the brokers, the events topic and the read-model schema, in
 * development mode, without the clock attestation and the significant-event monitor (as
 * test/support/ledger-harness.ts), with every fault-injection knob cleared (a value left in the test runner's own
 * environment must not reach the child). Each service adds its role's URL and ports.
 */
export function ledgerServiceEnv(o: { databaseUrl: string; migrationsUrl: string; brokers: readonly string[]; topic: string; schema: string }): Record<string, string> {
  return {
    DATABASE_URL: o.databaseUrl,
    MIGRATIONS_DATABASE_URL: o.migrationsUrl,
    KAFKA_BROKERS: o.brokers.join(','),
    LEDGER_ENV: 'development',
    LOG_LEVEL: 'info',
    LEDGER_EVENTS_TOPIC: o.topic,
    PROJECTIONS_SCHEMA: o.schema,
    RELAY_CRASH_POINT: '',
    ANALYTICS_PUBLISHER_CRASH_POINT: '',
    PROJECTOR_FAULT_DELAY_IN_TX_MS: '',
    // as the harness: no clock or configuration attestation at start and no significant-event monitor, so the events
    // are the spec's own (each appends events: a ClockAttested at start, a raise per void or large win)
    CLOCK_ATTESTATION_INTERVAL_MS: '0',
    CONFIGURATION_ATTESTATION: 'false',
    SIGNIFICANT_MONITOR: 'false',
  };
}

const ENTRY: Record<ServiceName, string> = {
  api: 'dist/apps/ledger/src/main.js',
  relay: 'dist/apps/relay/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
};

/** Throws when `dist/` lacks a service's entry point (the fault run uses the built apps). */
export function assertBuilt(): void {
  const missing = SERVICES.map((s) => ENTRY[s]).filter((f) => !existsSync(join(REPO_ROOT, f)));
  if (missing.length) throw new Error(`not built: ${missing.join(', ')} missing; run \`npm run -s build\` first`);
}

/** An exit the run did not cause (the process died by itself). Any one fails the run; the process is NOT restarted. */
export interface UnexpectedExit {
  readonly service: string;
  readonly code: number | null;
  readonly signal: string | null;
  readonly atMs: number;
}

/** How a graceful stop (SIGTERM) ended. */
export interface StopResult {
  readonly service: string;
  readonly code: number | null;
  readonly signal: string | null;
  /** Whether the run had to SIGKILL it after the grace period. */
  readonly forced: boolean;
}

/**
 * Whether a stop was clean: not forced, and exit code 0 or (NestJS's shutdown hooks: the API
 * re-raises the signal once its hooks ran) ended by the SIGTERM itself.
 */
export const cleanStop = (s: StopResult): boolean => !s.forced && (s.code === 0 || (s.code === null && s.signal === 'SIGTERM'));

/**
 * One service process: started with `node -r tsconfig-paths/register dist/apps/<app>/src/main.js`
 * (TS_NODE_BASEURL=./dist), stdout and stderr appended to `<logDir>/<name>.log`. The run starts it
 * again only after a kill of its own ({@link kill} then {@link start}); an exit the run did not
 * cause is recorded in {@link unexpectedExits}, reported to `onUnexpectedExit`, and the process
 * stays down (a service must survive a database or broker crash without dying: docs/guarantees.md §13).
 */
export class ServiceProcess {
  /** SIGKILLs sent by the fault schedule. */
  kills = 0;
  /** Starts after the first one (after a kill of the run). */
  restarts = 0;
  /** SIGSTOPs sent by the fault schedule (freeze). */
  freezes = 0;
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** The graceful stops at the end of the run. */
  readonly stops: StopResult[] = [];
  private child: ChildProcess | null = null;
  private exited: Promise<{ code: number | null; signal: string | null }> = Promise.resolve({ code: null, signal: null });
  private wantUp = false;
  private starts = 0;
  private readonly t0 = Date.now();
  private spawnedAt = 0;

  /** How the run's logs name it (`options.name`, else the service: two relays need two names). */
  readonly name: string;
  private readonly onUnexpectedExit: (e: UnexpectedExit) => void;

  /**
   * @param entry the service whose `dist/` entry point runs
   * @param options.name its name in the logs and reports (default `entry`)
   * @param options.onUnexpectedExit called once it exits by itself (the run then fails)
   */
  constructor(
    private readonly entry: ServiceName,
    private readonly env: Record<string, string>,
    private readonly logFile: string,
    private readonly log: FaultLog,
    options: { readonly name?: string; readonly onUnexpectedExit?: (e: UnexpectedExit) => void } = {},
  ) {
    this.name = options.name ?? entry;
    this.onUnexpectedExit = options.onUnexpectedExit ?? (() => undefined);
  }

  /** Whether a process is running now. */
  get running(): boolean {
    return this.child !== null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How long the current process has been running (0 when none runs). */
  upForMs(): number {
    return this.child ? Date.now() - this.spawnedAt : 0;
  }

  /** Starts the process (no-op when it runs). */
  start(): void {
    this.wantUp = true;
    if (this.child) return;
    if (this.starts++ > 0) this.restarts++;
    const fd = openSync(this.logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} fault run starts ${this.name} (start #${this.starts}) =====\n`);
    const child = spawn(process.execPath, ['-r', join(__dirname, 'orphan-guard.js'), '-r', 'tsconfig-paths/register', ENTRY[this.entry]], {
      cwd: REPO_ROOT,
      env: { ...process.env, RELAY_HTTP_PORT: '0', PROJECTOR_HTTP_PORT: '0', ...this.env, TS_NODE_BASEURL: './dist', FAULT_PARENT_PID: String(process.pid) },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.spawnedAt = Date.now();
    this.exited = new Promise((res) => {
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        if (this.wantUp) {
          const e: UnexpectedExit = { service: this.name, code, signal, atMs: Date.now() - this.t0 };
          this.unexpectedExits.push(e);
          this.wantUp = false;
          this.log(`UNEXPECTED: ${this.name} exited by itself (code ${code}, signal ${signal}); not restarted, the run fails (log ${this.logFile})`);
          this.onUnexpectedExit(e);
        }
        res({ code, signal });
      });
    });
  }

  /** SIGKILL (the fault): resolves once the process is gone. It stays down until {@link start}. */
  async kill(): Promise<void> {
    this.wantUp = false;
    const child = this.child;
    if (!child) return;
    this.kills++;
    child.kill('SIGCONT'); // a frozen process dies too, but say so
    child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGSTOP (the fault: a frozen process keeps its sockets and sessions). @returns whether a process was frozen */
  freeze(): boolean {
    if (!this.child) return false;
    this.freezes++;
    return this.child.kill('SIGSTOP');
  }

  /** SIGCONT after {@link freeze}. */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`: the graceful stop at the end of the run (recorded in {@link stops} unless `record` is false: the teardown). */
  async stop(timeoutMs = 20_000, record = true): Promise<void> {
    this.wantUp = false;
    const child = this.child;
    if (!child) return;
    let forced = false;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      forced = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const { code, signal } = await this.exited;
    clearTimeout(timer);
    if (record) this.stops.push({ service: this.name, code, signal, forced });
  }

  /** Last resort (exit handler): SIGKILL without waiting. */
  killNow(): void {
    this.wantUp = false;
    this.child?.kill('SIGCONT');
    this.child?.kill('SIGKILL');
  }
}

/**
 * A Kafka broker of this run only: `scripts/stack.sh up|down` with STACK_DIR = `<runDir>/stack`
 * and its own ports, so stopping it disturbs nobody else's tests. The jars are the checkout's
 * (`.stack/kafka/libs`, linked), fetched by Maven only when the checkout has none.
 */
export class PrivateKafka {
  readonly stackDir: string;
  readonly brokers: string[];
  /** SIGKILLs of the broker. */
  kills = 0;

  constructor(
    runDir: string,
    readonly port: number,
    readonly controllerPort: number,
    private readonly logFile: string,
  ) {
    this.stackDir = join(runDir, 'stack');
    this.brokers = [`127.0.0.1:${port}`];
  }

  get env(): Record<string, string> {
    return {
      STACK_DIR: this.stackDir,
      KAFKA_PORT: String(this.port),
      KAFKA_CONTROLLER_PORT: String(this.controllerPort),
      KAFKA_STOP_TIMEOUT: '20',
      KAFKA_READY_TIMEOUT_MS: '90000',
    };
  }

  async up(): Promise<void> {
    const libs = join(this.stackDir, 'kafka', 'libs');
    const shared = join(REPO_ROOT, '.stack', 'kafka', 'libs');
    if (!existsSync(libs) && existsSync(join(shared, '.fetched'))) {
      mkdirSync(join(this.stackDir, 'kafka'), { recursive: true });
      symlinkSync(shared, libs);
    }
    // a second try: `up` is idempotent, and a start can fail for a passing reason (a port still in
    // TIME_WAIT, a checkout's script edited while bash reads it)
    for (let attempt = 1; ; attempt++) {
      try {
        await runLogged('bash', ['scripts/stack.sh', 'up'], this.env, this.logFile, 240_000);
        return;
      } catch (e) {
        if (attempt >= 3) throw e;
        await sleep(2000);
      }
    }
  }

  async down(): Promise<void> {
    if (!existsSync(this.stackDir)) return;
    await runLogged('bash', ['scripts/stack.sh', 'down'], this.env, this.logFile, 60_000);
  }

  /** The broker's JVM pid (from its pid file), when it runs. */
  pid(): number | null {
    const file = join(this.stackDir, 'kafka', 'kafka.pid');
    if (!existsSync(file)) return null;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return pid > 0 && alive(pid) ? pid : null;
  }

  /** SIGKILL the broker (no clean shutdown: the next start recovers its logs); resolves once it is gone. @throws when no broker runs */
  async crash(): Promise<void> {
    const pid = this.pid();
    if (!pid) throw new Error('the private broker is not running; nothing to kill');
    process.kill(pid, 'SIGKILL');
    this.kills++;
    if (!(await waitFor(() => !alive(pid), 30_000, 100))) throw new Error(`the broker (pid ${pid}) outlived SIGKILL by 30 s`);
  }
}

/**
 * A PostgreSQL cluster of this run only (docs/guarantees.md §13): `initdb` into `<dir>/data`, its
 * own port on 127.0.0.1 (no Unix socket), started with `pg_ctl` and crashed with SIGKILL of the
 * postmaster and its children (a power cut: the next start runs crash recovery). Never the
 * machine's service. initdb and postgres refuse to run as root: as root, every server command
 * runs as the `postgres` OS user (`runuser -u postgres --`) and `<dir>` is handed to that user;
 * otherwise they run as the current user. Superuser `postgres`, `trust` authentication (loopback only).
 */
export class PrivatePostgres {
  readonly dataDir: string;
  /** The server's own log (crash recovery shows up here). */
  readonly serverLog: string;
  /** SIGKILLs of the postmaster. */
  kills = 0;
  private readonly bin = postgresBinDir();

  constructor(
    readonly dir: string,
    readonly port: number,
    private readonly logFile: string,
  ) {
    this.dataDir = join(dir, 'data');
    this.serverLog = join(dir, 'postgres.log');
  }

  /**
   * `preferred` (under `.stack/`), unless the run is root and the `postgres` OS user cannot reach it
   * (a checkout under a home directory closed to others): then a fresh directory in the OS temp
   * directory. @returns the directory for the cluster (not created yet when `preferred`)
   */
  static directory(preferred: string): string {
    let parent = preferred;
    while (!existsSync(parent)) parent = join(parent, '..');
    if (serverUserCanReach(parent)) return preferred;
    return mkdtempSync(join(tmpdir(), 'ledger-fault-pg-'));
  }

  /** A connection URL to `db` as `role` (password = role name: trust ignores it). */
  url(role: string, db: string): string {
    return `postgres://${role}:${role}@127.0.0.1:${this.port}/${db}`;
  }

  private run(binary: string, args: string[], timeoutMs: number): Promise<void> {
    const [cmd, argv] = serverCommand(this.bin, binary, args);
    return runLogged(cmd, argv, {}, this.logFile, timeoutMs);
  }

  /** initdb (UTF-8, C locale, trust on loopback) and the server settings; @throws when initdb fails */
  async init(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    handToServerUser(this.dir);
    await this.run('initdb', ['-D', this.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C'], 120_000);
    const settings = [
      `port = ${this.port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = ''`,
      'max_connections = 200',
      'shared_buffers = 64MB',
      // the defaults, said out loud: a crash must find what was committed on disk
      'fsync = on',
      'synchronous_commit = on',
      'full_page_writes = on',
      `log_line_prefix = '%m [%p] '`,
    ];
    appendAsServerUser(join(this.dataDir, 'postgresql.conf'), `\n# the fault run's private cluster\n${settings.join('\n')}\n`);
  }

  /** Whether it accepts connections. */
  ready(): boolean {
    return spawnSync(join(this.bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', 'postgres'], { timeout: 5000 }).status === 0;
  }

  /** The postmaster's pid (first line of postmaster.pid), when it runs. */
  postmasterPid(): number | null {
    return postmasterPid(this.dataDir);
  }

  /** `pg_ctl start` (crash recovery first when the last stop was a crash); waits until it accepts connections (≤ 120 s). */
  async start(): Promise<void> {
    if (this.postmasterPid() && this.ready()) return;
    await this.run('pg_ctl', ['-D', this.dataDir, '-l', this.serverLog, '-w', '-t', '120', 'start'], 150_000);
    if (!(await waitFor(() => this.ready(), 120_000, 200))) throw new Error(`the private PostgreSQL did not accept connections within 120 s (log ${this.serverLog})`);
  }

  /**
   * SIGKILL of the postmaster and of every one of its children at once (no shutdown checkpoint,
   * sessions cut mid-transaction); resolves once they are all gone. @throws when it is not running
   */
  async crash(): Promise<void> {
    const pid = this.postmasterPid();
    if (!pid) throw new Error('the private PostgreSQL is not running; nothing to kill');
    const pids = killServer(pid);
    this.kills++;
    if (!(await waitFor(() => pids.every((p) => !alive(p)), 30_000, 100))) throw new Error(`PostgreSQL processes outlived SIGKILL by 30 s`);
  }

  /** How many times the server log says it ran crash recovery. */
  crashRecoveries(): number {
    if (!existsSync(this.serverLog)) return 0;
    return (readFileSync(this.serverLog, 'utf8').match(/database system was not properly shut down; automatic recovery in progress/g) ?? []).length;
  }

  /** Runs SQL (a file or a string) as the superuser on `db`. @throws on an error */
  async psql(db: string, sql: { file: string } | { command: string }): Promise<void> {
    const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', db, ...('file' in sql ? ['-f', sql.file] : ['-c', sql.command])];
    await runLogged(join(this.bin, 'psql'), args, {}, this.logFile, 60_000);
  }

  /** `pg_ctl stop -m immediate` when it runs (teardown: nothing to keep). */
  async stop(): Promise<void> {
    if (!this.postmasterPid()) return;
    await this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop'], 90_000);
  }

  /** The shell line the watchdog runs to stop it (see {@link startWatchdog}). */
  stopCommandLine(): string {
    const [cmd, argv] = serverCommand(this.bin, 'pg_ctl', ['-D', this.dataDir, '-m', 'immediate', 'stop']);
    return [cmd, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  }
}

/**
 * The start time of the machine's own PostgreSQL (127.0.0.1:5432, or PGPORT), or null when it does
 * not answer: the run asserts it is the same before and after (the machine's service is never touched).
 */
export async function machinePostgresStartTime(): Promise<string | null> {
  const r = spawnSync('psql', ['-X', '-tA', '-h', '127.0.0.1', '-p', process.env.PGPORT ?? '5432', '-U', 'postgres', '-d', 'postgres', '-c', 'SELECT pg_postmaster_start_time()'], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
  });
  return r.status === 0 ? r.stdout.trim() || null : null;
}

/**
 * A detached shell that waits for this process to end, then stops the private PostgreSQL cluster
 * (immediate) and the private broker. The run kills it at a normal teardown (by its pid), after
 * doing the same itself.
 */
export function startWatchdog(kafka: PrivateKafka, pg: PrivatePostgres, logFile: string): ChildProcess {
  const script = `
    while kill -0 "$FAULT_PARENT" 2>/dev/null; do sleep 2; done
    if [ -f "$PG_DATA/postmaster.pid" ]; then ${pg.stopCommandLine()}; fi
    if [ -d "$STACK_DIR" ]; then bash scripts/stack.sh down; fi`;
  const fd = openSync(logFile, 'a');
  const child = spawn('bash', ['-c', script], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, ...kafka.env, FAULT_PARENT: String(process.pid), PG_DATA: pg.dataDir },
  });
  closeSync(fd);
  child.unref();
  return child;
}
