/**
 * Running private PostgreSQL servers on this machine (the fault run's cluster, `test/fault/cluster.ts`,
 * and the cluster's primary and standby, `scripts/cluster/postgres.ts`): where the server binaries
 * are, and running them as the OS user they accept. initdb and postgres refuse to run as root: as
 * root, every server command runs as the `postgres` OS user (`runuser -u postgres --`) and the
 * folders it writes are handed to that user; otherwise they run as the current user. The machine's
 * own PostgreSQL service is never touched.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The checkout this file lives in. */
const REPO_ROOT = resolve(__dirname, '../..');

/** The PostgreSQL server binaries: FAULT_PG_BIN, else /usr/lib/postgresql/15/bin, else the newest /usr/lib/postgresql/<v>/bin. @throws Error when there are none */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FAULT_PG_BIN) return env.FAULT_PG_BIN;
  const preferred = '/usr/lib/postgresql/15/bin';
  if (existsSync(join(preferred, 'initdb'))) return preferred;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (!versions.length) throw new Error('no PostgreSQL server binaries (initdb) in /usr/lib/postgresql/*/bin; install the postgresql package or set FAULT_PG_BIN');
  return join(base, versions[versions.length - 1], 'bin');
}

/** Whether this process is root, so that server commands run as the `postgres` OS user. */
export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * A server binary of `bin` with its arguments, as the OS user the server runs as.
 * @returns the command and its arguments, for spawn
 */
export function serverCommand(bin: string, binary: string, args: readonly string[]): [string, string[]] {
  const path = join(bin, binary);
  return runsAsRoot() ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]];
}

/** When root: hands `dir` (created already) to the `postgres` OS user. @throws Error when there is no such user */
export function handToServerUser(dir: string): void {
  if (!runsAsRoot()) return;
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (!(uid > 0)) throw new Error('running as root, but there is no `postgres` OS user to run a private PostgreSQL server as');
  chownSync(dir, uid, gid);
}

/** Whether the server's OS user can enter `dir` (when root: a checkout under a home closed to others cannot). */
export function serverUserCanReach(dir: string): boolean {
  if (!runsAsRoot()) return true;
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir], { timeout: 10_000 }).status === 0;
}

/** Appends `text` to `file` (of a data directory) as the server's OS user. @throws Error when it cannot */
export function appendAsServerUser(file: string, text: string): void {
  const [cmd, argv] = runsAsRoot() ? ['runuser', ['-u', 'postgres', '--', 'sh', '-c', 'cat >> "$1"', 'sh', file]] : ['sh', ['-c', 'cat >> "$1"', 'sh', file]];
  const r = spawnSync(cmd, argv, { input: text });
  if (r.status !== 0) throw new Error(`could not write ${file}: ${r.stderr}`);
}

/** Runs a command to completion (bounded), output appended to `logFile`. @throws Error on a non-zero exit or the timeout */
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

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster's pid of data directory `dataDir` (first line of postmaster.pid), when it runs. */
export function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return pid > 0 && alive(pid) ? pid : null;
}

/** The pids whose parent is `pid` (from /proc). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * SIGKILL of a postmaster and of every one of its children at once (a power cut: no shutdown
 * checkpoint, sessions cut mid-transaction; the next start runs crash recovery).
 * @returns the pids killed, postmaster first (wait for them with {@link alive})
 */
export function killServer(pid: number): number[] {
  const children = childPids(pid);
  process.kill(pid, 'SIGKILL');
  for (const c of children) {
    try {
      process.kill(c, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  return [pid, ...children];
}
