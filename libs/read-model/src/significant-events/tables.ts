/**
 * The table of the significant-events read model (`significant-events/projection.ts`, migration
 * 1799000800000): one row per significant event raised, acknowledged or not.
 */
export const SIGNIFICANT_EVENTS_TABLE = 'significant_events';

/**
 * A row of `significant_events` as PostgreSQL returns it through `pg`: bigint as a decimal string,
 * smallint as a number, timestamptz as a `Date`, jsonb parsed.
 */
export type SignificantEventRow = {
  readonly significant_event_id: string;
  /** Catalogue code `AREA.REASON` (docs/significant-events.md). */
  readonly code: string;
  readonly severity: string;
  /** 0 (info) … 4 (critical): the order of the severities. */
  readonly severity_rank: number;
  /** Null for a ledger-wide cause (an early close). */
  readonly table_id: string | null;
  readonly shoe_id: string | null;
  readonly round_id: string | null;
  readonly dealer_id: string | null;
  /** Whose act caused it (the cause event's actor). */
  readonly actor_id: string;
  /** The cause's kind: `event`, `refusal`, `projector`, `verifier`, `rate-limit-window` (docs/significant-events.md, "Causes"). */
  readonly cause_kind: string;
  /** The cause event's id, type and position; null for a cause that is not a ledger event. */
  readonly cause_event_id: string | null;
  readonly cause_event_type: string | null;
  readonly cause_global_position: string | null;
  /** The cause as raised (null in rows projected before the tagged causes). */
  readonly cause: Record<string, unknown> | null;
  readonly details: Record<string, string>;
  /** Whether a second person must acknowledge it (severity high or above). */
  readonly requires_ack: boolean;
  /** The raise's `recordedAt` (the ledger's clock) and global position. */
  readonly raised_at: Date;
  readonly raised_position: string;
  readonly acknowledged_by: string | null;
  readonly acknowledged_role: string | null;
  readonly ack_reason: string | null;
  readonly acknowledged_at: Date | null;
  readonly ack_position: string | null;
};
