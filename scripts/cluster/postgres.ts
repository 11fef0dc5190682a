/**
 * The cluster's PostgreSQL (docs/operations.md, "A primary with a synchronous standby"): a primary
 * and a streaming standby on this machine, each initdb'd under one folder (`<dir>/pg-primary`,
 * `<dir>/pg-standby`) with its own port on 127.0.0.1, the standby synchronous
 * (`synchronous_standby_names = 'FIRST 1 (standby1)'`, `synchronous_commit = on`): a commit
 * returns once the standby has the commit on disk too, so an acknowledged append survives the loss
 * of the primary. The services reach the pair with a multi-host URL ({@link pairUrl}) and follow
 * the primary (`@ledger/infra`'s `pgClientConfig` and `pgPoolConfig`).
 *
 * Superuser `postgres`, `trust` authentication on 127.0.0.1 only (no Unix socket), replication
 * connections included; the ledger's roles and databases are created on the primary as
 * `scripts/stack.sh` creates them on the machine's service (`scripts/database-roles.sql`). As
 * root the servers run as the `postgres` OS user (`scripts/cluster/pg-server.ts`). The machine's
 * own PostgreSQL service is never touched. `<dir>/pair.json` remembers the ports, which folder is
 * the primary and whether the standby was promoted, so that `down`, `status`, `promote`, `kill` and
 * `rejoin` need only the folder.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { CliUsageError } from '@ledger/cli';
import { alive, appendAsServerUser, handToServerUser, killServer, postgresBinDir, postmasterPid, runLogged, serverCommand, serverUserCanReach } from './pg-server';
import { waitUntil } from './processes';

/** The two servers' ports on 127.0.0.1. */
export interface PairPorts {
  readonly primary: number;
  readonly standby: number;
}

/** A server of the pair by its folder: `pg-primary` is the one initdb'd, `pg-standby` the copy (the primary after a promotion). */
export type NodeName = 'pg-primary' | 'pg-standby';

/** What a server is now. */
export type NodeRole = 'primary' | 'standby';

/** One server as {@link status} finds it. */
export interface NodeStatus {
  readonly name: NodeName;
  readonly port: number;
  /** The postmaster's pid; null when it does not run. */
  readonly pid: number | null;
  /** `down` when it does not run, `unreachable` when it runs but does not answer. */
  readonly role: NodeRole | 'down' | 'unreachable';
}

/** The pair as {@link status} finds it. */
export interface PairStatus {
  readonly nodes: readonly NodeStatus[];
  /** The running server that is not in recovery, if one is. */
  readonly primary: NodeStatus | null;
  /** The running server in recovery, if one is. */
  readonly standby: NodeStatus | null;
  /** `sync_state` of `standby1` in the primary's `pg_stat_replication` (`sync`, `async`, …); null when not connected. */
  readonly syncState: string | null;
  /** Bytes of WAL the primary wrote that the standby has not replayed yet; null when not connected. */
  readonly replayLagBytes: number | null;
  /** `replay_lag` of `pg_stat_replication`, ms (null when not connected or idle). */
  readonly replayLagMs: number | null;
  /** Whether {@link promote} promoted the standby (the old primary's folder then never starts again until {@link rejoin}). */
  readonly promoted: boolean;
}

/** Options of {@link up}. */
export interface UpOptions {
  /** Databases to create (owner `ledger_owner`). @default ['ledger', 'ledger_test'] (as scripts/stack.sh) */
  readonly databases?: readonly string[];
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
}

/** The standby's `application_name`, the one `synchronous_standby_names` waits for. */
export const STANDBY_NAME = 'standby1';
const STATE_FILE = 'pair.json';
const NODE_NAMES: readonly NodeName[] = ['pg-primary', 'pg-standby'];
const ROLES_SQL = resolve(__dirname, '../database-roles.sql');
const DB_OWNER = 'ledger_owner';
const WAIT_MS = 120_000;

