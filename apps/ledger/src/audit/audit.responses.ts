import { Int, Json, List, NInt, NStr, Position, Str, Time } from '../kernel/openapi-props';
import { EventCore } from '../kernel/event.dto';

/**
 * The response schemas of the audit reads (events, decisions, access log) (docs/openapi.json; the
 * console's types are generated from it). Classes only describe; the services answer plain objects of
 * these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

/** An event as the audit search shows it (from `audit_events`). */
export class AuditEvent extends EventCore {
  @Str() streamId!: string;
  @Int() streamVersion!: number;
  @Str("the table; `*` for a ledger-wide event (a gaming day's close, docs/reports.md §2)") tableId!: string;
  @NStr('null for a ledger-wide event (stream gaming-day-<day>)') shoeId!: string | null;
  @NStr() roundId!: string | null;
  @NStr() betId!: string | null;
  @Int() schemaVersion!: number;
  @Str() correlationId!: string;
  @Str() causationId!: string;
  @Str() hash!: string;
}

/** `GET /audit/events`: global order. */
export class AuditEventsPage {
  @List(() => AuditEvent) items!: AuditEvent[];
  @NStr() nextCursor!: string | null;
}

/** A decision event (void, correction, shoe void, commencement correction). */
export class AuditDecision extends EventCore {
  @Str() tableId!: string;
  @Str() shoeId!: string;
  @NStr() roundId!: string | null;
}

/** `GET /audit/decisions`: global order. */
export class AuditDecisionsPage {
  @List(() => AuditDecision) items!: AuditDecision[];
  @NStr() nextCursor!: string | null;
}

/** One audit read: who looked at what. */
export class AccessLogEntry {
  @Position() id!: string;
  @Time() at!: string;
  @Str() actorId!: string;
  @Str() actorRole!: string;
  @Str({ example: 'GET /audit/events' }) route!: string;
  @Json('path and query parameters') params!: Record<string, unknown>;
  @NInt('rows answered') resultCount!: number | null;
  @Int() status!: number;
  @NStr() correlationId!: string | null;
}

/** `GET /audit/access-log`: oldest first. */
export class AccessLogPage {
  @List(() => AccessLogEntry) items!: AccessLogEntry[];
  @NStr() nextCursor!: string | null;
}
