/**
 * The real services of the browser tier: the ledger API, the outbox relay and the projector, each
 * its own OS process started from the build exactly as scripts/demo.sh starts them
 * (`TS_NODE_BASEURL=./dist node -r tsconfig-paths/register dist/apps/<app>/src/main.js`), each in
 * its own process group (so a stop reaches any child it has), logging to `.stack/browser/logs/<name>.log`.
 * A service also exits by itself when the test runner that started it is gone (test/fault/orphan-guard.js),
 * and the next run's setup stops whatever a killed run left (`.stack/browser/pids.json`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './ledger-dist';
import { BROWSER_DIR, LOGS_DIR } from './stack-file';

/** The three services. */
export type ServiceName = 'api' | 'relay' | 'projector';

const ENTRY: Record<ServiceName, string> = {
  api: 'dist/apps/ledger/src/main.js',
  relay: 'dist/apps/relay/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
};

/** Pids of the services a run started (a run killed before its teardown leaves them for the next). */
const PIDS_FILE = resolve(BROWSER_DIR, 'pids.json');

/** @throws Error naming `npm run -s build` when a service or the console is not built */
export function assertBuilt(): void {
  const missing = [...Object.values(ENTRY), 'dist/console/index.html'].filter((f) => !existsSync(join(REPO_ROOT, f)));
  if (missing.length) throw new Error(`not built: ${missing.join(', ')} missing; run \`npm run -s build\` first`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** One running service. */
export interface Service {
  readonly name: ServiceName;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process has exited (code, signal). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** Whether it has exited. */
  readonly gone: () => boolean;
}

/**
 * Starts a service with `env` over this process's environment; stdout and stderr appended to its log.
 */
export function startService(name: ServiceName, env: Record<string, string>): Service {
  mkdirSync(LOGS_DIR, { recursive: true });
  const logFile = join(LOGS_DIR, `${name}.log`);
  const fd = openSync(logFile, 'a');
  writeSync(fd, `\n===== ${new Date().toISOString()} browser tier starts ${name} =====\n`);
  const child: ChildProcess = spawn(process.execPath, ['-r', join(REPO_ROOT, 'test/fault/orphan-guard.js'), '-r', 'tsconfig-paths/register', ENTRY[name]], {
    cwd: REPO_ROOT,
    env: { ...process.env, RELAY_HTTP_PORT: '0', PROJECTOR_HTTP_PORT: '0', ...env, TS_NODE_BASEURL: './dist', FAULT_PARENT_PID: String(process.pid) },
    stdio: ['ignore', fd, fd],
    detached: true, // its own process group: the stop signals the group
  });
  closeSync(fd);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: string | null }>((res) =>
    child.once('exit', (code, signal) => {
      done = true;
      res({ code, signal });
    }),
  );
  child.unref();
  return { name, pid: child.pid!, logFile, exited, gone: () => done };
}

/** Signals a process group (falls back to the process), ignoring one that is gone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
}

/** SIGTERM to each service's group, SIGKILL after `graceMs`; resolves once all have exited. */
export async function stopServices(services: readonly Service[], graceMs = 10_000): Promise<void> {
  await Promise.all(
    services.map(async (s) => {
      if (s.gone()) return;
      signalGroup(s.pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(s.pid, 'SIGKILL'), graceMs);
      await s.exited;
      clearTimeout(timer);
      signalGroup(s.pid, 'SIGKILL'); // anything left in the group
    }),
  );
  forgetPids();
}

/** Records the pids (for {@link killLeftovers} of the next run). */
export function rememberPids(services: readonly Service[]): void {
  mkdirSync(BROWSER_DIR, { recursive: true });
  writeFileSync(PIDS_FILE, JSON.stringify(services.map((s) => ({ name: s.name, pid: s.pid }))) + '\n');
}

function forgetPids(): void {
  try {
    writeFileSync(PIDS_FILE, '[]\n');
  } catch {
    /* nothing to forget */
  }
}

/**
 * Kills the services an earlier run of this checkout left running (killed before its teardown):
 * only pids recorded in `.stack/browser/pids.json` whose command line is still one of ours.
 */
export function killLeftovers(): void {
  let left: { name: ServiceName; pid: number }[] = [];
  try {
    left = JSON.parse(readFileSync(PIDS_FILE, 'utf8'));
  } catch {
    return;
  }
  for (const { name, pid } of left) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (cmd.includes(ENTRY[name]) && cmd.includes('orphan-guard')) signalGroup(pid, 'SIGKILL');
  }
  forgetPids();
}

/** The last `lines` lines of a log (for an error message). */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