interface PairState {
  readonly ports: PairPorts;
  readonly promoted: boolean;
  /** The folder that is the primary (absent in a pair.json of older checkouts: `pg-standby` when promoted, else `pg-primary`). */
  readonly primary?: NodeName;
}

interface Node {
  readonly name: NodeName;
  readonly port: number;
  readonly dataDir: string;
  readonly serverLog: string;
}

/**
 * A connection URL of the pair: both servers, in `order`, with `target_session_attrs`.
 * @param ports the pair's ports
 * @param o.user login (password = the login, as scripts/database-roles.sql creates them) @default ledger_app
 * @param o.database @default ledger
 * @param o.targetSessionAttrs @default read-write
 * @param o.order which server first @default primary first
 */
export function pairUrl(ports: PairPorts, o: { user?: string; database?: string; targetSessionAttrs?: string; order?: readonly NodeName[] } = {}): string {
  const user = o.user ?? 'ledger_app';
  const hosts = (o.order ?? NODE_NAMES).map((n) => `127.0.0.1:${n === 'pg-primary' ? ports.primary : ports.standby}`).join(',');
  return `postgres://${user}:${user}@${hosts}/${o.database ?? 'ledger'}?target_session_attrs=${o.targetSessionAttrs ?? 'read-write'}`;
}

/**
 * Creates the pair under `dir` if it is not there, starts what does not run, waits until the
 * standby is synchronous, then makes the ledger's roles and databases on the primary. Running
 * already: nothing changes. After a {@link promote}, only the promoted server starts (the old
 * primary's folder is never started again: it would be a second primary) until {@link rejoin}
 * makes the old primary's folder its standby; from then on both start, in their new roles.
 * @param dir the pair's folder (e.g. `<STACK_DIR>/cluster/postgres`), created if missing
 * @param ports the two ports; must be those the pair was made with
 * @returns the pair's {@link status}
 * @throws Error when a server binary fails, the ports differ from the pair's, or the standby is not
 *   synchronous within 120 s
 */
export async function up(dir: string, ports: PairPorts, options: UpOptions = {}): Promise<PairStatus> {
  const log = options.log ?? (() => undefined);
  mkdirSync(dir, { recursive: true });
  if (!serverUserCanReach(dir)) throw new Error(`the postgres OS user cannot reach ${dir}: put the pair under a folder others can enter`);
  handToServerUser(dir);
  const state = readState(dir) ?? writeState(dir, { ports, promoted: false });
  if (state.ports.primary !== ports.primary || state.ports.standby !== ports.standby) throw new Error(`the pair in ${dir} was made with ports ${state.ports.primary}/${state.ports.standby}, not ${ports.primary}/${ports.standby}`);
  const [primary, standby] = rolesOf(dir, state);
  if (state.promoted) {
    log(`PostgreSQL: the standby was promoted; starting it alone (${standby.dataDir} stays down until rejoin)`);
    await startNode(dir, primary);
    return status(dir);
  }
  if (!existsSync(join(primary.dataDir, 'PG_VERSION'))) {
    if (primary.name !== 'pg-primary') throw new Error(`${primary.dataDir}, the pair's primary, holds no database`);
    await initPrimary(dir, primary, log);
  }
  await startNode(dir, primary);
  if (!existsSync(join(standby.dataDir, 'PG_VERSION'))) await cloneStandby(dir, primary, standby, log);
  await startNode(dir, standby);
  await waitFor(`standby ${STANDBY_NAME} synchronous`, async () => (await replication(primary.port))?.syncState === 'sync');
  await ensureRolesAndDatabases(primary.port, options.databases ?? ['ledger', 'ledger_test'], log);
  return status(dir);
}

/**
 * Stops both servers (`pg_ctl stop -m fast`: sessions ended, a shutdown checkpoint), the primary
 * first so that the standby receives all of its WAL; the data stay.
 */
