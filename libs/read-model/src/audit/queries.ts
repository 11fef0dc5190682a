import { first, rows, tablesIn, type Queryable } from '../sql';
import { AUDIT_EVENTS_TABLE, AUDIT_DECISION_TYPES, type AuditEventRow } from './tables';

/**
 * The audit read model's queries (docs/reports.md §1, §5, §6): every event as the projector copied
 * it (`audit_events`), searched by table, shoe, round, type, actor and time in global order; the
 * management decisions; a round's events for game recall; the decisions export; and the staff
 * statistics computed from the events. Global positions come back as decimal strings; times as `Date`.
 */

/** The audit read model's tables (their names are declared in `tables.ts`). */
export const AUDIT_TABLES = { events: AUDIT_EVENTS_TABLE } as const;

/** An event of `GET /audit/events` (before camelCase): every column of `audit_events` but `prev_hash`. */
export type AuditEventPageRow = Omit<AuditEventRow, 'prev_hash'>;

/** An event of a round's recall (before camelCase), in stream order. */
export type RecallEventRow = Pick<
  AuditEventPageRow,
  | 'global_position'
  | 'event_id'
  | 'stream_version'
  | 'type'
  | 'actor_id'
  | 'actor_role'
  | 'occurred_at'
  | 'recorded_at'
  | 'correlation_id'
  | 'causation_id'
  | 'reason'
  | 'acting_manager_id'
  | 'approver_id'
  | 'compensates'
  | 'hash'
  | 'data'
> & { prev_hash: string };

/** An event of a page of {@link AuditReads.page}: with a time window, its `occurred_at` as the page's key too (ISO-8601 UTC with microseconds, exact, for the next cursor). */
export type AuditPageRow = AuditEventPageRow & { occurred_key?: string };

/** A management decision of `GET /audit/decisions` and of the decisions export (before camelCase). */
export type DecisionEventRow = Pick<
  AuditEventPageRow,
  'global_position' | 'event_id' | 'table_id' | 'shoe_id' | 'round_id' | 'type' | 'actor_id' | 'actor_role' | 'occurred_at' | 'recorded_at' | 'reason' | 'acting_manager_id' | 'approver_id' | 'compensates' | 'data'
>;

/** Filters of the event search (null: no filter). Times ISO-8601, `from` inclusive, `to` exclusive, on `occurredAt`. */
export interface AuditEventFilters {
  readonly tableId?: string | null;
  readonly shoeId?: string | null;
  readonly roundId?: string | null;
  readonly type?: string | null;
  readonly actorId?: string | null;
  readonly from?: string | null;
  readonly to?: string | null;
  /**
   * Only events after this global position (a decoded cursor, decimal string); with a time window
   * (`from` or `to`), after the event at (`afterOccurredAt`, `afterPosition`) in time order.
   */
  readonly afterPosition?: string | null;
  /** With a time window: the `occurredAt` of the cursor's event (ISO-8601 UTC, microseconds, as a page's `occurred_key` gives it). */
  readonly afterOccurredAt?: string | null;
  /** Most rows read (a page's limit + 1 tells whether there is a next page). */
  readonly take: number;
}

/** The decision types spelled out in SQL (constants, never input): PostgreSQL then proves the partial index of these types holds every row asked for. */
const DECISION_TYPES_SQL = AUDIT_DECISION_TYPES.map((t) => `'${t}'`).join(', ');

const DECISION_COLUMNS = `global_position::text AS global_position, event_id, table_id, shoe_id, round_id, type, actor_id, actor_role, occurred_at, recorded_at,
              reason, acting_manager_id, approver_id, compensates, data`;

