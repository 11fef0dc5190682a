/**
 * The processes the bench starts (API, relay, projector, rebuild worker, Kafka's perf tools), as
 * child processes of this one, so their peak resident memory can be read from
 * /proc/<pid>/status (VmHWM) before they are stopped. Every child is stopped by its own pid
 * (SIGTERM, then SIGKILL after a grace period); `stopAll` runs on exit and on SIGINT/SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSecondsOf, memoryOf, say, sleep } from './util';

export interface Service {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Highest VmHWM seen (MiB), refreshed by {@link sample} and at stop. */
  peakMiB: number;
  /** Exit code once exited. */
  exitCode: number | null;
  exited: Promise<number | null>;
}

const running = new Set<Service>();

/** Reads a service's memory now and keeps the maximum. */
export function sample(s: Service): void {
  const m = memoryOf(s.pid);
  if (m && Number.isFinite(m.peakMiB)) s.peakMiB = Math.max(s.peakMiB, m.peakMiB);
}

/** Starts `node [nodeArgs] -r tsconfig-paths/register dist/<script>` with `env`, logging to `<logDir>/<name>.log`. */
export function startNodeService(name: string, script: string, env: Record<string, string>, logDir: string, nodeArgs: string[] = []): Service {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, '-r', 'tsconfig-paths/register', join('dist', script)], {
    env: { ...process.env, TS_NODE_BASEURL: './dist', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  return track(name, child, logFile);
}

/** Starts any command (java, psql, pgbench) with its output captured in memory and in `<logDir>/<name>.log`. */
export function runCommand(
  name: string,
  cmd: string,
  args: string[],
  logDir: string,
  opts: { env?: Record<string, string>; input?: string; timeoutMs: number },
): Promise<{ code: number | null; out: string; peakMiB: number; ms: number }> {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const started = performance.now();
  const child = spawn(cmd, args, { env: { ...process.env, ...(opts.env ?? {}) }, stdio: ['pipe', 'pipe', 'pipe'] });
  const s = track(name, child, logFile);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  else child.stdin!.end();
  const poll = setInterval(() => sample(s), 200);
  const timer = setTimeout(() => {
    say(`${name}: still running after ${opts.timeoutMs} ms; killing pid ${s.pid}`);
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  return s.exited.then((code) => {
    clearInterval(poll);
    clearTimeout(timer);
    writeFileSync(logFile, out);
    return { code, out, peakMiB: s.peakMiB, ms: performance.now() - started };
  });
}

function track(name: string, child: ChildProcess, logFile: string): Service {
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  let resolveExit!: (c: number | null) => void;
  const s: Service = { name, pid: child.pid, child, logFile, peakMiB: 0, exitCode: null, exited: new Promise((r) => (resolveExit = r)) };
  running.add(s);
  child.on('exit', (code, signal) => {
    s.exitCode = code ?? (signal ? 128 : null);
    running.delete(s);
    resolveExit(s.exitCode);
  });
  child.on('error', () => {
    running.delete(s);
    resolveExit(-1);
  });
  return s;
}

/** Waits until the service's log contains `text` (or it exits, or the time is up). */
export async function waitForLog(s: Service, text: string | RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = safeRead(s.logFile);
    if (typeof text === 'string' ? log.includes(text) : text.test(log)) return;
    if (s.exitCode !== null) throw new Error(`${s.name} exited (${s.exitCode}) before logging ${String(text)}; last lines:\n${tail(log)}`);
    if (Date.now() > deadline) throw new Error(`${s.name} did not log ${String(text)} within ${timeoutMs} ms; last lines:\n${tail(log)}`);
    await sleep(100);
  }
}

/** Stops a service: reads its peak memory, SIGTERM, waits up to `graceMs`, then SIGKILL. @returns its final figures */
export async function stopService(s: Service, graceMs = 20_000): Promise<{ peakMiB: number; cpuSeconds: number | null; exitCode: number | null }> {
  sample(s);
  const cpuSeconds = cpuSecondsOf(s.pid);
  if (s.exitCode === null) {
    s.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (s.exitCode === null) {
        say(`${s.name} (pid ${s.pid}) did not stop within ${graceMs} ms: SIGKILL`);
        s.child.kill('SIGKILL');
      }
    }, graceMs);
    await s.exited;
    clearTimeout(timer);
  }
  return { peakMiB: s.peakMiB, cpuSeconds, exitCode: s.exitCode };
}

/** Kills every child still running (by pid). Synchronous: safe in an exit handler. */
export function killAll(): void {
  for (const s of running) {
    try {
      s.child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Samples the memory of every running child (call periodically). */
export function sampleAll(): void {
  for (const s of running) sample(s);
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function tail(text: string, lines = 15): string {
  return text.split('\n').slice(-lines).join('\n');
}