export async function down(dir: string): Promise<void> {
  const state = readState(dir);
  if (!state) return;
  for (const n of rolesOf(dir, state)) {
    if (!postmasterPid(n.dataDir)) continue;
    const [cmd, args] = serverCommand(postgresBinDir(), 'pg_ctl', ['-D', n.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    await runLogged(cmd, args, {}, commandLog(dir), 90_000);
  }
}

/**
 * Which server is the primary and which the standby, whether the standby is synchronous and how far
 * behind it is. Asks each running server (`pg_is_in_recovery()`, `pg_stat_replication`).
 * @throws Error when `dir` holds no pair
 */
export async function status(dir: string): Promise<PairStatus> {
  const state = readState(dir);
  if (!state) throw new Error(`no PostgreSQL pair in ${dir} (${STATE_FILE} missing): run up first`);
  const nodes: NodeStatus[] = [];
  for (const n of nodesOf(dir, state.ports)) {
    const pid = postmasterPid(n.dataDir);
    const role = pid ? await roleOf(n.port) : 'down';
    nodes.push({ name: n.name, port: n.port, pid, role });
  }
  const primary = nodes.find((n) => n.role === 'primary') ?? null;
  const standby = nodes.find((n) => n.role === 'standby') ?? null;
  const rep = primary ? await replication(primary.port).catch(() => null) : null;
  return { nodes, primary, standby, syncState: rep?.syncState ?? null, replayLagBytes: rep?.lagBytes ?? null, replayLagMs: rep?.lagMs ?? null, promoted: state.promoted };
}

/**
 * Promotes the standby (`pg_promote()`) and waits until it accepts writes; from then on the folder
 * `pg-primary` is never started again by {@link up}. The new primary has no standby: its commits
 * are acknowledged on its own disk only (its `synchronous_standby_names` is empty).
 * @param timeoutMs longest wait for the promotion @default 120000
 * @returns the pair's {@link status}
 * @throws Error when no standby runs, when a primary still runs (two primaries: kill or stop it
 *   first), or when the promotion does not finish in time
 */
export async function promote(dir: string, timeoutMs = WAIT_MS): Promise<PairStatus> {
  const before = await status(dir);
  if (before.primary) throw new Error(`${before.primary.name} (port ${before.primary.port}) is a running primary: promoting the standby would make two; kill or stop it first`);
  if (!before.standby) throw new Error(`no standby runs in ${dir}: nothing to promote`);
  const port = before.standby.port;
  await withSuperuser(port, (c) => c.query('SELECT pg_promote(true, $1)', [Math.ceil(timeoutMs / 1000)]));
  await waitFor('the promoted standby accepting writes', () => withSuperuser(port, async (c) => (await c.query('SELECT txid_current()')).rowCount === 1), timeoutMs);
  const state = readState(dir);
  if (state) writeState(dir, { ...state, promoted: true, primary: before.standby.name });
  return status(dir);
}

/**
 * Brings the failed-over old primary back as the standby of the promoted server: its folder is
 * replaced by a `pg_basebackup` of the new primary (what it held that the standby never confirmed
 * is dropped; with the synchronous standby, nothing that was acknowledged), it starts on its own
 * port as {@link STANDBY_NAME}, and once it streams the new primary waits for it again
 * (`ALTER SYSTEM SET synchronous_standby_names`). The services' multi-host URLs need nothing: they
 * follow whichever server accepts writes.
 * @param o.log progress lines @default none
 * @returns the pair's {@link status} (the standby synchronous)
 * @throws CliUsageError (one line, no stack trace from the cluster command) when no standby was
 *   promoted, the promoted server does not run, or the old primary still runs (stop it first: it
 *   is a second primary); Error when a server binary fails or the standby is not synchronous within 120 s
 */
export async function rejoin(dir: string, o: { log?: (line: string) => void } = {}): Promise<PairStatus> {
  const log = o.log ?? (() => undefined);
  const state = readState(dir);
  if (!state?.promoted) throw new CliUsageError(`no promoted standby in ${dir}: nothing to rejoin`);
  const [primary, old] = rolesOf(dir, state);
  if (postmasterPid(old.dataDir)) throw new CliUsageError(`${old.name} (port ${old.port}) still runs: it is a second primary; stop it first (npm run cluster -- down stops both, then up starts the promoted one)`);
  if ((await roleOf(primary.port)) !== 'primary') throw new CliUsageError(`${primary.name} (port ${primary.port}), the promoted server, does not run as a primary: run up first`);
  log(`PostgreSQL: ${old.dataDir} replaced by a copy of ${primary.name}`);
  rmSync(old.dataDir, { recursive: true, force: true });
  await cloneStandby(dir, primary, old, log);
  await startNode(dir, old);
  await waitFor(`${old.name} streaming from ${primary.name}`, async () => (await replication(primary.port)) !== null);
  await withSuperuser(primary.port, async (c) => {
    await c.query(`ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (${STANDBY_NAME})'`);
    await c.query('SELECT pg_reload_conf()');
  });
  await waitFor(`${old.name} synchronous`, async () => (await replication(primary.port))?.syncState === 'sync');
  writeState(dir, { ...state, promoted: false, primary: primary.name });
  return status(dir);
}

/**
 * SIGKILL of the postmaster of the server that is now `which` and of its children (a power cut),
 * for fault runs; resolves once they are gone.
 * @returns the postmaster's pid
 * @throws Error when no running server is `which`, or its processes outlive the kill by 30 s
 */
export async function kill(dir: string, which: NodeRole): Promise<number> {
  const st = await status(dir);
  const node = which === 'primary' ? st.primary : st.standby;
  if (!node?.pid) throw new Error(`no running ${which} in ${dir}`);
  const pids = killServer(node.pid);
  await waitFor(`${node.name}'s processes gone`, () => pids.every((p) => !alive(p)), 30_000);
  return node.pid;
}

/** The pair's folders as [the primary, the other] by its state. */
function rolesOf(dir: string, state: PairState): [Node, Node] {
  const [a, b] = nodesOf(dir, state.ports);
  const primary = state.primary ?? (state.promoted ? 'pg-standby' : 'pg-primary');
  return primary === 'pg-primary' ? [a, b] : [b, a];
}

function nodesOf(dir: string, ports: PairPorts): [Node, Node] {
  const node = (name: NodeName, port: number): Node => ({ name, port, dataDir: join(dir, name), serverLog: join(dir, `${name}.log`) });
  return [node('pg-primary', ports.primary), node('pg-standby', ports.standby)];
}

const commandLog = (dir: string) => join(dir, 'commands.log');

function readState(dir: string): PairState | null {
  const file = join(dir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PairState) : null;
}

function writeState(dir: string, state: PairState): PairState {
  writeFileSync(join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
  return state;
}

async function server(dir: string, binary: string, args: string[], timeoutMs = WAIT_MS): Promise<void> {
  const [cmd, argv] = serverCommand(postgresBinDir(), binary, args);
  await runLogged(cmd, argv, {}, commandLog(dir), timeoutMs);
}

/** initdb (UTF-8, C locale, trust on loopback: replication included) and the primary's settings. */
async function initPrimary(dir: string, n: Node, log: (line: string) => void): Promise<void> {
  log(`PostgreSQL: initdb ${n.dataDir}`);
  await server(dir, 'initdb', ['-D', n.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
  const settings = [
    `port = ${n.port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = ''`,
    'max_connections = 200',
    'shared_buffers = 64MB',
    'fsync = on',
    'full_page_writes = on',
    'wal_level = replica',
    'max_wal_senders = 5',
    `wal_keep_size = '512MB'`,
    'wal_log_hints = on',
    'hot_standby = on',
    // a commit returns once the standby has flushed it too
    `synchronous_standby_names = 'FIRST 1 (${STANDBY_NAME})'`,
    'synchronous_commit = on',
    `log_line_prefix = '%m [%p] '`,
  ];
  appendAsServerUser(join(n.dataDir, 'postgresql.conf'), `\n# the cluster's primary (scripts/cluster/postgres.ts)\n${settings.join('\n')}\n`);
}

/** `pg_basebackup -R` of the primary into the standby's folder, named {@link STANDBY_NAME}, on its own port. */
async function cloneStandby(dir: string, primary: Node, standby: Node, log: (line: string) => void): Promise<void> {
  log(`PostgreSQL: pg_basebackup of 127.0.0.1:${primary.port} into ${standby.dataDir}`);
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres application_name=${STANDBY_NAME}`;
  await server(dir, 'pg_basebackup', ['-d', conninfo, '-D', standby.dataDir, '-X', 'stream', '-c', 'fast', '-R']);
  // after a promotion it is a primary without a standby: it must not wait for one
  appendAsServerUser(join(standby.dataDir, 'postgresql.conf'), `\n# the cluster's standby (scripts/cluster/postgres.ts)\nport = ${standby.port}\nsynchronous_standby_names = ''\n`);
  appendAsServerUser(join(standby.dataDir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`);
}

/** `pg_ctl start` unless it runs; waits until it accepts connections. */
async function startNode(dir: string, n: Node): Promise<void> {
  if (postmasterPid(n.dataDir)) return;
  await server(dir, 'pg_ctl', ['-D', n.dataDir, '-l', n.serverLog, '-w', '-t', '120', 'start'], WAIT_MS + 30_000);
  await waitFor(`${n.name} accepting connections`, async () => (await roleOf(n.port)) !== 'unreachable');
}

/** scripts/database-roles.sql and the databases (owner `ledger_owner`), on the primary. */
async function ensureRolesAndDatabases(port: number, databases: readonly string[], log: (line: string) => void): Promise<void> {
  await withSuperuser(port, async (c) => {
    await c.query(readFileSync(ROLES_SQL, 'utf8'));
    for (const db of databases) {
      const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (r.rowCount === 0) {
        await c.query(`CREATE DATABASE "${db.replace(/"/g, '""')}" OWNER ${DB_OWNER}`);
        log(`PostgreSQL: created database ${db} (owner ${DB_OWNER})`);
      }
    }
  });
}

async function withSuperuser<T>(port: number, f: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 5000, application_name: 'ledger-cluster' });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function roleOf(port: number): Promise<NodeRole | 'unreachable'> {
  try {
    return await withSuperuser(port, async (c) => ((await c.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r ? 'standby' : 'primary'));
  } catch {
    return 'unreachable';
  }
}

async function replication(primaryPort: number): Promise<{ syncState: string; lagBytes: number | null; lagMs: number | null } | null> {
  return withSuperuser(primaryPort, async (c) => {
    const r = await c.query<{ sync_state: string; lag_bytes: string | null; lag_ms: string | null }>(
      `SELECT sync_state, pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::text AS lag_bytes, (EXTRACT(epoch FROM replay_lag) * 1000)::text AS lag_ms
         FROM pg_stat_replication WHERE application_name = $1`,
      [STANDBY_NAME],
    );
    const row = r.rows[0];
    return row ? { syncState: row.sync_state, lagBytes: row.lag_bytes === null ? null : Number(row.lag_bytes), lagMs: row.lag_ms === null ? null : Number(row.lag_ms) } : null;
  });
}

/** Polls `check` every 200 ms until it is true. @throws Error naming `what` (and the last error seen) after `timeoutMs` */
const waitFor = (what: string, check: () => Promise<boolean> | boolean, timeoutMs = WAIT_MS): Promise<void> => waitUntil(what, check, timeoutMs, 200);
