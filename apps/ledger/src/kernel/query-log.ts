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
 * Appends one row to the append-only `query_log` (status 200), before the read's answer leaves: an
 * unrecorded audit read is not allowed, so a failure here fails the read.
 * @throws the database's error
 */
export function recordQueryLog(q: Queryable, e: QueryLogEntry): Promise<void> {
  return exec(q, `INSERT INTO query_log (actor_id, actor_role, route, params, result_count, status, correlation_id) VALUES ($1, $2, $3, $4, $5, 200, $6)`, [
    e.actorId,
    e.actorRole,
    e.route,
    e.params,
    e.resultCount,
    e.correlationId,
  ]);
}
