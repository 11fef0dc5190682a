/**
 * `npm run demo` (scripts/demo.sh) refuses before it starts, builds or stops anything: a bad option
 * (exit 2 with the usage), another demo still starting (it holds `<STACK_DIR>/demo.lock` from its
 * first step, the build included: refused at once naming its pid, even with `--replace`), a demo
 * still running (one left up with `--keep-running`: refused, not stopped, unless `--replace`), a port of the API, the relay or the projector that another program
 * holds (all named at once with their variables); `--help` answers at once (exit 0). Every spec
 * runs the real script in a scratch STACK_DIR (its pid files) with stand-ins for `npm`, `npx`,
 * `pg_isready`, `psql`, `mvn` and `java` first on PATH that only record that they were called: the
 * record stays empty when the script stopped before the stack, the build and the services. A
 * kept-running demo is a sentinel process whose command line names the API's entry point, with its
 * pid file. Before: `--bogus` built for 72 s and stopped the kept demo; ports 3001/3002 were
 * discovered 251 s later as "projections did not catch up".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

jest.setTimeout(30_000);

const ROOT = resolve(__dirname, '../..');
const RECORDED = ['npm', 'npx', 'pg_isready', 'psql', 'pg_ctlcluster', 'mvn', 'java'];

let scratch: string;
let state: string;
let sentinel: ChildProcess | null = null;
const servers: Server[] = [];

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'demo-refusals-'));
  state = join(scratch, 'state');
  mkdirSync(state);
  mkdirSync(join(scratch, 'bin'));
  for (const tool of RECORDED) {
    writeFileSync(join(scratch, 'bin', tool), `#!/usr/bin/env bash\necho "${tool} $*" >>"${join(scratch, 'calls')}"\nexit 1\n`);
    chmodSync(join(scratch, 'bin', tool), 0o755);
  }
});

afterEach(async () => {
  if (sentinel?.exitCode === null && sentinel.signalCode === null) sentinel.kill('SIGKILL');
  sentinel = null;
  await Promise.all(servers.splice(0).map((s) => new Promise((res) => s.close(res))));
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs scripts/demo.sh with `args`; resolves its exit status and output. */
function demo(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn('bash', [join(ROOT, 'scripts/demo.sh'), ...args], {
      cwd: scratch,
      env: { ...process.env, PATH: `${join(scratch, 'bin')}:${process.env.PATH}`, STACK_DIR: state, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', rej);
    child.on('close', (status) => res({ status, stdout, stderr }));
  });
}

/** What the stand-ins recorded: empty when nothing was started or built. */
const calls = () => (existsSync(join(scratch, 'calls')) ? readFileSync(join(scratch, 'calls'), 'utf8') : '');

/** A kept-running demo's API: a live process started "from" dist/apps/ledger/src/main.js, with its pid file. */
async function keptRunningDemo(): Promise<number> {
  sentinel = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'dist/apps/ledger/src/main.js'], { stdio: 'ignore' });
  await new Promise((res) => sentinel!.once('spawn', res));
  writeFileSync(join(state, 'api.pid'), `${sentinel.pid}\n`);
  return sentinel.pid!;
}
/** A demo still in its build: a process holding the demo's lock (flock on <STACK_DIR>/demo.lock) whose pid the lock file names. */
async function buildingDemo(): Promise<number> {
  const lock = join(state, 'demo.lock');
  sentinel = spawn('bash', ['-c', 'exec 8>>"$1"; flock 8; echo $$ >"$1"; exec sleep 30', 'building-demo', lock], { stdio: 'ignore' });
  await new Promise((res) => sentinel!.once('spawn', res));
  for (let i = 0; i < 100 && readFileSafe(lock).trim() !== String(sentinel.pid); i++) await new Promise((res) => setTimeout(res, 20));
  return sentinel.pid!;
}
const readFileSafe = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
/** Whether the demo's lock is free (nobody holds the flock). */
const lockFree = () => spawnSync('flock', ['-n', join(state, 'demo.lock'), 'true']).status === 0;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return sentinel?.exitCode === null && sentinel.signalCode === null;
  } catch {
    return false;
  }
};

