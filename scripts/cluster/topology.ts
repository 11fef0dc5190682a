/**
 * The production-shaped topology `npm run cluster` runs on one machine (docs/operations.md, "The
 * production topology"): three Kafka brokers (KRaft, each broker and controller), a PostgreSQL
 * primary with a synchronous streaming standby, a Redis for the API instances' shared limits, two
 * API instances behind HAProxy, two relays (the lease decides which publishes) and two projectors
 * in one consumer group. Every member gets a port from one base (`CLUSTER_PORT_BASE`) and a folder
 * under `<STACK_DIR>/cluster/`; nothing of the machine's own services is used or touched.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliUsageError } from '@ledger/cli';

/** The checkout this file lives in. */
export const REPO_ROOT = resolve(__dirname, '../..');

/** How many of each member the topology runs. */
export const COUNTS = { brokers: 3, apis: 2, relays: 2, projectors: 2 } as const;

/** Replication of every topic on the cluster, and the replicas that must acknowledge a write. */
export const REPLICATION = { factor: 3, minInsync: 2 } as const;

/** The cluster's KRaft cluster id (any 16 bytes, URL-safe base64). */
export const KAFKA_CLUSTER_ID = 'q3b3LedgerClust3rId0Aw';

/** One Kafka node: broker and controller in one process. */
export interface BrokerSpec {
  /** `node.id`, 1..{@link COUNTS.brokers}. */
  readonly nodeId: number;
  /** Client listener port (`PLAINTEXT`). */
  readonly port: number;
  /** Controller listener port (`CONTROLLER`). */
  readonly controllerPort: number;
  /** Its folder: `server.properties`, `data/`, logs, pid file. */
  readonly dir: string;
}

/** One ledger service process of the topology. */
export interface ServiceSpec {
  /** Its name in `status` and its pid and log files: `api-1`, `relay-2`, `projector-1`, … */
  readonly name: string;
  readonly app: 'api' | 'relay' | 'projector';
  /** The port of its HTTP listener (the API, or the relay's and the projector's health and metrics). */
  readonly port: number;
}

/** Every folder, port and member of one cluster. */
export interface Topology {
  /** `<STACK_DIR>/cluster`. */
  readonly dir: string;
  /** The Kafka jars (`scripts/stack.sh fetch` puts them there; shared with the single-node stack). */
  readonly kafkaLibs: string;
  readonly brokers: readonly BrokerSpec[];
  /** `127.0.0.1:<port>` of every broker, comma-separated (what the services get as `KAFKA_BROKERS`). */
  readonly bootstrap: string;
  readonly postgres: { readonly dir: string; readonly primaryPort: number; readonly standbyPort: number };
  readonly redis: { readonly dir: string; readonly port: number };
  /** HAProxy: the one address clients use, and its statistics page (CSV at `/stats;csv`). */
  readonly balancer: { readonly dir: string; readonly port: number; readonly statsPort: number };
  readonly services: readonly ServiceSpec[];
  /** Pid files and logs of the services. */
  readonly runDir: string;
  /** Settings every ledger service gets on top of the topology's own (a fault run turns the automatic gaming-day close off). */
  readonly serviceEnv: Readonly<Record<string, string>>;
}

/** The default base port: members use base+80 … base+433. */
export const DEFAULT_PORT_BASE = 29_000;

/** The highest port a member uses above the base (the PostgreSQL standby, base+433). */
const SPAN = 433;

/**
 * The kernel's range of ephemeral ports (`/proc/sys/net/ipv4/ip_local_port_range`, Linux's default
 * 32768–60999): any outgoing connection may take one as its local port, so a listener there can
 * find its port taken. Null where the file cannot be read.
 */
function ephemeralPorts(): [number, number] | null {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(lo) && Number.isInteger(hi) ? [lo, hi] : null;
  } catch {
    return null;
  }
}

/**
 * The topology for `stackDir` and `base` (ports: brokers base+92.., controllers base+192..,
 * PostgreSQL base+432/433, Redis base+379, HAProxy base+80 and stats base+89, APIs base+81..,
 * relays base+101.., projectors base+111..).
 * @param stackDir the checkout's `.stack` (or `STACK_DIR`), absolute
 * @param base the base port (1024 < base ≤ 65,000)
 * @param serviceEnv settings every ledger service gets on top of the topology's own
 * @throws Error when `base` is out of range, or its ports overlap the kernel's ephemeral ports
 */