/** The reads of the audit read model on one connection (or pool). */
export class AuditReads {
  private readonly t: { readonly events: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, AUDIT_TABLES);
  }

  /**
   * A round's events for game recall, in stream order: the round's own, its shoe's void or close,
   * and the four-eyes chain of every decision that concerns the round (docs/domain-rules.md §6).
   * Each part reads an index of `1797020000000-audit-keyset-indexes` (a shoe of 10,000-bet rounds
   * holds ~10^6 rows: never walk all of them).
   */
  ofRound(shoeId: string, roundId: string): Promise<RecallEventRow[]> {
    const E = this.t.events;
    return rows<RecallEventRow>(
      this.q,
      `SELECT global_position::text AS global_position, event_id, stream_version, type, actor_id, actor_role, occurred_at, recorded_at,
              correlation_id, causation_id, reason, acting_manager_id, approver_id, compensates, hash, prev_hash, data
         FROM ${E}
        WHERE global_position IN (
              SELECT r.global_position FROM ${E} r WHERE r.round_id = $2 AND r.shoe_id = $1
              UNION SELECT v.global_position FROM ${E} v WHERE v.type IN ('ShoeVoided', 'ShoeClosed') AND v.shoe_id = $1
              UNION SELECT c.global_position FROM ${E} c
               WHERE c.type IN ('DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired') AND c.shoe_id = $1
                 AND c.data ->> 'decisionId' IN (
                    SELECT d.data ->> 'decisionId' FROM ${E} d
                     WHERE d.type = 'DecisionRequested' AND d.shoe_id = $1
                       AND (d.data -> 'roundIds' ? $2 OR d.data -> 'proposal' ->> 'roundId' = $2)))
        ORDER BY stream_version`,
      [shoeId, roundId],
    );
  }

  /**
   * Events by table, shoe, round, type, actor and time range (docs/architecture.md §7, "Audit
   * search"): without a time window in global order, keyset on the position, one `(filter,
   * global_position)` index range; with `from` or `to`, in order of `(occurred_at,
   * global_position)`, keyset on both (`afterOccurredAt`, `afterPosition`), one range of the index
   * of that pair (migration 1799000700000), and each row carries its `occurred_key`.
   */
  page(f: AuditEventFilters): Promise<AuditPageRow[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, ...v: unknown[]) => {
      if (v.some((x) => x === null || x === undefined)) return;
      let text = sql;
      for (const x of v) {
        args.push(x);
        text = text.replace('?', `$${args.length}`);
      }
      where.push(text);
    };
    add('table_id = ?', f.tableId);
    add('shoe_id = ?', f.shoeId);
    add('round_id = ?', f.roundId);
    add('type = ?', f.type);
    add('actor_id = ?', f.actorId);
    add('occurred_at >= ?', f.from);
    add('occurred_at < ?', f.to);
    const byTime = Boolean(f.from || f.to);
    if (byTime) add('(occurred_at, global_position) > (?::timestamptz, ?::bigint)', f.afterOccurredAt, f.afterPosition);
    else add('global_position > ?', f.afterPosition);
    args.push(f.take);
    const key = byTime ? `, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_key` : '';
    const order = byTime ? 'audit_events.occurred_at, audit_events.global_position' : 'audit_events.global_position';
    return rows<AuditPageRow>(
      this.q,
      `SELECT global_position::text AS global_position, event_id, stream_id, stream_version, table_id, shoe_id, round_id, bet_id, type, schema_version,
              actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id, reason, acting_manager_id, approver_id, compensates, hash, data${key}
         FROM ${this.t.events} AS audit_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
        ORDER BY ${order} LIMIT $${args.length}`,
      args,
    );
  }

  /**
   * Management decisions and automatic voids (`AUDIT_DECISION_TYPES`) by table, shoe, actor and
   * time, in global order, read from their partial index in keyset order. `f.type` and `f.roundId`
   * are not filters here (a typed search is {@link page}).
   */
  decisions(f: AuditEventFilters): Promise<DecisionEventRow[]> {
    return rows<DecisionEventRow>(
      this.q,
      `SELECT ${DECISION_COLUMNS}
         FROM ${this.t.events} AS audit_events
        WHERE type IN (${DECISION_TYPES_SQL}) AND ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR shoe_id = $2)
          AND ($3::timestamptz IS NULL OR occurred_at >= $3) AND ($4::timestamptz IS NULL OR occurred_at < $4)
          AND ($5::bigint IS NULL OR global_position > $5) AND ($6::text IS NULL OR actor_id = $6)
        ORDER BY audit_events.global_position LIMIT $7`,
      [f.tableId ?? null, f.shoeId ?? null, f.from ?? null, f.to ?? null, f.afterPosition ?? null, f.actorId ?? null, f.take],
    );
  }

  /** How many decisions lie at global positions `first..last` (inclusive; decimal strings), for the decisions export. */
  async decisionsExportCount(firstPosition: string, lastPosition: string): Promise<number> {
    const row = await first<{ n: string }>(this.q, `SELECT count(*)::text AS n FROM ${this.t.events} WHERE type IN (${DECISION_TYPES_SQL}) AND global_position >= $1::bigint AND global_position <= $2::bigint`, [
      firstPosition,
      lastPosition,
    ]);
    return Number(row?.n ?? 0);
  }

  /** The decisions at positions `first..last` after position `after` (null: from the first), at most `limit`, in global order. */
  decisionsExportBatch(firstPosition: string, lastPosition: string, after: string | null, limit: number): Promise<DecisionEventRow[]> {
    return rows<DecisionEventRow>(
      this.q,
      `SELECT ${DECISION_COLUMNS}
            FROM ${this.t.events} AS audit_events
           WHERE type IN (${DECISION_TYPES_SQL}) AND global_position >= $1::bigint AND global_position <= $2::bigint AND ($3::bigint IS NULL OR global_position > $3::bigint)
           ORDER BY audit_events.global_position LIMIT $4`,
      [firstPosition, lastPosition, after, limit],
    );
  }
}
