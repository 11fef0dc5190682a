import { exec, type Queryable } from './sql';

/** One audited read as `query_log` keeps it (docs/architecture.md §10: who looked at what). */
export interface QueryLogEntry {
  readonly actorId: string;
  readonly actorRole: string;
  /** `METHOD /route/pattern`. */
  readonly route: string;
  /** The request's parameters as JSON text (PostgreSQL's jsonb takes it). */
  readonly params: string;
  /** Rows, items or lines the read returned; null when not counted (a live stream). */
  readonly resultCount: number | null;
  readonly correlationId: string | null;
}

/**
 * Appends one row to the access log (status 200), before the read's answer leaves: an unrecorded
 * audit read is not allowed, so a failure here fails the read. The row goes through
 * `ledger_log_access` (migration 1799300000000): the database stamps its id, seq and time and chains
 * its hash; the API's login has no INSERT on `query_log` (docs/guarantees.md §9).
 * @throws the database's error
 */
export function recordQueryLog(q: Queryable, e: QueryLogEntry): Promise<void> {
  return exec(q, `SELECT ledger_log_access($1, $2, $3, $4::jsonb, $5, 200, $6)`, [e.actorId, e.actorRole, e.route, e.params, e.resultCount, e.correlationId]);
}
