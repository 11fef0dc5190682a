import { first, rows, tablesIn, type Queryable } from '../sql';
import { SIGNIFICANT_EVENTS_TABLE, type SignificantEventRow } from './tables';

/** The significant-events read model's tables (their names are declared in `tables.ts`). */
export const SIGNIFICANT_EVENT_TABLES = { significantEvents: SIGNIFICANT_EVENTS_TABLE } as const;

/** The filters of a page of significant events (every one optional; null: not filtered). */
export interface SignificantEventFilter {
  readonly code: string | null;
  readonly severity: string | null;
  readonly tableId: string | null;
  readonly dealerId: string | null;
  /** Raised at or after (the ledger's clock), ISO-8601. */
  readonly from: string | null;
  /** Raised before, ISO-8601. */
  readonly to: string | null;
  /** true: acknowledged only; false: not acknowledged only. */
  readonly acknowledged: boolean | null;
  /** Rows at most (the page size; one more is read to tell whether a next page exists). */
  readonly limit: number;
  /** Continue below this raise position (decimal string), newest first; null: from the newest. */
  readonly beforePosition: string | null;
}

/** Per severity: significant events that need a second person and have none yet, and those of them raised before the deadline. */
export interface OpenSignificantEventCount {
  readonly severity: string;
  readonly unacknowledged: number;
  readonly overdue: number;
}

/** The reads of the significant-events read model on one connection (or pool). */
export class SignificantEventReads {
  private readonly t: { readonly significantEvents: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, SIGNIFICANT_EVENT_TABLES);
  }

  /** One significant event; `undefined` when the read model has none of that id (unknown, or not projected yet). */
  byId(id: string): Promise<SignificantEventRow | undefined> {
    return first<SignificantEventRow>(this.q, `SELECT * FROM ${this.t.significantEvents} WHERE significant_event_id = $1`, [id]);
  }

  /** A page of significant events, newest raise first, `limit + 1` rows at most (keyset on the raise's position). */
  page(f: SignificantEventFilter): Promise<SignificantEventRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: (p: string) => string, v: unknown) => {
      params.push(v);
      where.push(sql(`$${params.length}`));
    };
    if (f.code !== null) add((p) => `code = ${p}`, f.code);
    if (f.severity !== null) add((p) => `severity = ${p}`, f.severity);
    if (f.tableId !== null) add((p) => `table_id = ${p}`, f.tableId);
    if (f.dealerId !== null) add((p) => `dealer_id = ${p}`, f.dealerId);
    if (f.from !== null) add((p) => `raised_at >= ${p}::timestamptz`, f.from);
    if (f.to !== null) add((p) => `raised_at < ${p}::timestamptz`, f.to);
    if (f.acknowledged !== null) where.push(f.acknowledged ? 'acknowledged_at IS NOT NULL' : 'acknowledged_at IS NULL');
    if (f.beforePosition !== null) add((p) => `raised_position < ${p}::bigint`, f.beforePosition);
    params.push(f.limit + 1);
    const cond = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    return rows<SignificantEventRow>(this.q, `SELECT * FROM ${this.t.significantEvents} ${cond} ORDER BY raised_position DESC LIMIT $${params.length}`, params);
  }

  /** The newest raise or acknowledgement position of the read model, decimal string; `'0'` when empty. */
  async latestPosition(): Promise<string> {
    const r = await first<{ p: string | null }>(this.q, `SELECT greatest(max(raised_position), max(ack_position))::text AS p FROM ${this.t.significantEvents}`);
    return r?.p ?? '0';
  }

  /** The rows raised or acknowledged after position `after` (decimal string), in position order, at most 500. */
  changedAfter(after: string): Promise<SignificantEventRow[]> {
    return rows<SignificantEventRow>(
      this.q,
      `SELECT * FROM ${this.t.significantEvents} WHERE raised_position > $1::bigint OR ack_position > $1::bigint
        ORDER BY greatest(raised_position, coalesce(ack_position, 0)) LIMIT 500`,
      [after],
    );
  }

  /**
   * Per severity, the significant events that need a second person and are not acknowledged, and
   * how many of them were raised more than `deadlineSeconds` ago (by PostgreSQL's clock): what the
   * escalation gauges export.
   */
  openCounts(deadlineSeconds: number): Promise<OpenSignificantEventCount[]> {
    return rows<OpenSignificantEventCount>(
      this.q,
      `SELECT severity, count(*)::int AS unacknowledged,
              count(*) FILTER (WHERE raised_at < now() - make_interval(secs => $1))::int AS overdue
         FROM ${this.t.significantEvents} WHERE requires_ack AND acknowledged_at IS NULL GROUP BY severity ORDER BY severity`,
      [deadlineSeconds],
    );
  }
}
