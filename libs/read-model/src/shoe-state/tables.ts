import type { CutCardDrawnData } from '@ledger/events';
import type { Variant } from '@ledger/rules';

/** The table of the shoe-state read model (`shoe-state/projection.ts`): one row per shoe (migration 1733000000000). */
export const SHOE_STATE_TABLE = 'shoe_state';

/** `shoe_state.status`. */
export type ShoeStatus = 'OPEN' | 'COMMENCING' | 'READY' | 'IN_ROUND' | 'CLOSED' | 'VOIDED';

/**
 * A row of `shoe_state` as PostgreSQL returns it through `pg`: integer as a number, bigint as a
 * decimal string, timestamptz as a `Date`, jsonb parsed.
 */
export interface ShoeStateRow {
  readonly shoe_id: string;
  readonly stream_id: string;
  readonly table_id: string;
  readonly variant: Variant;
  readonly decks: number;
  readonly virtual_table: boolean;
  /** The shoe's paytable `id@version` (its settings snapshot). */
  readonly paytable_ref: string;
  readonly currency: string;
  readonly opening_dealer_id: string;
  readonly dealer_id: string;
  readonly status: ShoeStatus;
  readonly hand_number: number;
  readonly current_round_id: string | null;
  readonly previous_round_id: string | null;
  readonly cards_out: number;
  readonly cards_remaining: number;
  readonly cards_unseen: number;
  readonly cards_dealt: number;
  readonly cards_burned: number;
  readonly cards_unneeded: number;
  readonly cards_exposed: number;
  readonly cards_dropped: number;
  /** Rank → cards of that rank out of the shoe. */
  readonly cards_out_by_rank: Record<string, number>;
  /** Rank → cards of that rank still in the shoe (decks × 4 minus the known cards out). */
  readonly cards_remaining_by_rank: Record<string, number>;
  readonly burns: number;
  readonly commencement_card: string | null;
  readonly commencement_burn_count: number | null;
  readonly commencement_burns_done: number;
  readonly commencement_event_id: string | null;
  readonly commencement_corrections: number;
  readonly cut_card_drawn: boolean;
  readonly cut_card_timing: CutCardDrawnData['timing'] | null;
  readonly cut_card_round_id: string | null;
  readonly last_hand_round_id: string | null;
  readonly voided: boolean;
  readonly void_event_id: string | null;
  readonly void_reason: string | null;
  readonly void_actor_id: string | null;
  readonly void_approver_id: string | null;
  readonly closed: boolean;
  readonly rounds_played: number | null;
  readonly opened_at: Date;
  readonly closed_at: Date | null;
  readonly voided_at: Date | null;
  /** Stream bookkeeping, written by the engine's applier for every applied event of the shoe's stream. */
  readonly stream_version: number;
  readonly last_event_id: string;
  readonly last_global_position: string;
}
