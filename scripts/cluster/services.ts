/**
 * The ledger's own processes in the cluster (docs/operations.md, "The production topology"): two
 * API instances, two relays and two projectors, each a `node` process from `dist/` with its
 * service's heap (`SERVICE_HEAP_MIB`), detached, its pid and log under `<cluster>/services/`.
 * Every one connects to PostgreSQL through a multi-host URL that follows the primary
 * (`target_session_attrs=read-write`) and to all three brokers; the APIs share their limits
 * through the cluster's Redis (its password in `LIMITS_REDIS_URL`) and trust HAProxy's `X-Forwarded-For` (loopback).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { heapOption, type HeapSizedService } from '../../libs/config/src/heap';
import { redisPassword } from './balancer';
import { livePid, startDetached, stopMember, waitUntil } from './processes';
import { REPO_ROOT, type ServiceSpec, type Topology } from './topology';

const ENTRY: Record<ServiceSpec['app'], string> = {
  api: 'dist/apps/ledger/src/main.js',
  relay: 'dist/apps/relay/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
};
const HEAP: Record<ServiceSpec['app'], HeapSizedService> = { api: 'ledger', relay: 'relay', projector: 'projector' };

/** The database URL of each login, every one multi-host (primary first, then the standby). */
export interface ClusterDatabaseUrls {
  readonly app: string;
  readonly relay: string;
  readonly projector: string;
  readonly owner: string;
}

/** The multi-host URLs of the cluster's `ledger` database for each login (passwords as scripts/database-roles.sql sets them). */
export function clusterDatabaseUrls(t: Topology): ClusterDatabaseUrls {
  const hosts = `127.0.0.1:${t.postgres.primaryPort},127.0.0.1:${t.postgres.standbyPort}`;
  const url = (role: string) => `postgres://${role}:${role}@${hosts}/ledger?target_session_attrs=read-write`;
  return { app: url('ledger_app'), relay: url('ledger_relay'), projector: url('ledger_projector'), owner: url('ledger_owner') };
}

/** The environment of service `s`. */
export function serviceEnv(t: Topology, s: ServiceSpec): Record<string, string> {
  const db = clusterDatabaseUrls(t);
  const common: Record<string, string> = {
    LEDGER_ENV: process.env.LEDGER_ENV ?? 'development',
    LOG_LEVEL: 'info',
    KAFKA_BROKERS: t.bootstrap,
    DATABASE_URL: db.app,
    RELAY_DATABASE_URL: db.relay,
    PROJECTOR_DATABASE_URL: db.projector,
    MIGRATIONS_DATABASE_URL: db.owner,
    // the cluster's own anchor file (the checkout's development keys sign it)
    ANCHOR_FILE: join(t.dir, 'anchors', 'anchors.jsonl'),
    TS_NODE_BASEURL: './dist',
  };
  return { ...ownEnv(t, s, common), ...t.serviceEnv };
}

function ownEnv(t: Topology, s: ServiceSpec, common: Record<string, string>): Record<string, string> {
  switch (s.app) {
    case 'api':
      return { ...common, PORT: String(s.port), HOST: '127.0.0.1', TRUST_PROXY: 'loopback', LIMITS_REDIS_URL: `redis://:${redisPassword(t)}@127.0.0.1:${t.redis.port}` };
    case 'relay':
      return { ...common, RELAY_HTTP_PORT: String(s.port) };
    case 'projector':
      return { ...common, PROJECTOR_HTTP_PORT: String(s.port) };
  }
}

const pidOf = (t: Topology, s: ServiceSpec) => join(t.runDir, `${s.name}.pid`);
/** What tells a service's process from a recycled pid: an argument its command line carries (the services ignore it). */
const markerOf = (s: ServiceSpec) => `--cluster-member=${s.name}`;

/** The URL that says whether service `s` is up: the API's readiness, the others' liveness. */
export function healthUrl(s: ServiceSpec): string {
  return s.app === 'api' ? `http://127.0.0.1:${s.port}/health/ready` : `http://127.0.0.1:${s.port}/health/live`;
}

/** Starts service `s` unless it runs. @returns its pid and whether this call started it @throws Error when `dist/` lacks it */
export function startService(t: Topology, s: ServiceSpec): { pid: number; started: boolean } {
  if (!existsSync(join(REPO_ROOT, ENTRY[s.app]))) throw new Error(`${ENTRY[s.app]} is missing: run \`npm run -s build\` first`);
  return startDetached({
    name: s.name,
    cmd: process.execPath,
    args: [heapOption(HEAP[s.app]), '-r', 'tsconfig-paths/register', ENTRY[s.app], markerOf(s)],
    env: serviceEnv(t, s),
    cwd: REPO_ROOT,
    pidFile: pidOf(t, s),
    logFile: join(t.runDir, `${s.name}.log`),
    marker: markerOf(s),
  });
}

/** Waits until service `s` answers its health URL with 200. @throws Error after `timeoutMs` */
export async function waitHealthy(s: ServiceSpec, timeoutMs: number): Promise<void> {
  await waitUntil(s.name, async () => (await fetch(healthUrl(s), { signal: AbortSignal.timeout(2000) })).status === 200, timeoutMs, 500);
}

/** The pid of service `s` when it runs. */
export function servicePid(t: Topology, s: ServiceSpec): number | null {
  return livePid(pidOf(t, s), markerOf(s));
}

/** Stops service `s` (SIGTERM: it finishes its work; SIGKILL after 30 s). */
export function stopService(t: Topology, s: ServiceSpec): Promise<'not running' | 'stopped' | 'killed'> {
  return stopMember({ pidFile: pidOf(t, s), marker: markerOf(s), graceMs: 30_000 });
}