/** A port another program listens on (127.0.0.1). */
async function takenPort(): Promise<number> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  return (s.address() as { port: number }).port;
}
/** A port nothing listens on (just released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const { port } = s.address() as { port: number };
  await new Promise((res) => s.close(res));
  return port;
}

describe('scripts/demo.sh refuses before anything starts', () => {
  it('Given --bogus while a kept-running demo is up, Then it exits 2 with the usage, builds nothing, and the kept demo is still up', async () => {
    const pid = await keptRunningDemo();
    const r = await demo(['--bogus']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect(r.stderr).toContain('usage: npm run demo -- [options]');
    expect(calls()).toBe('');
    expect(alive(pid)).toBe(true);
    expect(readFileSync(join(state, 'api.pid'), 'utf8').trim()).toBe(String(pid));
  });

  it.each([[['--shoes', '0']], [['--shoes=21']], [['--hands', 'many']], [['--seed']]])('Given the bad value %j, Then it exits 2 naming it, before building', async (args) => {
    const r = await demo(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--(shoes|hands|seed) (must|needs)/);
    expect(calls()).toBe('');
  });

  it('Given --help, Then it prints the usage with every option of scripts/demo.ts and exits 0, building nothing', async () => {
    const r = await demo(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: npm run demo -- [options]');
    const options = [...readFileSync(join(ROOT, 'scripts/demo.ts'), 'utf8').matchAll(/\.option\('(--[a-z-]+)/g)].map((m) => m[1]);
    expect(options).toEqual(expect.arrayContaining(['--seed', '--shoes', '--hands', '--keep-running']));
    for (const o of [...options, '--replace', '--help']) expect([o, r.stdout.includes(o)]).toEqual([o, true]);
    expect(calls()).toBe('');
  });

  it('Given a kept-running demo, When a plain second demo runs, Then it refuses (exit 1) naming npm run demo:stop and --replace, and the kept demo is still up', async () => {
    const pid = await keptRunningDemo();
    const r = await demo([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`a demo is still running: api (pid ${pid})`);
    expect(r.stderr).toContain('npm run demo:stop');
    expect(r.stderr).toContain('--replace');
    expect(calls()).toBe('');
    expect(alive(pid)).toBe(true);
  });

  it('Given a demo still building (it holds the lock, no pid file of a service yet), When a second demo runs, even with --replace, Then it refuses within 2 s naming its pid, and the first runs on', async () => {
    const pid = await buildingDemo();
    for (const args of [[], ['--replace']]) {
      const started = Date.now();
      const r = await demo(args);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`another demo is starting or running (pid ${pid}, lock ${join(state, 'demo.lock')})`);
      expect(r.stderr).toContain(`kill ${pid}`);
    }
    expect(calls()).toBe('');
    expect(alive(pid)).toBe(true);
  });

  it('Given a relative STACK_DIR, Then it is read from the current folder, as scripts/stack.sh reads it: the kept-running demo there is found', async () => {
    const pid = await keptRunningDemo();
    const r = await demo([], { STACK_DIR: 'state' }); // the demo runs in `scratch`, beside `state`
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`a demo is still running: api (pid ${pid})`);
    expect(existsSync(join(ROOT, 'state'))).toBe(false);
    expect(calls()).toBe('');
  });

  it('Given a demo that stopped (here at a taken port), Then it released the lock: the next demo is not refused by it', async () => {
    const port = await takenPort();
    const env = { PORT: String(port), RELAY_HTTP_PORT: String(await freePort()), PROJECTOR_HTTP_PORT: String(await freePort()) };
    const first = await demo([], env);
    expect(first.status).toBe(1);
    expect(existsSync(join(state, 'demo.lock'))).toBe(true);
    expect(lockFree()).toBe(true);
    const second = await demo([], env);
    expect(second.stderr).not.toContain('another demo');
    expect(second.stderr).toContain(`port ${port} (PORT, the ledger API) is taken`);
  });

  it('Given the ports of the relay and the projector are taken, Then it stops at once naming RELAY_HTTP_PORT and PROJECTOR_HTTP_PORT, before building', async () => {
    const [relay, projector, api] = [await takenPort(), await takenPort(), await freePort()];
    const r = await demo([], { PORT: String(api), RELAY_HTTP_PORT: String(relay), PROJECTOR_HTTP_PORT: String(projector) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`port ${relay} (RELAY_HTTP_PORT,`);
    expect(r.stderr).toContain(`port ${projector} (PROJECTOR_HTTP_PORT,`);
    expect(r.stderr).not.toContain(`port ${api} `);
    expect(r.stderr).toContain('run again with: RELAY_HTTP_PORT=<free port> PROJECTOR_HTTP_PORT=<free port> npm run demo');
    expect(calls()).toBe('');
  });

  it('Given two services on one port, Then it says so naming both variables', async () => {
    const api = await freePort();
    const r = await demo([], { PORT: String(api), RELAY_HTTP_PORT: String(api), PROJECTOR_HTTP_PORT: String(await freePort()) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`RELAY_HTTP_PORT=${api} is PORT's port too`);
    expect(calls()).toBe('');
  });

  it('Given --replace, Then the kept-running demo is stopped first (and a stale pid file is no demo): here the taken API port then stops the run', async () => {
    const pid = await keptRunningDemo();
    writeFileSync(join(state, 'relay.pid'), `${process.pid}\n`); // alive, but not a relay
    const port = await takenPort();
    const r = await demo(['--replace'], { PORT: String(port), RELAY_HTTP_PORT: String(await freePort()), PROJECTOR_HTTP_PORT: String(await freePort()) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--replace: stopping the demo still running: api (pid ${pid})`);
    expect(r.stderr).not.toContain('relay (pid');
    expect(r.stderr).toContain(`port ${port} (PORT, the ledger API) is taken`);
    await new Promise((res) => (sentinel!.exitCode === null && sentinel!.signalCode === null ? sentinel!.once('exit', res) : res(null)));
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(state, 'api.pid'))).toBe(false);
    expect(existsSync(join(state, 'relay.pid'))).toBe(false);
    expect(calls()).toBe('');
  });
});
