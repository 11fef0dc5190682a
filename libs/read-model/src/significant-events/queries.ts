import { rows, tablesIn, type Queryable } from '../sql';
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
  /** true: acknowledged only; false: not acknowledged only (the read model's word: the API confirms it on the stored events). */
  readonly acknowledged: boolean | null;
  /** Rows at most (the page size; one more is read to tell whether a next page exists). */
  readonly limit: number;
  /** Continue below this raise position (decimal string), newest first; null: from the newest. */
  readonly beforePosition: string | null;
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
}
