import { AUDIT_DECISION_TYPES } from '@ledger/read-model';
import { EVENT_COLUMNS, rowToEnvelope, canonicalJson, type EventRow } from '@ledger/event-store';

/**
 * The five exports for regulators (docs/reports.md §5): what each one holds, how it is read from
 * PostgreSQL one keyset batch at a time, and its CSV columns. Pure descriptions: the SQL and the
 * row mappings; {@link ExportsService} runs them in one read-only snapshot.
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

/** What a batch query needs. */
export interface ExportContext {
  /** The read-model schema (`PROJECTIONS_SCHEMA`), already validated. */
  readonly schema: string;
  /** ISO-8601 times, `from` inclusive, `to` exclusive. */
  readonly from: string;
  readonly to: string;
  readonly positions: ExportPositions;
}

/** One kind: title, machine name, columns, and its count and batch statements. */
export interface ExportKindSpec {
  readonly kind: ExportKind;
  /** `ReportHeader.title`. */
  readonly title: string;
  /** What the period selects, said in the docs and in the header's filters. */
  readonly selects: string;
  /** CSV columns in order (also the keys of a JSONL line, except for `events`: the stored envelope). */
  readonly columns: readonly string[];
  /** SQL + parameters counting the rows of the export. */
  count(c: ExportContext): { sql: string; args: unknown[] };
  /** SQL + parameters of the batch after keyset `after` (null: the first batch), at most `limit` rows, in key order. */
  batch(c: ExportContext, after: string | null, limit: number): { sql: string; args: unknown[] };
  /** The keyset key of a row as the batch SQL returns it (a decimal string). */
  key(row: Record<string, unknown>): string;
  /** The JSONL object of a row. */
  json(row: Record<string, unknown>): Record<string, unknown>;
}

/** snake_case row → camelCase object, times as ISO-8601 UTC with milliseconds. */
function camel(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())] = v instanceof Date ? v.toISOString() : v;
  return out;
}

/** The SQL list of the decision types (constants, never input). */
const DECISION_TYPES_SQL = AUDIT_DECISION_TYPES.map((t) => `'${t}'`).join(', ');

const EVENTS: ExportKindSpec = {
  kind: 'events',
  title: 'Ledger events export',
  selects: 'every event at a global position from the first to the last recorded in the period (recordedAt), extended to the first signed checkpoint after it',
  columns: ['globalPosition', 'eventId', 'type', 'schemaVersion', 'streamId', 'streamVersion', 'tableId', 'occurredAt', 'recordedAt', 'actorId', 'actorRole', 'correlationId', 'causationId', 'prevHash', 'hash', 'data'],
  count: (c) => ({ sql: `SELECT count(*)::text AS n FROM events WHERE global_position >= $1::bigint AND global_position <= $2::bigint`, args: [c.positions.first ?? '0', c.positions.through ?? '0'] }),
  batch: (c, after, limit) => ({
    sql: `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.global_position >= $1::bigint AND e.global_position <= $2::bigint AND ($3::bigint IS NULL OR e.global_position > $3::bigint)
           ORDER BY e.global_position LIMIT $4`,
    args: [c.positions.first ?? '0', c.positions.through ?? '0', after, limit],
  }),
  key: (r) => String(r.global_position),
  // the stored envelope at its stored schema version (not upcast): exactly what was hashed, plus hash and globalPosition
  json: (r) => rowToEnvelope(r as unknown as EventRow) as unknown as Record<string, unknown>,
};

const SETTLEMENT_SELECT = `r.global_position::text AS global_position, r.event_id, r.bet_id, r.seq, r.kind, r.revision, r.round_id, b.shoe_id, b.table_id,
  b.dealer_id, b.gaming_day::text AS gaming_day, b.account_id, b.bet_code, b.currency, r.stake::text AS stake, r.result, r.winnings::text AS winnings,
  r.payout::text AS payout, r.net::text AS net, r.dropped, r.paytable_ref, r.compensates, r.actor_id, r.actor_role, r.cause_event_id, r.reason,
  r.approver_id, r.occurred_at`;

