import { AUDIT_DECISION_TYPES } from '@ledger/read-model';
import { EVENT_COLUMNS, rowToEnvelope, canonicalJson, type EventRow } from '@ledger/event-store';
import type { ReadModelView } from '@ledger/read-model';
import { camel } from '../kernel/camel';
import { first, rows, type Queryable } from '../kernel/sql';

/**
 * The five exports for regulators (docs/reports.md §5): what each one holds, how it is read from
 * PostgreSQL one keyset batch at a time, and its CSV columns. The events, rejections and access log
 * are the ledger's own tables (their SQL here); the settlements and decisions are the read model's
 * (`readModel.settlements.export*`, `readModel.audit.decisionsExport*`). {@link ExportsService} runs
 * them in one read-only snapshot.
 */

/** The kinds of export, as the route names them: `GET /exports/{kind}`. */
export const EXPORT_KINDS = ['events', 'settlements', 'decisions', 'rejections', 'access-log'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The layout version of every export file (`ReportHeader.reportVersion`, docs/reports.md §5). */
export const EXPORT_REPORT_VERSION = 1;

/**
 * The global positions an export of events, settlements or decisions covers (decimal strings, null
 * when the period recorded no event): `first` and `periodLast` are the lowest and highest position of
 * an event recorded in the period; `through` is where the events export ends, `periodLast` or further,
 * up to the first signed checkpoint at or after `periodLast` so that every exported event lies under a
 * checkpoint the bundle carries (docs/reports.md §5, "Which events").
 */
export interface ExportPositions {
  readonly first: string | null;
  readonly periodLast: string | null;
  readonly through: string | null;
}

/** Where an export reads: one read-only snapshot, through the read model and (for the ledger's own tables) directly. */
export interface ExportSource {
  /** The snapshot's connection. */
  readonly q: Queryable;
  /** The read model on the same connection. */
  readonly readModel: ReadModelView;
}

/** What a batch query needs. */
export interface ExportContext {
  /** ISO-8601 times, `from` inclusive, `to` exclusive. */
  readonly from: string;
  readonly to: string;
  readonly positions: ExportPositions;
}

/** One kind: title, machine name, columns, and how it counts and reads its rows. */
export interface ExportKindSpec {
  readonly kind: ExportKind;
  /** `ReportHeader.title`. */
  readonly title: string;
  /** What the period selects, said in the docs and in the header's filters. */
  readonly selects: string;
  /** CSV columns in order (also the keys of a JSONL line, except for `events`: the stored envelope). */
  readonly columns: readonly string[];
  /** The number of rows of the export. */
  count(s: ExportSource, c: ExportContext): Promise<number>;
  /**
   * The batch after keyset `after` (null: the first batch), at most `limit` rows, in key order. The
   * key is a bigint column (a global position or an id), ordered and compared as that column, never
   * as the text the row carries it in: `SELECT id::text AS id … ORDER BY id` orders by the text
   * alias (1, 10, 100, 1000, 1001, …) and the next page, `id > '1899'`, skips what sorted after it as
   * text (ids 1..2,620 in batches of 1,000 streamed 1,721 rows). So every batch SQL names the key
   * with its table (`ORDER BY query_log.id`, `e.global_position`).
   */
  batch(s: ExportSource, c: ExportContext, after: string | null, limit: number): Promise<Record<string, unknown>[]>;
  /** The keyset key of a row as the batch SQL returns it (a decimal string). */
  key(row: Record<string, unknown>): string;
  /** The JSONL object of a row. */
  json(row: Record<string, unknown>): Record<string, unknown>;
}

/** `count(*)::text AS n` of a statement: the count as a number. */
async function counted(q: Queryable, sql: string, args: unknown[]): Promise<number> {
  return Number((await first<{ n: string }>(q, sql, args))?.n ?? 0);
}

const EVENTS: ExportKindSpec = {
  kind: 'events',
  title: 'Ledger events export',
  selects: 'every event at a global position from the first to the last recorded in the period (recordedAt), extended to the first signed checkpoint after it',
  columns: ['globalPosition', 'eventId', 'type', 'schemaVersion', 'streamId', 'streamVersion', 'tableId', 'occurredAt', 'recordedAt', 'actorId', 'actorRole', 'correlationId', 'causationId', 'prevHash', 'hash', 'data'],
  count: (s, c) => counted(s.q, `SELECT count(*)::text AS n FROM events WHERE global_position >= $1::bigint AND global_position <= $2::bigint`, [c.positions.first ?? '0', c.positions.through ?? '0']),
  batch: (s, c, after, limit) =>
    rows<Record<string, unknown>>(
      s.q,
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.global_position >= $1::bigint AND e.global_position <= $2::bigint AND ($3::bigint IS NULL OR e.global_position > $3::bigint)
           ORDER BY e.global_position LIMIT $4`,
      [c.positions.first ?? '0', c.positions.through ?? '0', after, limit],
    ),
  key: (r) => String(r.global_position),
  // the stored envelope at its stored schema version (not upcast): exactly what was hashed, plus hash and globalPosition
  json: (r) => rowToEnvelope(r as unknown as EventRow) as unknown as Record<string, unknown>,
};

const SETTLEMENTS: ExportKindSpec = {
  kind: 'settlements',
  title: 'Settlements export (every settlement, resettlement and refund)',
  selects: "every settlement revision (SETTLED, RESETTLED, REFUNDED) whose event lies in the period's positions (first..periodLast)",
  columns: [
    'globalPosition',
    'eventId',
    'betId',
    'seq',
    'kind',
    'revision',
    'roundId',
    'shoeId',
    'tableId',
    'dealerId',
    'gamingDay',
    'accountId',
    'betCode',
    'currency',
    'stake',
    'result',
    'winnings',
    'payout',
    'net',
    'dropped',
    'paytableRef',
    'compensates',
    'actorId',
    'actorRole',
    'causeEventId',
    'reason',
    'actingManagerId',
    'approverId',
    'occurredAt',
  ],
  count: (s, c) => s.readModel.settlements.exportCount(c.positions.first ?? '0', c.positions.periodLast ?? '0'),
  batch: (s, c, after, limit) => s.readModel.settlements.exportBatch(c.positions.first ?? '0', c.positions.periodLast ?? '0', after, limit),
  key: (r) => String(r.global_position),
  json: camel,
};

const DECISIONS: ExportKindSpec = {
  kind: 'decisions',
  title: 'Management decisions export (voids, corrections)',
  selects: `every event of type ${AUDIT_DECISION_TYPES.join(', ')} in the period's positions (first..periodLast)`,
  columns: ['globalPosition', 'eventId', 'type', 'tableId', 'shoeId', 'roundId', 'actorId', 'actorRole', 'occurredAt', 'recordedAt', 'reason', 'actingManagerId', 'approverId', 'compensates', 'data'],
  count: (s, c) => s.readModel.audit.decisionsExportCount(c.positions.first ?? '0', c.positions.periodLast ?? '0'),
  batch: (s, c, after, limit) => s.readModel.audit.decisionsExportBatch(c.positions.first ?? '0', c.positions.periodLast ?? '0', after, limit),
  key: (r) => String(r.global_position),
  json: camel,
};

const REJECTIONS: ExportKindSpec = {
  kind: 'rejections',
  title: "Rejections export (refused requests, the event store's rejection log)",
  selects: 'every refused request received in the period (receivedAt in [from, to))',
  columns: ['id', 'receivedAt', 'code', 'message', 'httpStatus', 'actorId', 'actorRole', 'route', 'tableId', 'correlationId', 'rawPayload'],
  count: (s, c) => counted(s.q, `SELECT count(*)::text AS n FROM rejections WHERE received_at >= $1 AND received_at < $2`, [c.from, c.to]),
  batch: (s, c, after, limit) =>
    rows<Record<string, unknown>>(
      s.q,
      `SELECT id::text AS id, received_at, code, message, http_status, actor_id, actor_role, route, table_id, correlation_id, raw_payload
            FROM rejections WHERE received_at >= $1 AND received_at < $2 AND ($3::bigint IS NULL OR rejections.id > $3::bigint) ORDER BY rejections.id LIMIT $4`,
      [c.from, c.to, after, limit],
    ),
  key: (r) => String(r.id),
  json: camel,
};

const ACCESS_LOG: ExportKindSpec = {
  kind: 'access-log',
  title: 'Access log export (who looked at what)',
  selects: 'every audited read recorded in the period (at in [from, to))',
  columns: ['id', 'at', 'actorId', 'actorRole', 'route', 'params', 'resultCount', 'status', 'correlationId'],
  count: (s, c) => counted(s.q, `SELECT count(*)::text AS n FROM query_log WHERE at >= $1 AND at < $2`, [c.from, c.to]),
  batch: (s, c, after, limit) =>
    rows<Record<string, unknown>>(
      s.q,
      `SELECT id::text AS id, at, actor_id, actor_role, route, params, result_count, status, correlation_id
            FROM query_log WHERE at >= $1 AND at < $2 AND ($3::bigint IS NULL OR query_log.id > $3::bigint) ORDER BY query_log.id LIMIT $4`,
      [c.from, c.to, after, limit],
    ),
  key: (r) => String(r.id),
  json: camel,
};

/** Every kind by name. */
export const EXPORT_SPECS: ReadonlyMap<ExportKind, ExportKindSpec> = new Map([EVENTS, SETTLEMENTS, DECISIONS, REJECTIONS, ACCESS_LOG].map((s) => [s.kind, s]));

/** Whether `name` is an {@link ExportKind} (a `Map` lookup, never an object index). */
export function isExportKind(name: string): name is ExportKind {
  return EXPORT_SPECS.has(name as ExportKind);
}

/**
 * One CSV record of a JSONL object, in `columns` order: strings as they are, numbers and booleans as
 * text, null as the empty field, objects (event `data`, `rawPayload`, `params`) as their canonical
 * JSON (RFC 8785), so a CSV of events holds the same bytes the hash covers. Events' `actor` is spread
 * into `actorId`, `actorRole`.
 */
export function csvRecord(columns: readonly string[], o: Record<string, unknown>): string[] {
  const flat: Record<string, unknown> = { ...o };
  const actor = o.actor as { id?: string; role?: string } | undefined;
  if (actor && typeof actor === 'object') {
    flat.actorId = actor.id;
    flat.actorRole = actor.role;
  }
  return columns.map((c) => {
    const v = flat[c];
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return canonicalJson(v);
    return typeof v === 'string' ? v : String(v);
  });
}
