import { first, rows, tablesIn, type Queryable } from '../sql';
import { HAND_OUTCOMES_TABLE, HAND_OUTCOME_REVISIONS_TABLE } from './tables';
import { AUDIT_TABLES } from '../audit/queries';

/**
 * The hand-outcomes read model's queries (docs/reports.md §1, §2): a round as it stands and its
 * outcome revisions (resulted, corrected, voided) for game recall, a shoe's rounds by hand number,
 * the last rounds of shoes for the console's tables page, and the decisions behind outcome
 * revisions for the adjustments.
 */

/** The hand-outcomes read model's tables (their names are declared in `tables.ts`). */
export const OUTCOME_TABLES = { outcomes: HAND_OUTCOMES_TABLE, revisions: HAND_OUTCOME_REVISIONS_TABLE } as const;

/** Every column of `hand_outcomes` (`Round` before camelCase), the gaming day `YYYY-MM-DD`, cards as their codes. */
export type RoundRow = {
  round_id: string;
  shoe_id: string;
  table_id: string;
  hand_number: number;
  dealer_id: string;
  dealing_dealer_id: string;
  gaming_day: string;
  currency: string;
  paytable_ref: string;
  opened_at: Date;
  status: string;
  betting_closed: boolean;
  cards: string[];
  unneeded_cards: string[];
  player_cards: string[] | null;
  banker_cards: string[] | null;
  player_total: number | null;
  banker_total: number | null;
  winner: string | null;
  is_natural: boolean | null;
  player_pair: boolean | null;
  banker_pair: boolean | null;
  last_hand: boolean;
  current_revision: number;
  result_event_id: string | null;
  resulted_at: Date | null;
  corrected_at: Date | null;
  void_cause: string | null;
  voided_at: Date | null;
  void_event_id: string | null;
};

/** Every column of `hand_outcome_revisions` (a `RoundRevision` before camelCase); the position a decimal string. */
export type RoundRevisionRow = {
  round_id: string;
  revision: number;
  kind: string;
  shoe_id: string;
  table_id: string;
  cards: string[] | null;
  player_cards: string[] | null;
  banker_cards: string[] | null;
  player_total: number | null;
  banker_total: number | null;
  winner: string | null;
  is_natural: boolean | null;
  player_pair: boolean | null;
  banker_pair: boolean | null;
  paytable_ref: string | null;
  void_cause: string | null;
  caused_by: string | null;
  event_id: string;
  global_position: string;
  actor_id: string;
  actor_role: string;
  reason: string | null;
  acting_manager_id: string | null;
  approver_id: string | null;
  compensates: string | null;
  occurred_at: Date;
  recorded_at: Date;
};

/** A round of the tables page (`RoundSummary` before camelCase) with its shoe. */
export type RoundSummaryRow = Pick<RoundRow, 'shoe_id' | 'round_id' | 'hand_number' | 'status' | 'winner' | 'player_total' | 'banker_total' | 'player_pair' | 'banker_pair' | 'is_natural'>;

/** A resulted round of a table's gaming day as the fairness statistics read it (docs/fairness.md §1): its shoe, the dealer who dealt it, its paytable and its cards. */
export type FairnessRoundRow = {
  shoe_id: string;
  /** The dealer who dealt the round (`dealing_dealer_id`). */
  dealer_id: string;
  paytable_ref: string;
  player_cards: string[];
  banker_cards: string[];
};

/** The decision behind an outcome revision (for an adjustment): its position, and the four-eyes decision id of its event, if any. */
export type RevisionDecisionRow = {
  global_position: string;
  reason: string | null;
  acting_manager_id: string | null;
  approver_id: string | null;
  compensates: string | null;
  decision_id: string | null;
};

/** The columns of {@link RoundRow}, the gaming day as `YYYY-MM-DD` (not a JavaScript Date at local midnight). */
const ROUND_COLUMNS = `round_id, shoe_id, table_id, hand_number, dealer_id, dealing_dealer_id, gaming_day::text AS gaming_day, currency, paytable_ref, opened_at,
  status, betting_closed, cards, unneeded_cards, player_cards, banker_cards, player_total, banker_total, winner, is_natural, player_pair, banker_pair,
  last_hand, current_revision, result_event_id, resulted_at, corrected_at, void_cause, voided_at, void_event_id`;

/**
 * The columns of {@link RoundRevisionRow}: `actor_id` is the requesting pit manager of a decision's
 * revision (`acting_manager_id`) and the event's actor otherwise; the approver is `approver_id`.
 */
const REVISION_COLUMNS = `round_id, revision, kind, shoe_id, table_id, cards, player_cards, banker_cards, player_total, banker_total, winner,
  is_natural, player_pair, banker_pair, paytable_ref, void_cause, caused_by, event_id, global_position, coalesce(acting_manager_id, actor_id) AS actor_id,
  actor_role, reason, acting_manager_id, approver_id, compensates, occurred_at, recorded_at`;

