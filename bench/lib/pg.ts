/** PostgreSQL access for the bench itself: a plain `pg` client on the bench database, and counters per phase. */
import { Pool } from 'pg';
import { currentDatabaseSessionSettings, pgPoolConfig } from '@ledger/infra';

/** What the bench needs of a PostgreSQL connection (a pool: a connection lost to a restart is replaced). */
export interface Pg {
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

/** A small pool on the bench database; `end()` closes it. */
export async function connect(url: string, applicationName = 'ledger-bench'): Promise<Pg & { end(): Promise<void> }> {
  // timeouts and keepalives as every connection (the owner's longer statement timeout: the bench loads and counts in bulk)
  const pool = new Pool({ connectionString: url, application_name: applicationName, ...pgPoolConfig(3, currentDatabaseSessionSettings('migrations'), url) });
  // an idle connection lost (e.g. PostgreSQL restarted by someone else) is dropped by the pool, not fatal
  pool.on('error', (e) => process.stderr.write(`[bench] PostgreSQL connection lost: ${e.message}\n`));
  await pool.query('SELECT 1');
  return pool;
}

/** Counters of the bench database and of the cluster's WAL (cumulative; subtract two snapshots). */
export interface PgCounters {
  readonly at: number;
  readonly xactCommit: number;
  readonly tupInserted: number;
  readonly tupUpdated: number;
  readonly blksRead: number;
  /** Cluster-wide (other databases on this machine count too). */
  readonly walRecords: number;
  readonly walBytes: number;
  readonly walSync: number;
}

export async function pgCounters(c: Pg, db: string): Promise<PgCounters> {
  const d = (await c.query(`SELECT xact_commit::float8 AS c, tup_inserted::float8 AS i, tup_updated::float8 AS u, blks_read::float8 AS r FROM pg_stat_database WHERE datname = $1`, [db])).rows[0];
  const w = (await c.query(`SELECT wal_records::float8 AS r, wal_bytes::float8 AS b, wal_sync::float8 AS s FROM pg_stat_wal`)).rows[0];
  return { at: Date.now(), xactCommit: d.c, tupInserted: d.i, tupUpdated: d.u, blksRead: d.r, walRecords: w.r, walBytes: w.b, walSync: w.s };
}

/** The difference of two snapshots, per second and per event where that helps reading it. */
export function pgDelta(a: PgCounters, b: PgCounters, events: number) {
  const s = (b.at - a.at) / 1000;
  const per = (x: number) => (events > 0 ? Math.round((x / events) * 100) / 100 : null);
  return {
    seconds: Math.round(s * 10) / 10,
    commits: b.xactCommit - a.xactCommit,
    commitsPerSecond: Math.round((b.xactCommit - a.xactCommit) / s),
    rowsInserted: b.tupInserted - a.tupInserted,
    rowsUpdated: b.tupUpdated - a.tupUpdated,
    walBytesPerEvent: per(b.walBytes - a.walBytes),
    walMiB: Math.round(((b.walBytes - a.walBytes) / 1048576) * 10) / 10,
    walSyncs: b.walSync - a.walSync,
    rowsInsertedPerEvent: per(b.tupInserted - a.tupInserted),
  };
}
