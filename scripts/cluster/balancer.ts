/**
 * The cluster's front door and shared-limits store (docs/operations.md, "The production topology"):
 * HAProxy (Debian's package) balancing the API instances, and a Redis of the cluster's own that the
 * instances share their limits through, behind a password (`requirepass`) generated once into
 * `<cluster>/redis/password` (mode 0600). Both run from the machine's binaries, found (and installed
 * when missing, as root on Debian) by `scripts/ensure-package.sh`.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { livePid, portOpen, startDetached, stopMember, waitUntil } from './processes';
import { REPO_ROOT, type Topology } from './topology';

/** The path of `program`, installed from `debianPackage` when missing. @throws Error when it cannot be found or installed */
export function ensureProgram(program: string, debianPackage: string): string {
  const r = spawnSync('bash', ['scripts/ensure-package.sh', program, debianPackage], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${program} is missing and could not be installed (scripts/ensure-package.sh)`);
  return r.stdout.trim();
}

const cfgOf = (t: Topology) => join(t.balancer.dir, 'haproxy.cfg');
const redisConfOf = (t: Topology) => join(t.redis.dir, 'redis.conf');
const passwordFileOf = (t: Topology) => join(t.redis.dir, 'password');

/**
 * The password of the cluster's Redis: read from `<cluster>/redis/password`, or generated there
 * first (24 random bytes as 48 hex characters, the file mode 0600, its folder created): the same
 * one for every `up` of the cluster until the folder is deleted. The APIs get it in
 * `LIMITS_REDIS_URL` (`redis://:<password>@127.0.0.1:<port>`), Redis as `requirepass`.
 * @throws Error when the file exists but is empty
 */
export function redisPassword(t: Topology): string {
  const file = passwordFileOf(t);
  if (!existsSync(file)) {
    mkdirSync(t.redis.dir, { recursive: true });
    writeFileSync(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const password = readFileSync(file, 'utf8').trim();
  if (!password) throw new Error(`${file} is empty: delete it and run up again (a new password is generated)`);
  return password;
}

/** The configuration of the cluster's Redis (loopback only, no persistence, `requirepass`). */
export function redisConfig(t: Topology): string {
  return [`bind 127.0.0.1`, `port ${t.redis.port}`, `dir ${t.redis.dir}`, `save ""`, 'appendonly no', 'protected-mode yes', `requirepass ${redisPassword(t)}`, ''].join('\n');
}
/** Redis rewrites its command line to `redis-server <address>`: what tells it from a recycled pid. */
const redisMarker = (t: Topology) => `redis-server 127.0.0.1:${t.redis.port}`;

/**
 * The HAProxy configuration: one frontend on `balancer.port`; a shoe's requests (`/shoes/{id}…`,
 * `/v1/shoes/{id}…`) go to one API instance chosen by a consistent hash of the shoe id (backend
 * `apis_by_shoe`), so its cached shoe state stays warm (with round robin every other request found
 * the state another instance had moved on and reloaded it: twice the API's CPU per event, half the
 * batched ingest, bench/results/cluster-latest.json); everything else round robin (backend `apis`).
 * Correctness does not depend on the affinity: every append is checked against the stream's version.
 * Each instance is checked with `GET /health/ready` every second (out after 2 failures, back after 2
 * successes; the shoe backend tracks those checks), and an instance that is out loses only its share
 * of the shoes to the others; a request whose connection to an instance failed is sent to another
 * (nothing of it reached the first: `retry-on conn-failure`); `X-Forwarded-For` set for the APIs'
 * `TRUST_PROXY`; long timeouts for the live streams; statistics at `/stats` on `balancer.statsPort`.
 */
export function haproxyConfig(t: Topology): string {
  const apis = t.services.filter((s) => s.app === 'api');
  return `# Written by scripts/cluster/balancer.ts on every start; edit the script, not this file.
global
  maxconn 4096

defaults
  mode http
  option forwardfor
  option redispatch
  retries 2
  retry-on conn-failure
  timeout connect 2s
  timeout client 5m
  timeout server 5m
  timeout tunnel 1h
  timeout http-request 30s
  # above the API's readiness bound (READY_SYNC_COMMIT_TIMEOUT_MS, at most 1000 ms): a check that waits for it gets its 503
  timeout check 2s

frontend ledger
  bind 127.0.0.1:${t.balancer.port}
  acl shoe_request path_reg ^(/v1)?/shoes/[^/]+
  use_backend apis_by_shoe if shoe_request
  default_backend apis

backend apis
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
${apis.map((a) => `  server ${a.name} 127.0.0.1:${a.port} check inter 1s fall 2 rise 2`).join('\n')}

backend apis_by_shoe
  balance hash path,regsub(^/v1/,/),field(3,/)
  hash-type consistent
${apis.map((a) => `  server ${a.name} 127.0.0.1:${a.port} track apis/${a.name}`).join('\n')}

listen stats
  bind 127.0.0.1:${t.balancer.statsPort}
  stats enable
  stats uri /stats
  stats refresh 5s
`;
}

/** Starts HAProxy (when it is down) and waits until it listens. @returns its pid @throws Error with its log's last lines when it does not listen within 15 s */
export async function balancerUp(t: Topology): Promise<number> {
  const haproxy = ensureProgram('haproxy', 'haproxy');
  mkdirSync(t.balancer.dir, { recursive: true });
  writeFileSync(cfgOf(t), haproxyConfig(t));
  const check = spawnSync(haproxy, ['-c', '-q', '-f', cfgOf(t)], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused ${cfgOf(t)}: ${check.stderr.trim()}`);
  const pidFile = join(t.balancer.dir, 'haproxy.pid');
  const logFile = join(t.balancer.dir, 'haproxy.log');
  const { pid } = startDetached({ name: 'haproxy', cmd: haproxy, args: ['-db', '-f', cfgOf(t)], cwd: t.balancer.dir, pidFile, logFile, marker: cfgOf(t) });
  await listening('haproxy', t.balancer.port, logFile);
  return pid;
}

/** Waits until `port` accepts connections. @throws Error naming `name` with the last lines of `logFile` after 15 s */
async function listening(name: string, port: number, logFile: string): Promise<void> {
  await waitUntil(`${name} on 127.0.0.1:${port}`, () => portOpen(port), 15_000, 200).catch((e: unknown) => {
    const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-4).join(' | ');
    throw new Error(`${e instanceof Error ? e.message : String(e)}; its log (${logFile}): ${tail}`);
  });
}

/** Starts the cluster's Redis (no persistence: it holds only the limits' windows and leases; {@link redisConfig}) and waits until it listens. @returns its pid @throws Error as {@link balancerUp} */
export async function redisUp(t: Topology): Promise<number> {
  const redis = ensureProgram('redis-server', 'redis-server');
  mkdirSync(t.redis.dir, { recursive: true });
  // it holds the password: readable by this user only, also when an older one was written wider
  writeFileSync(redisConfOf(t), redisConfig(t), { mode: 0o600 });
  chmodSync(redisConfOf(t), 0o600);
  const pidFile = join(t.redis.dir, 'redis.pid');
  const logFile = join(t.redis.dir, 'redis.log');
  const { pid } = startDetached({ name: 'redis', cmd: redis, args: [redisConfOf(t)], cwd: t.redis.dir, pidFile, logFile, marker: redisMarker(t) });
  await listening('redis', t.redis.port, logFile);
  return pid;
}

/**
 * Whether the Redis on `port` answers `AUTH <password>` then `PING` with `+OK` and `+PONG` within 2 s
 * (what `status` counts as Redis up); false on any other answer (e.g. `-WRONGPASS`, `-NOAUTH`) or none.
 */
export function redisAnswers(port: number, password: string | null): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = '';
    const want = password === null ? '+PONG\r\n' : '+OK\r\n+PONG\r\n';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write(`${password === null ? '' : `AUTH ${password}\r\n`}PING\r\n`));
    socket.on('data', (d) => {
      got += d.toString('utf8');
      if (got === want) done(true);
      else if (!want.startsWith(got)) done(false);
    });
  });
}

/** The pids of HAProxy and Redis when they run. */
export function balancerPids(t: Topology): { haproxy: number | null; redis: number | null } {
  return { haproxy: livePid(join(t.balancer.dir, 'haproxy.pid'), cfgOf(t)), redis: livePid(join(t.redis.dir, 'redis.pid'), redisMarker(t)) };
}

/** Stops HAProxy and Redis. @returns how each ended */
export async function balancerDown(t: Topology): Promise<{ haproxy: string; redis: string }> {
  const haproxy = await stopMember({ pidFile: join(t.balancer.dir, 'haproxy.pid'), marker: cfgOf(t), graceMs: 10_000, signal: 'SIGUSR1' });
  const redis = await stopMember({ pidFile: join(t.redis.dir, 'redis.pid'), marker: redisMarker(t), graceMs: 10_000 });
  return { haproxy, redis };
}

/** One API instance as HAProxy sees it: `UP`, `DOWN`, `MAINT`, … and the requests it was sent. */
export interface BackendState {
  readonly name: string;
  readonly status: string;
  readonly requests: number;
}

/** The API instances' states from HAProxy's statistics (CSV). @throws when the statistics page does not answer */
export async function backendStates(t: Topology): Promise<BackendState[]> {
  const res = await fetch(`http://127.0.0.1:${t.balancer.statsPort}/stats;csv`, { signal: AbortSignal.timeout(2000) });
  const lines = (await res.text()).trim().split('\n');
  const head = lines[0].replace(/^# /, '').split(',');
  const col = (name: string) => head.indexOf(name);
  const rows = lines.slice(1).map((l) => l.split(','));
  // an instance's requests: those of both backends (round robin, and by shoe)
  const sent = (server: string) => rows.filter((c) => (c[col('pxname')] === 'apis' || c[col('pxname')] === 'apis_by_shoe') && c[col('svname')] === server).reduce((n, c) => n + Number(c[col('stot')]), 0);
  return rows.filter((c) => c[col('pxname')] === 'apis' && c[col('svname')] !== 'BACKEND' && c[col('svname')] !== 'FRONTEND').map((c) => ({ name: c[col('svname')], status: c[col('status')], requests: sent(c[col('svname')]) }));
}
