/**
 * `npm run demo` (scripts/demo.sh) once it starts the services: it waits for all three (the API,
 * the relay and the projector each on its own port), and one that exits at start stops the run at
 * once with the lines its log ends with, the others stopped too, even with `--keep-running`. The
 * real demo.sh, demo-common.sh and demo-stop.sh run in a scratch checkout whose scripts/stack.sh,
 * `npm` (the build) and `npx` (scripts/demo.ts) are stand-ins, and whose `node` starts, for each
 * service, a small HTTP listener on the service's port (its command line naming the service's entry
 * point), or, for a relay told to fail, exits 1 with the relay's one-line start failure. Before:
 * only the API was waited for; a relay or projector that had exited surfaced minutes later as
 * "projections did not catch up".
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '../..');
const FAILURE = 'ledger-relay: STARTUP.DATABASE_UNREACHABLE: the database 127.0.0.1:1/ledger does not answer (connect ECONNREFUSED 127.0.0.1:1): start PostgreSQL (npm run stack:up) or point DATABASE_URL at one that does';

/** The stand-in `node`: the service named by its last argument listens on its port, or the relay fails when FAIL_RELAY is set. */
const FAKE_NODE = `#!/usr/bin/env bash
main="\${@: -1}"
listen() { exec "$REAL_NODE" -e 'require("http").createServer((q, r) => r.end("ok")).listen(Number(process.argv[1]), "127.0.0.1")' "$1" "$main"; }
case "$main" in
  dist/apps/ledger/src/main.js) listen "$PORT" ;;
  dist/apps/relay/src/main.js) if [ -n "$FAIL_RELAY" ]; then echo '{"level":30,"msg":"relay starting"}'; echo "${FAILURE}" >&2; exit 1; fi; listen "$RELAY_HTTP_PORT" ;;
  dist/apps/projector/src/main.js) listen "$PROJECTOR_HTTP_PORT" ;;
esac
`;

let scratch: string;
let repo: string;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'demo-start-'));
  repo = join(scratch, 'repo');
  mkdirSync(join(repo, 'scripts'), { recursive: true });
  mkdirSync(join(repo, 'node_modules'));
  for (const f of ['demo.sh', 'demo-common.sh', 'demo-stop.sh']) copyFileSync(join(ROOT, 'scripts', f), join(repo, 'scripts', f));
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  const write = (path: string, text: string) => {
    writeFileSync(path, text);
    chmodSync(path, 0o755);
  };
  write(join(repo, 'scripts/stack.sh'), '#!/usr/bin/env bash\necho "stack $*" >>"$CALLS"\n');
  write(join(bin, 'npm'), '#!/usr/bin/env bash\necho "npm $*" >>"$CALLS"\n');
  write(join(bin, 'npx'), '#!/usr/bin/env bash\necho "npx $*" >>"$CALLS"\n');
  write(join(bin, 'node'), FAKE_NODE);
});

afterEach(async () => {
  const stop = spawn('bash', [join(repo, 'scripts/demo-stop.sh')], { stdio: 'ignore' });
  await new Promise((res) => stop.on('close', res));
  rmSync(scratch, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const { port } = s.address() as { port: number };
  await new Promise((res) => s.close(res));
  return port;
}

let ports: Record<string, string> = {};
beforeEach(async () => {
  ports = { PORT: String(await freePort()), RELAY_HTTP_PORT: String(await freePort()), PROJECTOR_HTTP_PORT: String(await freePort()) };
});

/** Runs the scratch checkout's scripts/demo.sh; resolves its exit status and stderr. */
function demo(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  return new Promise((res, rej) => {
    const e: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(scratch, 'bin')}:${process.env.PATH}`, REAL_NODE: process.execPath, CALLS: join(scratch, 'calls'), ...ports, ...env };
    delete e.STACK_DIR;
    delete e.LEDGER_API;
    const child = spawn('bash', [join(repo, 'scripts/demo.sh'), ...args], { cwd: scratch, env: e, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', rej);
    child.on('close', (status) => res({ status, stderr }));
  });
}

const pidFile = (name: string) => join(repo, '.stack', `${name}.pid`);
/** Whether `pid` runs: a zombie (exited, not reaped yet by whoever adopted it) does not. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('scripts/demo.sh starting the services', () => {
  it('Given a relay that exits at start, Then the demo stops at once with its one line, and stops the API and the projector though --keep-running', async () => {
    const r = await demo(['--keep-running'], { FAIL_RELAY: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the relay did not start; see');
    expect(r.stderr).toContain(FAILURE);
    expect(r.stderr).toMatch(/stopped projector[\s\S]*stopped api/);
    expect(['api', 'relay', 'projector'].filter((n) => existsSync(pidFile(n)))).toEqual([]);
    expect(readFileSync(join(scratch, 'calls'), 'utf8')).not.toContain('npx tsx scripts/demo.ts');
  });

  it('Given all three come up with --keep-running, Then they stay up, a plain demo refuses to stop them, and --replace does', async () => {
    const kept = await demo(['--keep-running', '--shoes', '2']);
    expect(kept.status).toBe(0);
    expect(readFileSync(join(scratch, 'calls'), 'utf8')).toContain('npx tsx scripts/demo.ts --keep-running --shoes 2');
    const pids = ['api', 'relay', 'projector'].map((n) => Number(readFileSync(pidFile(n), 'utf8')));
    expect(pids.map(alive)).toEqual([true, true, true]);

    const second = await demo([]);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`a demo is still running: api (pid ${pids[0]}) relay (pid ${pids[1]}) projector (pid ${pids[2]})`);
    expect(pids.map(alive)).toEqual([true, true, true]);

    const replaced = await demo(['--replace', '--hands', '0']);
    expect(replaced.status).toBe(0);
    expect(replaced.stderr).toContain('--replace: stopping the demo still running');
    expect(pids.map(alive)).toEqual([false, false, false]);
    // and that run, not kept, stopped its own services at its end
    expect(['api', 'relay', 'projector'].filter((n) => existsSync(pidFile(n)))).toEqual([]);
  });
});