export function topology(stackDir: string, base: number = DEFAULT_PORT_BASE, serviceEnv: Readonly<Record<string, string>> = {}): Topology {
  if (!Number.isInteger(base) || base <= 1024 || base > 65_000) throw new Error(`CLUSTER_PORT_BASE must be an integer 1025..65000, got ${base}`);
  const eph = ephemeralPorts();
  if (eph && base + SPAN >= eph[0] && base <= eph[1]) {
    throw new Error(
      `CLUSTER_PORT_BASE ${base}: ports ${base}..${base + SPAN} overlap the kernel's ephemeral ports ${eph[0]}..${eph[1]} (ip_local_port_range), where an outgoing connection can take a listener's port; choose a base below ${eph[0] - SPAN}`,
    );
  }
  const dir = join(stackDir, 'cluster');
  const brokers = Array.from({ length: COUNTS.brokers }, (_, i) => ({
    nodeId: i + 1,
    port: base + 92 + i,
    controllerPort: base + 192 + i,
    dir: join(dir, `kafka-${i + 1}`),
  }));
  const n = (app: ServiceSpec['app'], count: number, first: number): ServiceSpec[] => Array.from({ length: count }, (_, i) => ({ name: `${app}-${i + 1}`, app, port: first + i }));
  return {
    dir,
    kafkaLibs: join(stackDir, 'kafka', 'libs'),
    brokers,
    bootstrap: brokers.map((b) => `127.0.0.1:${b.port}`).join(','),
    postgres: { dir: join(dir, 'postgres'), primaryPort: base + 432, standbyPort: base + 433 },
    redis: { dir: join(dir, 'redis'), port: base + 379 },
    balancer: { dir: join(dir, 'haproxy'), port: base + 80, statsPort: base + 89 },
    services: [...n('api', COUNTS.apis, base + 81), ...n('relay', COUNTS.relays, base + 101), ...n('projector', COUNTS.projectors, base + 111)],
    runDir: join(dir, 'services'),
    serviceEnv,
  };
}

/**
 * The base port of `CLUSTER_PORT_BASE`'s raw text: {@link DEFAULT_PORT_BASE} when unset; else
 * decimal digits only (surrounding blanks ignored).
 * @throws CliUsageError quoting the raw text when it is set but empty, or not a whole number
 */
export function portBaseFromEnv(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT_BASE;
  if (!/^\s*\d{1,6}\s*$/.test(raw)) throw new CliUsageError(`CLUSTER_PORT_BASE must be a whole number 1025..65000 (or unset for ${DEFAULT_PORT_BASE}), got ${JSON.stringify(raw)}`);
  return Number(raw.trim());
}

/**
 * The topology of this checkout: `STACK_DIR` (default `<repo>/.stack`) and `CLUSTER_PORT_BASE`
 * (default {@link DEFAULT_PORT_BASE}; see {@link portBaseFromEnv}).
 * @throws CliUsageError (one line, quoting the raw text) when `CLUSTER_PORT_BASE` is empty, not a
 *   whole number, out of range or overlaps the ephemeral ports
 */
export function topologyFromEnv(env: NodeJS.ProcessEnv = process.env): Topology {
  const stackDir = resolve(env.STACK_DIR ?? join(REPO_ROOT, '.stack'));
  const base = portBaseFromEnv(env.CLUSTER_PORT_BASE);
  try {
    return topology(stackDir, base);
  } catch (e) {
    throw new CliUsageError(`${e instanceof Error ? e.message : String(e)} (CLUSTER_PORT_BASE=${JSON.stringify(env.CLUSTER_PORT_BASE)})`);
  }
}

/**
 * Settings for a cluster that carries a synthetic load (the fault run, the cluster bench), as
 * {@link Topology.serviceEnv}: no automatic gaming-day close, clock or configuration attestation nor significant-event
 * monitor (every event is then an answer to the load), and rate budgets above what the load asks (they are shared by both API instances through
 * Redis, and the load's one table device and pit managers deal far faster than a table does).
 */
export const LOAD_RUN_ENV: Readonly<Record<string, string>> = {
  GAMING_DAY_CLOSE_SWEEP_MS: '0',
  CLOCK_ATTESTATION_INTERVAL_MS: '0',
  CONFIGURATION_ATTESTATION: 'false',
  SIGNIFICANT_MONITOR: 'false',
  ...Object.fromEntries(['RATE_LIMIT_PER_ADDRESS', 'RATE_LIMIT_TABLE_DEVICE', 'RATE_LIMIT_BETTING_PLATFORM', 'RATE_LIMIT_PIT_MANAGER', 'RATE_LIMIT_AUDITOR'].map((k) => [k, '100000000'])),
};