/** The columns of a round in the tables page, from `x`. */
const ROUND_SUMMARY_COLUMNS = `x.round_id, x.hand_number, x.status, x.winner, x.player_total, x.banker_total, x.player_pair, x.banker_pair, x.is_natural`;

/** The reads of the hand-outcomes read model on one connection (or pool). */
export class OutcomeReads {
  private readonly t: { readonly outcomes: string; readonly revisions: string };
  private readonly audit: string;

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, OUTCOME_TABLES);
    this.audit = tablesIn(schema, AUDIT_TABLES).events;
  }

  /** A round of a shoe as it stands; `undefined` when not projected. */
  round(shoeId: string, roundId: string): Promise<RoundRow | undefined> {
    return first<RoundRow>(this.q, `SELECT ${ROUND_COLUMNS} FROM ${this.t.outcomes} WHERE shoe_id = $1 AND round_id = $2`, [shoeId, roundId]);
  }

  /**
   * Every outcome revision of a round, by revision. The actor of a decision's revision is the pit
   * manager who requested it (`acting_manager_id`), the approver beside it (`approver_id`): in the
   * four-eyes flow the event's envelope names the approver, who appended it (docs/reports.md §7).
   */
  revisions(roundId: string): Promise<RoundRevisionRow[]> {
    return rows<RoundRevisionRow>(this.q, `SELECT ${REVISION_COLUMNS} FROM ${this.t.revisions} WHERE round_id = $1 ORDER BY revision`, [roundId]);
  }

  /** A shoe's rounds by hand number ascending after hand `afterHand` (null: from the first), at most `take`. */
  ofShoe(shoeId: string, afterHand: number | null, take: number): Promise<RoundRow[]> {
    return rows<RoundRow>(
      this.q,
      `SELECT ${ROUND_COLUMNS} FROM ${this.t.outcomes}
        WHERE shoe_id = $1 AND ($2::integer IS NULL OR hand_number > $2) ORDER BY hand_number LIMIT $3`,
      [shoeId, afterHand, take],
    );
  }

  /** The last `perShoe` rounds of each shoe given, newest first per shoe; one statement on `hand_outcomes_shoe_hand_idx`. */
  lastOfShoes(shoeIds: readonly string[], perShoe: number): Promise<RoundSummaryRow[]> {
    if (!Number.isSafeInteger(perShoe) || perShoe < 0) throw new RangeError(`perShoe must be an integer >= 0, got ${perShoe}`);
    return rows<RoundSummaryRow>(
      this.q,
      `SELECT h.* FROM unnest($1::text[]) AS s(shoe_id)
             CROSS JOIN LATERAL (SELECT x.shoe_id, ${ROUND_SUMMARY_COLUMNS} FROM ${this.t.outcomes} x
                                  WHERE x.shoe_id = s.shoe_id ORDER BY x.hand_number DESC LIMIT ${perShoe}) AS h`,
      [[...shoeIds]],
    );
  }

  /**
   * The resulted rounds (status RESULTED or CORRECTED, as they now stand; voided and open rounds
   * left out) of a table's gaming day, optionally of one shoe or one dealer (who dealt them), by
   * shoe and hand number; one statement on the table/day index. A gaming day of a table holds a few
   * thousand rounds at most, so the answer is not paged.
   */
  resultedOfTableDay(tableId: string, gamingDay: string, filter: { readonly shoeId?: string; readonly dealerId?: string } = {}): Promise<FairnessRoundRow[]> {
    return rows<FairnessRoundRow>(
      this.q,
      `SELECT shoe_id, dealing_dealer_id AS dealer_id, paytable_ref, player_cards, banker_cards FROM ${this.t.outcomes}
        WHERE table_id = $1 AND gaming_day = $2::date AND status IN ('RESULTED', 'CORRECTED') AND player_cards IS NOT NULL
          AND ($3::text IS NULL OR shoe_id = $3) AND ($4::text IS NULL OR dealing_dealer_id = $4)
        ORDER BY shoe_id, hand_number`,
      [tableId, gamingDay, filter.shoeId ?? null, filter.dealerId ?? null],
    );
  }

  /** The decisions of the outcome revisions at the given global positions (decimal strings), with the decision id their event carries. */
  revisionDecisions(positions: readonly string[]): Promise<RevisionDecisionRow[]> {
    return rows<RevisionDecisionRow>(
      this.q,
      `SELECT v.global_position::text AS global_position, v.reason, v.acting_manager_id, v.approver_id, v.compensates,
                  a.data -> 'decision' ->> 'decisionId' AS decision_id
             FROM ${this.t.revisions} v LEFT JOIN ${this.audit} a ON a.global_position = v.global_position
            WHERE v.global_position = ANY($1::bigint[])`,
      [[...positions]],
    );
  }
}
