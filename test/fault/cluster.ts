/**
 * The fault run's cluster (docs/guarantees.md §13): the ledger API, the outbox relay and the projector as
 * separate OS processes built from `dist/` (as scripts/demo.sh runs them), a private Kafka broker
 * started by scripts/stack.sh in its own STACK_DIR on its own ports, and the machine's PostgreSQL
 * service, each of which the run can kill, stop and start again.
 *
 * Everything here stops by itself: services are killed at teardown, every wait has a deadline, and
 * a detached watchdog (started by {@link startWatchdog}) stops the private broker and starts
 * PostgreSQL again if the process running the fault run dies without tearing down (a node child
 * also exits when its parent is gone: see orphan-guard.js).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, symlinkSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

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

/** An exit the run did not cause (the process died by itself); the supervisor restarted it. */
export interface UnexpectedExit {
  readonly service: ServiceName;
  readonly code: number | null;
  readonly signal: string | null;
  readonly atMs: number;
}

/**
 * One service process: started with `node -r tsconfig-paths/register dist/apps/<app>/src/main.js`
 * (TS_NODE_BASEURL=./dist), stdout and stderr appended to `<logDir>/<name>.log`. While it is
 * wanted up, an exit the run did not cause is recorded and the process is started again after a
 * back-off (0.5 s doubling to 5 s), so a service that cannot start while PostgreSQL or Kafka is
 * down comes back when they do.
 */
export class ServiceProcess {
  /** SIGKILLs sent by the fault schedule. */
  kills = 0;
  /** Starts after the first one (after a kill or an unexpected exit). */
  restarts = 0;
  readonly unexpectedExits: UnexpectedExit[] = [];
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private wantUp = false;
  private starts = 0;
  private backoffMs = 500;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly t0 = Date.now();
  private spawnedAt = 0;

  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    private readonly logFile: string,
    private readonly log: FaultLog,
  ) {}

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

  /** Starts the process (no-op when it runs) and keeps it up until {@link kill} or {@link stop}. */
  start(): void {
    this.wantUp = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    if (this.child) return;
    if (this.starts++ > 0) this.restarts++;
    const fd = openSync(this.logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} fault run starts ${this.name} (start #${this.starts}) =====\n`);
    const child = spawn(process.execPath, ['-r', join(__dirname, 'orphan-guard.js'), '-r', 'tsconfig-paths/register', ENTRY[this.name]], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, TS_NODE_BASEURL: './dist', FAULT_PARENT_PID: String(process.pid) },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.spawnedAt = Date.now();
    this.exited = new Promise<void>((res) => {
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        if (this.wantUp) {
          this.unexpectedExits.push({ service: this.name, code, signal, atMs: Date.now() - this.t0 });
          this.log(`${this.name} exited by itself (code ${code}, signal ${signal}); restarting in ${this.backoffMs} ms`);
          this.restartTimer = setTimeout(() => {
            this.restartTimer = null;
            if (this.wantUp) this.start();
          }, this.backoffMs);
          this.backoffMs = Math.min(this.backoffMs * 2, 5000);
        }
        res();
      });
    });
  }

  /** A healthy start resets the crash back-off. */
  markHealthy(): void {
    this.backoffMs = 500;
  }

  /** SIGKILL (the fault): resolves once the process is gone. It stays down until {@link start}. */
  async kill(): Promise<void> {
    this.wantUp = false;
    this.cancelRestart();
    const child = this.child;
    if (!child) return;
    this.kills++;
    child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`: the graceful stop at the end of the run. */
  async stop(timeoutMs = 20_000): Promise<void> {
    this.wantUp = false;
    this.cancelRestart();
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Last resort (exit handler): SIGKILL without waiting. */
  killNow(): void {
    this.wantUp = false;
    this.cancelRestart();
    this.child?.kill('SIGKILL');
  }

  private cancelRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }
}

/** Runs a command to completion (bounded), output appended to `logFile`. @throws on a non-zero exit */
export async function runLogged(cmd: string, args: string[], env: Record<string, string>, logFile: string, timeoutMs: number): Promise<void> {
  const fd = openSync(logFile, 'a');
  writeSync(fd, `\n===== ${new Date().toISOString()} $ ${cmd} ${args.join(' ')} =====\n`);
  try {
    await new Promise<void>((res, rej) => {
      const child = spawn(cmd, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        rej(new Error(`${cmd} ${args.join(' ')} did not finish in ${timeoutMs} ms (log ${logFile})`));
      }, timeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) res();
        else rej(new Error(`${cmd} ${args.join(' ')} exited with ${code} (log ${logFile})`));
      });
    });
  } finally {
    closeSync(fd);
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
  stops = 0;

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
}

/** The PostgreSQL cluster of the machine (`pg_ctlcluster <version> main`), stopped and started by the fault run. */
export class PostgresControl {
  readonly version: string;
  stops = 0;

  constructor(
    private readonly markerFile: string,
    private readonly logFile: string,
  ) {
    const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql').sort((a, b) => Number(a) - Number(b)) : [];
    this.version = versions[versions.length - 1] ?? '15';
  }

  /** Whether PostgreSQL accepts connections on 127.0.0.1:5432. */
  static ready(): boolean {
    return spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', process.env.PGPORT ?? '5432'], { timeout: 5000 }).status === 0;
  }

  /** `stop -m fast` (every session is terminated), then `start` after `downMs`; waits until it accepts connections. */
  async restart(downMs: number): Promise<void> {
    // the marker tells the watchdog to start PostgreSQL again should this process die meanwhile
    closeSync(openSync(this.markerFile, 'w'));
    try {
      this.stops++;
      await runLogged('pg_ctlcluster', ['--skip-systemctl-redirect', this.version, 'main', 'stop', '-m', 'fast'], {}, this.logFile, 60_000);
      await sleep(downMs);
    } finally {
      await this.start();
    }
  }

  /** Starts the cluster when it is not accepting connections; waits up to 60 s. */
  async start(): Promise<void> {
    if (!PostgresControl.ready()) {
      await runLogged('pg_ctlcluster', ['--skip-systemctl-redirect', this.version, 'main', 'start'], {}, this.logFile, 60_000).catch(() => undefined);
    }
    if (!(await waitFor(() => PostgresControl.ready(), 60_000, 200))) throw new Error('PostgreSQL did not accept connections within 60 s of its start');
    rmSync(this.markerFile, { force: true });
  }
}

/**
 * A detached shell that waits for this process to end, then starts PostgreSQL if the run had
 * stopped it (marker file present) and stops the private broker. The run kills it at a normal
 * teardown (by its pid), after doing the same itself.
 */
export function startWatchdog(kafka: PrivateKafka, pg: PostgresControl, pgMarker: string, logFile: string): ChildProcess {
  const script = `
    while kill -0 "$FAULT_PARENT" 2>/dev/null; do sleep 2; done
    if [ -f "$PG_MARKER" ]; then pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start; rm -f "$PG_MARKER"; fi
    if [ -d "$STACK_DIR" ]; then bash scripts/stack.sh down; fi`;
  const fd = openSync(logFile, 'a');
  const child = spawn('bash', ['-c', script], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, ...kafka.env, FAULT_PARENT: String(process.pid), PG_MARKER: pgMarker, PG_VERSION: pg.version },
  });
  closeSync(fd);
  child.unref();
  return child;
}
