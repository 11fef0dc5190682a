import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { AUDIT_DECISION_TYPES, type ReadModel } from '@ledger/read-model';
import { decodePositionCursor, decodeTimePositionCursor, keysetPage, type Page } from '../kernel/pagination';
import { rows as sqlRows } from '../kernel/sql';
import { DATA_SOURCE, READ_MODEL } from '../kernel/tokens';

/** Filters of the event search. Times ISO-8601. */
export interface EventFilters {
  tableId?: string | null;
  shoeId?: string | null;
  roundId?: string | null;
  type?: string | null;
  actorId?: string | null;
  from?: string | null;
  to?: string | null;
  limit: number;
  cursor?: string | null;
}

/** Filters of the access log. Times ISO-8601. */
export interface AccessLogFilters {
  actorId?: string | null;
  from?: string | null;
  to?: string | null;
  limit: number;
  cursor?: string | null;
}

/**
 * The audit reads: the events (`audit_events`, through the read model, `READ_MODEL`), the decisions
 * among them, and who looked at what (`query_log`, the API's own table), as keyset pages in camelCase.
 */
@Injectable()
export class AuditService {
  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
  ) {}

  /**
   * Events by table, shoe, round, type, actor and time range; keyset pagination. In global order;
   * with a time window (`from` or `to`), in order of `occurredAt`, then global position, the cursor
   * a pair of both (docs/architecture.md §7).
   * @throws ApiError 400 `VALIDATION.FAILED` for a cursor of another page's kind
   */
  async events(f: EventFilters): Promise<Page<Record<string, unknown>>> {
    if (!f.from && !f.to) {
      const rows = await this.readModel.audit.page({ ...f, afterPosition: decodePositionCursor(f.cursor), take: f.limit + 1 });
      return keysetPage(rows, f.limit, (r) => r.global_position);
    }
    const after = decodeTimePositionCursor(f.cursor);
    const rows = await this.readModel.audit.page({ ...f, afterOccurredAt: after?.time ?? null, afterPosition: after?.position ?? null, take: f.limit + 1 });
    const page = keysetPage(rows, f.limit, (r) => [r.occurred_key, r.global_position]);
    return { ...page, items: page.items.map(({ occurredKey: _key, ...item }) => item) };
  }

  /**
   * Management decisions and automatic voids: round voids, result corrections, shoe voids,
   * commencement corrections ({@link AUDIT_DECISION_TYPES}), in global order; keyset pagination.
   */
  async decisions(f: EventFilters): Promise<Page<Record<string, unknown>>> {
    const types: readonly string[] = AUDIT_DECISION_TYPES;
    if (f.type && !types.includes(f.type)) return { items: [], nextCursor: null };
    if (f.type) return this.events(f);
    const rows = await this.readModel.audit.decisions({ ...f, afterPosition: decodePositionCursor(f.cursor), take: f.limit + 1 });
    return keysetPage(rows, f.limit, (r) => r.global_position);
  }

  /** Who looked at what: the query log (the API's own table), newest last; keyset pagination. */
  async accessLog(f: AccessLogFilters): Promise<Page<Record<string, unknown>>> {
    const rows = await sqlRows<AccessLogRow>(
      this.ds,
      `SELECT id::text AS id, at, actor_id, actor_role, route, params, result_count, status, correlation_id FROM query_log
        WHERE ($1::text IS NULL OR actor_id = $1) AND ($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)
          AND ($4::bigint IS NULL OR id > $4)
        ORDER BY query_log.id LIMIT $5`,
      [f.actorId ?? null, f.from ?? null, f.to ?? null, decodePositionCursor(f.cursor), f.limit + 1],
    );
    return keysetPage(rows, f.limit, (r) => r.id);
  }
}

/** A row of `query_log` as the access log answers it (before camelCase). */
type AccessLogRow = {
  id: string;
  at: Date;
  actor_id: string;
  actor_role: string;
  route: string;
  params: Record<string, unknown>;
  result_count: number | null;
  status: number;
  correlation_id: string | null;
};
