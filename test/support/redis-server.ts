import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * A Redis of a spec's own (never the machine's): `redis-server` (`REDIS_SERVER`, else the one on
 * PATH; scripts/ensure-package.sh installs it) on a free loopback port, without persistence
 * (`--save '' --appendonly no`), its directory under `.stack/`, removed when stopped.
 */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Kills it (SIGKILL: what a crash looks like to its clients) and removes its directory. */
  stop(): Promise<void>;
}

/** A free TCP port on the loopback. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

/**
 * Starts a Redis of the spec's own and waits until it accepts connections.
 * @throws Error when it does not start within 10 s (its output in the message)
 */
export async function startRedis(): Promise<TestRedis> {
  const base = resolve(__dirname, '../../.stack');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'redis-'));
  const port = await freePort();
  const child = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
