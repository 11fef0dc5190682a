/**
 * Long-lived processes of the cluster (docs/operations.md, "The production topology"): started
 * detached (their own session, so they outlive `npm run cluster -- up`), their pid in a file, their
 * output appended to a log; found again by `status` and `down` through the pid file, checked
 * against the process's command line so that a recycled pid is never taken for a member.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection } from 'node:net';
import { alive } from './pg-server';

/** What starts one member. */
export interface DetachedCommand {
  /** Its name in messages. */
  readonly name: string;
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Pid file (written once started). */
  readonly pidFile: string;
  /** Log file (stdout and stderr appended). */
  readonly logFile: string;
  /** A string its command line contains (e.g. its config file): what tells the member from a recycled pid. */
  readonly marker: string;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The pid in `pidFile` when that process runs and its command line contains `marker`, else null. */
export function livePid(pidFile: string, marker: string): number | null {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!(pid > 0)) return null;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return cmdline.includes(marker) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Starts `c` detached unless it runs already.
 * @returns its pid, and whether this call started it
 */
export function startDetached(c: DetachedCommand): { pid: number; started: boolean } {
  const running = livePid(c.pidFile, c.marker);
  if (running) return { pid: running, started: false };
  mkdirSync(dirname(c.logFile), { recursive: true });
  mkdirSync(dirname(c.pidFile), { recursive: true });
  const fd = openSync(c.logFile, 'a');
  writeSync(fd, `\n===== ${new Date().toISOString()} cluster starts ${c.name}: ${c.cmd} ${c.args.join(' ')} =====\n`);
  const child = spawn(c.cmd, [...c.args], { cwd: c.cwd, env: { ...process.env, ...c.env }, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  child.unref();
  if (!child.pid) throw new Error(`${c.name}: could not start ${c.cmd} (log ${c.logFile})`);
  writeFileSync(c.pidFile, `${child.pid}\n`);
  return { pid: child.pid, started: true };
}

/**
 * Stops the member of `pidFile`: `signal` (default SIGTERM), then SIGKILL after `graceMs`.
 * @returns how it ended: `not running`, `stopped`, or `killed` (after the grace period)
 */
export async function stopMember(o: { pidFile: string; marker: string; graceMs: number; signal?: NodeJS.Signals }): Promise<'not running' | 'stopped' | 'killed'> {
  const pid = livePid(o.pidFile, o.marker);
  if (!pid) {
    rmSync(o.pidFile, { force: true });
    return 'not running';
  }
  process.kill(pid, o.signal ?? 'SIGTERM');
  const deadline = Date.now() + o.graceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  let how: 'stopped' | 'killed' = 'stopped';
  if (alive(pid)) {
    process.kill(pid, 'SIGKILL');
    how = 'killed';
    while (alive(pid)) await sleep(50);
  }
  rmSync(o.pidFile, { force: true });
  return how;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (within 1 s). */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      s.destroy();
      res(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Polls `check` every `everyMs` until it is true or `timeoutMs` passed.
 * @throws Error `<what> not ready after <timeoutMs> ms` (with the last error seen) when it never was
 */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() >= deadline) throw new Error(`${what} not ready after ${timeoutMs} ms${last ? ` (last error: ${last})` : ''}`);
    await sleep(everyMs);
  }
}