const SETTLEMENTS: ExportKindSpec = {
  kind: 'settlements',
  title: 'Settlements export (every settlement, resettlement and refund)',
  selects: 'every settlement revision (SETTLED, RESETTLED, REFUNDED) whose event lies in the period\'s positions (first..periodLast)',
  columns: ['globalPosition', 'eventId', 'betId', 'seq', 'kind', 'revision', 'roundId', 'shoeId', 'tableId', 'dealerId', 'gamingDay', 'accountId', 'betCode', 'currency', 'stake', 'result', 'winnings', 'payout', 'net', 'dropped', 'paytableRef', 'compensates', 'actorId', 'actorRole', 'causeEventId', 'reason', 'approverId', 'occurredAt'],
  count: (c) => ({
    sql: `SELECT count(*)::text AS n FROM "${c.schema}".bet_settlement_revisions WHERE global_position >= $1::bigint AND global_position <= $2::bigint`,
    args: [c.positions.first ?? '0', c.positions.periodLast ?? '0'],
  }),
  batch: (c, after, limit) => ({
    sql: `SELECT ${SETTLEMENT_SELECT} FROM "${c.schema}".bet_settlement_revisions r JOIN "${c.schema}".bet_settlements b ON b.bet_id = r.bet_id
           WHERE r.global_position >= $1::bigint AND r.global_position <= $2::bigint AND ($3::bigint IS NULL OR r.global_position > $3::bigint)
           ORDER BY r.global_position LIMIT $4`,
    args: [c.positions.first ?? '0', c.positions.periodLast ?? '0', after, limit],
  }),
  key: (r) => String(r.global_position),
  json: camel,
};

const DECISIONS: ExportKindSpec = {
  kind: 'decisions',
  title: 'Management decisions export (voids, corrections)',
  selects: `every event of type ${AUDIT_DECISION_TYPES.join(', ')} in the period's positions (first..periodLast)`,
  columns: ['globalPosition', 'eventId', 'type', 'tableId', 'shoeId', 'roundId', 'actorId', 'actorRole', 'occurredAt', 'recordedAt', 'reason', 'actingManagerId', 'approverId', 'compensates', 'data'],
  count: (c) => ({
    sql: `SELECT count(*)::text AS n FROM "${c.schema}".audit_events WHERE type IN (${DECISION_TYPES_SQL}) AND global_position >= $1::bigint AND global_position <= $2::bigint`,
    args: [c.positions.first ?? '0', c.positions.periodLast ?? '0'],
  }),
  batch: (c, after, limit) => ({
    sql: `SELECT global_position::text AS global_position, event_id, type, table_id, shoe_id, round_id, actor_id, actor_role, occurred_at, recorded_at,
                 reason, acting_manager_id, approver_id, compensates, data
            FROM "${c.schema}".audit_events AS audit_events
           WHERE type IN (${DECISION_TYPES_SQL}) AND global_position >= $1::bigint AND global_position <= $2::bigint AND ($3::bigint IS NULL OR global_position > $3::bigint)
           ORDER BY audit_events.global_position LIMIT $4`,
    args: [c.positions.first ?? '0', c.positions.periodLast ?? '0', after, limit],
  }),
  key: (r) => String(r.global_position),
  json: camel,
};

const REJECTIONS: ExportKindSpec = {
  kind: 'rejections',
  title: 'Rejections export (refused requests, the event store\'s rejection log)',
  selects: 'every refused request received in the period (receivedAt in [from, to))',
  columns: ['id', 'receivedAt', 'code', 'message', 'httpStatus', 'actorId', 'actorRole', 'route', 'tableId', 'correlationId', 'rawPayload'],
  count: (c) => ({ sql: `SELECT count(*)::text AS n FROM rejections WHERE received_at >= $1 AND received_at < $2`, args: [c.from, c.to] }),
  batch: (c, after, limit) => ({
    sql: `SELECT id::text AS id, received_at, code, message, http_status, actor_id, actor_role, route, table_id, correlation_id, raw_payload
            FROM rejections WHERE received_at >= $1 AND received_at < $2 AND ($3::bigint IS NULL OR id > $3::bigint) ORDER BY id LIMIT $4`,
    args: [c.from, c.to, after, limit],
  }),
  key: (r) => String(r.id),
  json: camel,
};

const ACCESS_LOG: ExportKindSpec = {
  kind: 'access-log',
  title: 'Access log export (who looked at what)',
  selects: 'every audited read recorded in the period (at in [from, to))',
  columns: ['id', 'at', 'actorId', 'actorRole', 'route', 'params', 'resultCount', 'status', 'correlationId'],
  count: (c) => ({ sql: `SELECT count(*)::text AS n FROM query_log WHERE at >= $1 AND at < $2`, args: [c.from, c.to] }),
  batch: (c, after, limit) => ({
    sql: `SELECT id::text AS id, at, actor_id, actor_role, route, params, result_count, status, correlation_id
            FROM query_log WHERE at >= $1 AND at < $2 AND ($3::bigint IS NULL OR id > $3::bigint) ORDER BY id LIMIT $4`,
    args: [c.from, c.to, after, limit],
  }),
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
