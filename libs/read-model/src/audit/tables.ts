import type { LedgerEventType, Role } from '@ledger/events';

export { AUDIT_DECISION_TYPES } from '../migrations/1797020000000-audit-keyset-indexes';

/**
 * The table of the audit read model (`audit/projection.ts`): every applied event, flattened, one
 * row per event keyed by its global position (migrations 1733000000000, 1797020000000, 1799000400000).
 */
export const AUDIT_EVENTS_TABLE = 'audit_events';

/**
 * A row of `audit_events` as PostgreSQL returns it through `pg`: bigint as a decimal string,
 * timestamptz as a `Date`, jsonb parsed.
 */
export interface AuditEventRow {
  readonly global_position: string;
  readonly event_id: string;
  readonly stream_id: string;
  readonly stream_version: number;
  readonly table_id: string;
  /** Null for a ledger-wide event (a gaming day's close: stream `gaming-day-<day>`). */
  readonly shoe_id: string | null;
  readonly round_id: string | null;
  readonly bet_id: string | null;
  readonly type: LedgerEventType;
  readonly schema_version: number;
  readonly actor_id: string;
  readonly actor_role: Role;
  /** The device's clock (not global order). */
  readonly occurred_at: Date;
  /** The ledger's clock. */
  readonly recorded_at: Date;
  readonly correlation_id: string;
  readonly causation_id: string;
  /** The decision's reason, or the event's own `reason`. */
  readonly reason: string | null;
  readonly acting_manager_id: string | null;
  readonly approver_id: string | null;
  /** The event id a compensating event compensates. */
  readonly compensates: string | null;
  readonly prev_hash: string;
  readonly hash: string;
  /** The event's `data`, as applied (upcast). */
  readonly data: Record<string, unknown>;
}
