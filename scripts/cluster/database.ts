/**
 * The cluster's PostgreSQL pair as the cluster command uses it (docs/operations.md, "The
 * production topology"): a primary and a synchronous streaming standby under
 * `<cluster>/postgres` (`./postgres`), with the ledger's roles and database on the primary; and the
 * relay lease row, read on whichever server is the primary now.
 */
import { Client } from 'pg';
import { down, promote, rejoin, status, up, type PairStatus } from './postgres';
import type { Topology } from './topology';

const ports = (t: Topology) => ({ primary: t.postgres.primaryPort, standby: t.postgres.standbyPort });

/** Creates (once) and starts the pair, waits until the standby is synchronous, and makes the `ledger` database. */
export async function postgresUp(t: Topology, log: (line: string) => void): Promise<void> {
  const s = await up(t.postgres.dir, ports(t), { databases: ['ledger'], log: (l) => log(l) });
  log(`postgres: primary 127.0.0.1:${s.primary?.port ?? '?'}, standby ${s.standby ? `127.0.0.1:${s.standby.port} (${s.syncState})` : 'none'}`);
}

/** Stops both servers (fast shutdown); the data stay. */
export async function postgresDown(t: Topology, log: (line: string) => void): Promise<void> {
  await down(t.postgres.dir);
  log('postgres: stopped');
}

/**
 * `npm run cluster -- rejoin`: after a failover (the standby promoted), the old primary's folder
 * becomes the synchronous standby of the promoted server (`./postgres`'s `rejoin`: pg_basebackup).
 * @throws Error as `rejoin` does (no promotion to undo, the old primary still running, …)
 */
export async function postgresRejoin(t: Topology, log: (line: string) => void): Promise<void> {
  const s = await rejoin(t.postgres.dir, { log });
  log(`postgres: primary 127.0.0.1:${s.primary?.port ?? '?'} (${s.primary?.name ?? '?'}), standby 127.0.0.1:${s.standby?.port ?? '?'} (${s.standby?.name ?? '?'}, ${s.syncState})`);
}

/**
 * `npm run cluster -- promote`: the primary is lost; the standby becomes the primary
 * (`./postgres`'s `promote`: `pg_promote()`, and the pair remembers it, so `up` never starts the old
 * primary's folder again — a manual `pg_ctl promote` would not tell it, and `up` would start a
 * second primary). The services' multi-host URLs follow on their next connection.
 * @throws Error when a primary still runs (two primaries) or no standby runs
 */
export async function postgresPromote(t: Topology, log: (line: string) => void): Promise<void> {
  const s = await promote(t.postgres.dir);
  log(`postgres: ${s.primary?.name ?? '?'} promoted, primary 127.0.0.1:${s.primary?.port ?? '?'}, no standby until \`npm run cluster -- rejoin\``);
}

/** The pair as `status` reports it. */
export interface PostgresPairStatus {
  /** A primary runs and a standby replicates from it synchronously. */
  readonly healthy: boolean;
  /** One line per server, and the replication. */
  readonly lines: readonly string[];
  /** What the pair module read (null when there is no pair yet). */
  readonly pair: PairStatus | null;
}

/**
 * The pair's status as `status` reports it, from one read of the pair ({@link readPair}); never
 * throws (no pair yet: not healthy, one line saying so).
 */
export function postgresStatus(pair: PairStatus | null): PostgresPairStatus {
  if (!pair) return { healthy: false, lines: ['postgres     no pair yet (run up)'], pair: null };
  const lines = pair.nodes.map((n) => `${n.name.padEnd(12)} ${n.role === 'down' ? 'DOWN' : 'up  '} ${n.pid ? `pid ${n.pid}` : 'no process'}`.padEnd(32) + ` 127.0.0.1:${n.port}  ${n.role}`);
  lines.push(`replication  standby ${pair.syncState ?? 'not connected'}, replay lag ${pair.replayLagBytes ?? '?'} bytes${pair.promoted ? ' (the standby was promoted)' : ''}`);
  return { healthy: pair.primary !== null && pair.syncState === 'sync', lines, pair };
}

/** The pair as `./postgres`'s `status` reads it (each server asked once); null when there is no pair yet or it cannot be read. */
export function readPair(t: Topology): Promise<PairStatus | null> {
  return status(t.postgres.dir).catch(() => null);
}

/**
 * The holder of the relay's lease row (`<host>:<pid>:<nonce>`) when it is live, read on the primary;
 * null when none or no primary.
 * @param pair the pair as already read ({@link readPair}) @default read now
 */
export async function relayLeaseHolder(t: Topology, pair?: PairStatus | null): Promise<string | null> {
  const p = pair === undefined ? await readPair(t) : pair;
  if (!p?.primary) return null;
  const c = new Client({ host: '127.0.0.1', port: p.primary.port, user: 'ledger_owner', password: 'ledger_owner', database: 'ledger', connectionTimeoutMillis: 2000 });
  await c.connect();
  try {
    const r = await c.query<{ holder: string }>(`SELECT holder FROM public.outbox_leases WHERE name = 'ledger-relay' AND expires_at > clock_timestamp()`);
    return r.rows[0]?.holder ?? null;
  } finally {
    await c.end();
  }
}
