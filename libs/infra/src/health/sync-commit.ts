/**
 * The readiness check that a commit comes back (docs/architecture.md §8; docs/operations.md, "A
 * primary with a synchronous standby"): with `synchronous_commit = on` and a synchronous standby,
 * PostgreSQL holds every commit that wrote WAL until the standby confirms it (the `SyncRep` wait).
 * A standby that is down or stuck therefore makes every write hang while `SELECT 1` still answers,
 * so a readiness made of `SELECT 1` alone keeps sending writes to an instance that cannot finish one.
 *
 * The probe commits a transaction that writes WAL and gets an xid (a transactional
 * `pg_logical_emit_message`, which no table and no privilege beyond `LOGIN` needs) on a session of
 * its own and times the commit. A `statement_timeout` does not end that wait (PostgreSQL waits for
 * the standby after the statement's timeout is disarmed), so when the commit has not come back
 * within the bound the probe cancels its own backend (`pg_cancel_backend` from a second, short
 * session of the same login): PostgreSQL then ends the wait with a WARNING (the empty transaction
 * stays committed locally) and the session is reused; a backend that does not answer the cancel
 * is dropped. At most one probe runs at a time (`healthRunner`), so a stalled standby holds at most
 * one probe backend per process, and an outcome is reused for a second (`reusedFor`), so callers of
 * the public readiness route cannot make the API write WAL faster than once a second.
 */
import { Client } from 'pg';
import type { ErrorCode } from '@ledger/errors';
import { pgClientConfig } from '../database/session-settings';
import { CHECK_TIMEOUT_MS, CheckDown, reusedFor, type HealthCheck } from './health';

/** The code a readiness check reports a commit that did not come back within its bound with (libs/errors, docs/errors.md). */
export const SYNC_COMMIT_STALLED: ErrorCode = 'DATABASE.SYNC_COMMIT_STALLED';

/** The statement the probe runs (one simple-protocol round trip): a transaction that gets an xid and writes WAL, and its commit. */
export const SYNC_COMMIT_PROBE_SQL = "BEGIN; SELECT pg_logical_emit_message(true, 'ledger-ready-probe', ''); COMMIT";

/** How long one probe's outcome answers the readiness calls that follow it, ms (so the probe writes WAL at most once a second). */
const PROBE_REUSE_MS = 1000;

/** Longest wait for the cancelled commit to return before the probe's session is dropped, ms. */
const CANCEL_WAIT_MS = 300;

/** Options of {@link syncCommitCheck}. */
export interface SyncCommitCheckOptions {
  /** The service's own login (e.g. `DATABASE_URL`; one server or a multi-host URL with `target_session_attrs=read-write`). */
  readonly url: string;
  /** `application_name` of the probe's sessions (shown in `pg_stat_activity`). */
  readonly applicationName: string;
  /** Longest time a commit may take before the check is down, ms (keep it below {@link CHECK_TIMEOUT_MS} less ~300 ms for the cancel). */
  readonly boundMs: number;
}

/** The check of {@link syncCommitCheck}, with the closing of its session. */
export type SyncCommitCheck = HealthCheck & { close(): Promise<void> };

/**
 * `syncCommit`: commits {@link SYNC_COMMIT_PROBE_SQL} on the probe's own session (opened on first use,
 * dropped on an error) and resolves `{ commitMs }` when the commit came back within `boundMs`.
 * @throws CheckDown `{ code: 'DATABASE.SYNC_COMMIT_STALLED', boundMs }` when it did not (the wait is
 *   then cancelled); the driver's error when PostgreSQL cannot be reached or refuses the statement
 */
export function syncCommitCheck(o: SyncCommitCheckOptions): SyncCommitCheck {
  let session: { client: Client; pid: number } | null = null;
  const drop = () => {
    const s = session;
    session = null;
    if (s) void s.client.end().catch(() => undefined);
  };
  const open = async () => {
    if (session) return session;
    const client = new Client({ ...pgClientConfig(o.url, o.applicationName), connectionTimeoutMillis: CHECK_TIMEOUT_MS });
    client.on('error', () => {
      if (session?.client === client) session = null;
    });
    await client.connect();
    const [row] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    session = { client, pid: row.pid };
    return session;
  };
  const check = async () => {
    try {
      const s = await open();
      const t0 = performance.now();
      const commit = s.client.query(SYNC_COMMIT_PROBE_SQL).then(() => performance.now() - t0);
      commit.catch(() => undefined);
      const commitMs = await Promise.race([commit, sleep(o.boundMs).then(() => null)]);
      if (commitMs !== null) return { commitMs: Math.round(commitMs), boundMs: o.boundMs };
      const cancelled = await cancelBackend(o, s.pid).catch(() => false);
      const back = cancelled ? await Promise.race([commit.then(() => true), sleep(CANCEL_WAIT_MS).then(() => false)]) : false;
      if (!back) drop();
      throw new CheckDown(`a commit did not come back within ${o.boundMs} ms: the synchronous standby does not confirm, and every write waits on it`, { code: SYNC_COMMIT_STALLED, boundMs: o.boundMs });
    } catch (err) {
      if (!(err instanceof CheckDown)) drop();
      throw err;
    }
  };
  // an unauthenticated caller may ask for readiness at any rate: one commit a second at most, whatever they ask
  return Object.assign(reusedFor(check, PROBE_REUSE_MS), { close: async () => drop() });
}

/** `pg_cancel_backend(pid)` from a short session of the same login (a login may cancel its own backends). @returns whether PostgreSQL signalled it */
async function cancelBackend(o: SyncCommitCheckOptions, pid: number): Promise<boolean> {
  const c = new Client({ ...pgClientConfig(o.url, `${o.applicationName}-cancel`), connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const [row] = (await c.query<{ ok: boolean }>('SELECT pg_cancel_backend($1) AS ok', [pid])).rows;
    return row.ok === true;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    setTimeout(r, ms).unref();
  });
