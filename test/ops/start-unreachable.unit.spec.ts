/**
 * The relay and the projector, started as processes with DATABASE_URL at a port where nothing
 * listens, exit 1 at once with one line on stderr: the code (`STARTUP.DATABASE_UNREACHABLE`), the
 * place and the variable to set; no stack trace (docs/architecture.md §5). Before: the projector
 * printed `Error: connect ECONNREFUSED` with its stack, the relay kept retrying with JSON log lines.
 * (The API runs the same check from `dist/`; libs/infra/src/health/preflight.unit.spec.ts checks it
 * and the broker's.)
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '../..');

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const { port } = s.address() as { port: number };
  await new Promise((res) => s.close(res));
  return port;
}

/** Runs `npx tsx <main>` with `env`; resolves its exit status and stderr. */
function start(main: string, env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((res, rej) => {
    const base = { ...process.env };
    for (const k of ['RELAY_DATABASE_URL', 'PROJECTOR_DATABASE_URL', 'MIGRATIONS_DATABASE_URL', 'KAFKA_BROKERS']) delete base[k];
    const child = spawn('npx', ['tsx', main], { cwd: ROOT, env: { ...base, LEDGER_ENV: 'development', RELAY_HTTP_PORT: '0', PROJECTOR_HTTP_PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', rej);
    child.on('close', (status) => res({ status, stderr }));
  });
}

describe.each([
  ['apps/relay/src/main.ts', 'ledger-relay'],
  ['apps/projector/src/main.ts', 'projector'],
])('%s with the database unreachable', (main, prefix) => {
  it('exits 1 with one line: the code, the place, DATABASE_URL; no stack trace', async () => {
    const port = await closedPort();
    const r = await start(main, { DATABASE_URL: `postgres://ledger_app:ledger_app@127.0.0.1:${port}/ledger` });
    expect(r.status).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `${prefix}: STARTUP.DATABASE_UNREACHABLE: the database 127.0.0.1:${port}/ledger does not answer (connect ECONNREFUSED 127.0.0.1:${port}): start PostgreSQL (npm run stack:up) or point DATABASE_URL at one that does`,
    ]);
  });
});
