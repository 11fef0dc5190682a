import type { Role } from '@ledger/events';
import type { BetResult } from '@ledger/rules';

/** The tables of the settlements read model (`settlements/projection.ts`; migration 1733000000000). */
export const BET_SETTLEMENTS_TABLE = 'bet_settlements';
/** Every SETTLED / RESETTLED / REFUNDED of a bet (append-only). */
export const BET_SETTLEMENT_REVISIONS_TABLE = 'bet_settlement_revisions';

/** `bet_settlements.status`. */
export type BetSettlementStatus = 'OPEN' | 'SETTLED' | 'RESETTLED' | 'REFUNDED';

/**
 * A row of `bet_settlements` (one per bet) as PostgreSQL returns it through `pg`: amounts (bigint,
 * minor units) as decimal strings, integer as a number, date and timestamptz as `Date`s (read
 * `gaming_day::text` for the day).
 */
export interface BetSettlementRow {
  readonly bet_id: string;
  readonly round_id: string;
  readonly shoe_id: string;
  readonly table_id: string;
  /** The round's dealer at RoundOpened. */
  readonly dealer_id: string;
  /** The round's gaming day. */
  readonly gaming_day: Date;
  readonly account_id: string;
  readonly bet_code: string;
  readonly currency: string;
  readonly stake: string;
  readonly status: BetSettlementStatus;
  readonly result: BetResult | null;
  readonly winnings: string | null;
  readonly payout: string | null;
  readonly net: string | null;
  /** The fraction of a minor unit dropped by rounding, as the settlement states it. */
  readonly dropped: string | null;
  readonly paytable_ref: string | null;
  readonly revision: number;
  readonly revisions: number;
  /** The payout of the first settlement (what reconciliation counted first). */
  readonly first_payout: string | null;
  /** Payout now minus the first payout (resettlements). */
  readonly correction_payout_delta: string;
  readonly refunded_stake: string | null;
  readonly placed_at: Date;
  readonly settled_at: Date | null;
  readonly refunded_at: Date | null;
  readonly placed_event_id: string;
  readonly settlement_event_id: string | null;
  readonly refund_event_id: string | null;
}

/** A row of `bet_settlement_revisions` (key: bet, seq) as PostgreSQL returns it through `pg` (see {@link BetSettlementRow}). */
export interface BetSettlementRevisionRow {
  readonly bet_id: string;
  readonly seq: number;
  readonly kind: 'SETTLED' | 'RESETTLED' | 'REFUNDED';
  readonly revision: number;
  readonly round_id: string;
  readonly result: BetResult | null;
  readonly stake: string;
  readonly winnings: string | null;
  readonly payout: string | null;
  readonly net: string | null;
  readonly dropped: string | null;
  readonly paytable_ref: string | null;
  readonly compensates: string | null;
  readonly event_id: string;
  readonly global_position: string;
  /** The envelope's actor: who appended the event (in the four-eyes flow, the approver). */
  readonly actor_id: string;
  readonly actor_role: Role;
  /** The event's `causationId`. */
  readonly cause_event_id: string;
  readonly reason: string | null;
  readonly approver_id: string | null;
  readonly occurred_at: Date;
  /** The acting (requesting) manager of the decision behind a resettlement or refund, else null (migration 1799000600000). */
  readonly acting_manager_id: string | null;
}
