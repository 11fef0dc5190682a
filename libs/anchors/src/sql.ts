import type { Client } from 'pg';

/**
 * The one thing the anchors need from a PostgreSQL connection: run a statement, get its rows. A
 * node-postgres `Client` fits through {@link pgSession}; a TypeORM `QueryRunner` fits as it is.
 * Both keep one connection, so `BEGIN … DECLARE … FETCH … COMMIT` run on the same session.
 */
export interface SqlSession {
  /** Runs `sql` with `$1…` parameters; resolves to the rows (an empty array for statements without). */
  query(sql: string, params?: unknown[]): Promise<any[]>;
}

/** A node-postgres client as a {@link SqlSession}. */
export function pgSession(client: Client): SqlSession {
  return { query: async (sql, params) => (await client.query(sql, params as unknown[] | undefined)).rows };
}

/**
 * The default ledger id of the database the session is connected to: `<database name>@<oid>`. The
 * oid changes when the database is dropped and created again, so a recreated database starts a new
 * chain of checkpoints instead of appearing to have lost its history. Set `LEDGER_ID` to a fixed name
 * in production (a restore into a new database keeps its id then).
 */
export async function databaseLedgerId(session: SqlSession): Promise<string> {
  const [row] = await session.query(`SELECT current_database() AS name, d.oid::text AS oid FROM pg_database d WHERE d.datname = current_database()`);
  return `${row.name}@${row.oid}`;
}
