/**
 * What the projector tells listeners after it changed the read model (docs/architecture.md §7):
 * a PostgreSQL `NOTIFY` on {@link PROJECTION_CHANGES_CHANNEL}, sent with `pg_notify` inside the
 * transaction that applied the batch, so PostgreSQL delivers it on COMMIT only — a listener never
 * hears of a change it cannot read yet, and never of one that was rolled back. The ledger API
 * LISTENs and fans the notices out as server-sent events (`GET /live/tables`).
 *
 * Payload: JSON {@link ProjectionChangeNotice}, at most {@link MAX_NOTICE_BYTES} bytes (PostgreSQL
 * refuses a payload of 8000 bytes or more); a batch that changed too many tables to list says
 * `all: true` instead, and a reader re-reads every table.
 */

/** The NOTIFY channel of the projector's changes. */
export const PROJECTION_CHANGES_CHANNEL = 'ledger_projections';

/** Most bytes of a notice's JSON; above it the notice falls back to `{ all: true }`. */
export const MAX_NOTICE_BYTES = 7000;

/** One table a batch changed: the shoe of its last event applied and that event's global position. */
export interface TableChange {
  readonly tableId: string;
  readonly shoeId: string;
  /** Decimal string (bigint). */
  readonly globalPosition: string;
}

/** The payload of one notice. */
export type ProjectionChangeNotice =
  | { readonly schema: string; readonly globalPosition: string; readonly tables: readonly TableChange[]; readonly all?: undefined }
  | { readonly schema: string; readonly globalPosition: string | null; readonly all: true; readonly tables?: undefined };

/**
 * The notice's JSON for the tables a batch changed (any order; one entry per table, the one of
 * the highest position kept), or the `all` form when it would exceed {@link MAX_NOTICE_BYTES}.
 * @param schema the read-model schema written (listeners of another schema ignore it)
 */
export function changeNoticePayload(schema: string, changes: Iterable<TableChange>): string {
  const byTable = new Map<string, TableChange>();
  let last: bigint | null = null;
  for (const c of changes) {
    const p = BigInt(c.globalPosition);
    if (last === null || p > last) last = p;
    const had = byTable.get(c.tableId);
    if (!had || BigInt(had.globalPosition) < p) byTable.set(c.tableId, c);
  }
  const globalPosition = last === null ? null : last.toString();
  const tables = [...byTable.values()].sort((a, b) => (a.tableId < b.tableId ? -1 : a.tableId > b.tableId ? 1 : 0));
  const full = JSON.stringify({ schema, globalPosition, tables });
  if (globalPosition !== null && Buffer.byteLength(full, 'utf8') <= MAX_NOTICE_BYTES) return full;
  return allChangedPayload(schema, globalPosition);
}

/** The `all` notice: every table may have changed (a rebuild, or a batch too wide to list). */
export function allChangedPayload(schema: string, globalPosition: string | null): string {
  return JSON.stringify({ schema, globalPosition, all: true });
}

/**
 * Parses a notice's payload; null for one that is not a notice of this shape (a listener skips it).
 */
export function parseChangeNotice(payload: string | undefined): ProjectionChangeNotice | null {
  if (!payload) return null;
  try {
    const v = JSON.parse(payload) as Record<string, unknown>;
    if (typeof v.schema !== 'string') return null;
    if (v.all === true) return { schema: v.schema, globalPosition: typeof v.globalPosition === 'string' ? v.globalPosition : null, all: true };
    if (typeof v.globalPosition !== 'string' || !Array.isArray(v.tables)) return null;
    const tables = v.tables.filter((t): t is TableChange => !!t && typeof t === 'object' && typeof t.tableId === 'string' && typeof t.shoeId === 'string' && typeof t.globalPosition === 'string');
    return { schema: v.schema, globalPosition: v.globalPosition, tables };
  } catch {
    return null;
  }
}
