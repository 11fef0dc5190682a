import type { Role, VoidCause } from '@ledger/events';
import type { Winner } from '@ledger/rules';

/** The tables of the outcomes read model (`outcomes/projection.ts`; migration 1733000000000). */
export const HAND_OUTCOMES_TABLE = 'hand_outcomes';
/** Every RESULTED / CORRECTED / VOIDED of a round (append-only). */
export const HAND_OUTCOME_REVISIONS_TABLE = 'hand_outcome_revisions';

/** `hand_outcomes.status`. */
export type RoundStatus = 'OPEN' | 'RESULTED' | 'CORRECTED' | 'VOIDED';

/**
 * A row of `hand_outcomes` (one per round) as PostgreSQL returns it through `pg`: smallint and
 * integer as numbers, date and timestamptz as `Date`s (read `gaming_day::text` for the day), jsonb parsed.
 */
export interface HandOutcomeRow {
  readonly round_id: string;
  readonly shoe_id: string;
  readonly table_id: string;
  readonly hand_number: number;
  /** The dealer at RoundOpened (the round's attribution). */
  readonly dealer_id: string;
  /** The dealer who dealt it (a DealerChanged before betting closed changes it). */
  readonly dealing_dealer_id: string;
  /** The gaming day of the RoundOpened's `recordedAt` (docs/domain-rules.md §7). */
  readonly gaming_day: Date;
  readonly currency: string;
  readonly paytable_ref: string;
  readonly opened_at: Date;
  readonly status: RoundStatus;
  readonly betting_closed: boolean;
  /** Cards dealt, in order. */
  readonly cards: string[];
  readonly unneeded_cards: string[];
  readonly player_cards: string[] | null;
  readonly banker_cards: string[] | null;
  readonly player_total: number | null;
  readonly banker_total: number | null;
  readonly winner: Winner | null;
  readonly is_natural: boolean | null;
  readonly player_pair: boolean | null;
  readonly banker_pair: boolean | null;
  readonly last_hand: boolean;
  readonly current_revision: number;
  readonly result_event_id: string | null;
  readonly resulted_at: Date | null;
  readonly corrected_at: Date | null;
  readonly void_cause: VoidCause | null;
  readonly voided_at: Date | null;
  readonly void_event_id: string | null;
}

/** A row of `hand_outcome_revisions` (key: round, revision) as PostgreSQL returns it through `pg` (see {@link HandOutcomeRow}). */
export interface HandOutcomeRevisionRow {
  readonly round_id: string;
  readonly revision: number;
  readonly kind: 'RESULTED' | 'CORRECTED' | 'VOIDED';
  readonly shoe_id: string;
  readonly table_id: string;
  /** The corrected cards (CORRECTED); null otherwise. */
  readonly cards: string[] | null;
  readonly player_cards: string[] | null;
  readonly banker_cards: string[] | null;
  readonly player_total: number | null;
  readonly banker_total: number | null;
  readonly winner: Winner | null;
  readonly is_natural: boolean | null;
  readonly player_pair: boolean | null;
  readonly banker_pair: boolean | null;
  readonly paytable_ref: string | null;
  readonly void_cause: VoidCause | null;
  /** The event that caused an automatic void (a shoe's void, a card exposed or dropped). */
  readonly caused_by: string | null;
  readonly event_id: string;
  readonly global_position: string;
  readonly actor_id: string;
  readonly actor_role: Role;
  readonly reason: string | null;
  readonly acting_manager_id: string | null;
  readonly approver_id: string | null;
  readonly compensates: string | null;
  readonly occurred_at: Date;
  readonly recorded_at: Date;
}
