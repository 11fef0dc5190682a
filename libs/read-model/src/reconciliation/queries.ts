import { rows, tablesIn, type Queryable } from '../sql';
import { LEDGER_ENTRIES_TABLE, RECONCILIATION_REPORT_VIEW, RECONCILIATION_TABLE, type LedgerEntryRow } from './tables';

/**
 * The reconciliation read model's queries (docs/domain-rules.md §4, docs/reports.md §2, §3): the
 * sums of the position-stamped entries (`ledger_entries`, the one reconciliation rule,
 * `libs/projections/src/ledger-entries.ts`) live and as known at a global position P (the same
 * statement bounded by `global_position <= P`, so the as-of answer at the latest position is the live
 * one by construction), the adjustments after a gaming-day close, and the entries a close's check
 * compares with the events. Amounts (numeric minor units) come back as decimal strings.
 */

/** The reconciliation read model's tables (their names are declared in `tables.ts`). */
export const RECONCILIATION_TABLES = { entries: LEDGER_ENTRIES_TABLE, reconciliation: RECONCILIATION_TABLE, report: RECONCILIATION_REPORT_VIEW } as const;

/** A dimension the reconciliation can be grouped by. */
export type ReconciliationDimension = 'table' | 'shoe' | 'dealer' | 'day' | 'currency';

/**
 * The column of each dimension: the only identifiers the reconciliation puts into its SQL, looked up
 * in a `Map` (an object lookup let `constructor` through as the text of JavaScript's `Object`
 * function, which then reached the SQL).
 */
export const RECONCILIATION_DIMENSIONS: ReadonlyMap<ReconciliationDimension, string> = new Map([
  ['table', 'table_id'],
  ['shoe', 'shoe_id'],
  ['dealer', 'dealer_id'],
  ['day', 'gaming_day'],
  ['currency', 'currency'],
]);

/** Whether `name` is a {@link ReconciliationDimension} (a `Map` lookup, never an object index). */
export function isReconciliationDimension(name: string): name is ReconciliationDimension {
  return RECONCILIATION_DIMENSIONS.has(name as ReconciliationDimension);
}

/** What entries a reconciliation covers. Days are gaming days `YYYY-MM-DD`, inclusive; null = no filter. */
export interface ReconciliationScope {
  readonly groupBy: readonly ReconciliationDimension[];
  readonly tableId?: string | null;
  readonly shoeId?: string | null;
  readonly dealerId?: string | null;
  readonly currency?: string | null;
  readonly fromDay?: string | null;
  readonly toDay?: string | null;
  /** Only these tables (a gaming-day close's table set). */
  readonly tableIds?: readonly string[] | null;
  /** Only this round (an adjustment's figures). */
  readonly roundId?: string | null;
}

/** The sums of a group of entries (camelCase'd by the API): amounts and counts decimal strings. */
export type EntrySums = {
  turnover: string;
  payouts: string;
  voided_stakes: string;
  correction_payout_delta: string;
  bets_settled: string;
  bets_refunded: string;
  bets_resettled: string;
  rounds_resulted: string;
  rounds_voided: string;
  corrections: string;
  /** The dropped fractions `num/den` of the group's entries that dropped any, null when none did. */
  dropped_parts: string[] | null;
};

/**
 * One reconciliation group: its dimensions (the columns of `groupBy`, in its order, before the sums;
 * the gaming day `YYYY-MM-DD`), its sums, `ggr` = turnover − payouts and `hold` = GGR / turnover
 * rounded to 6 decimals (exact numeric), null without turnover.
 */
export type ReconciliationFiguresRow = { [dimension: string]: unknown } & EntrySums & { ggr: string; hold: string | null };

/** A closed (gaming day, table) pair and the position its close covers, for {@link ReconciliationReads.adjustmentSteps}. */
export interface ClosedPair {
  readonly gaming_day: string;
  readonly table_id: string;
  /** Decimal string. */
  readonly through_position: string;
  readonly close_id: string;
}

/** One step of a round after its day's close (from an outcome revision, or its first settlement, to the next revision) and currency, with its sums. */
export type AdjustmentStepRow = EntrySums & {
  round_id: string;
  shoe_id: string;
  table_id: string;
  dealer_id: string;
  gaming_day: string;
  close_id: string;
  /** The global position the step starts at (decimal string). */
  start_position: string;
  /** The event type that starts it (`RoundResulted`, `ResultCorrected`, `RoundVoided`, or a settlement's). */
  start_type: string;
  event_id: string;
  /** ISO-8601 UTC with milliseconds. */
  recorded_at: string;
  currency: string;
};

/** The sums over the entries of a group (numeric minor units → decimal text; hold exact, 6 decimals). */
const SUMS = `sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(turnover - payouts)::text AS ggr,
  CASE WHEN sum(turnover) = 0 THEN NULL ELSE round(sum(turnover - payouts) / sum(turnover), 6)::text END AS hold,
  sum(voided_stakes)::text AS voided_stakes, sum(correction_payout_delta)::text AS correction_payout_delta,
  sum(bets_settled)::text AS bets_settled, sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled,
  sum(rounds_resulted)::text AS rounds_resulted, sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
  array_agg(dropped_num::text || '/' || dropped_den::text) FILTER (WHERE dropped_num <> 0) AS dropped_parts`;

/** The filters over an entry's attribution columns, parameters $2..$9. */
function where(a: string): string {
  return `($2::text IS NULL OR ${a}.table_id = $2) AND ($3::text IS NULL OR ${a}.shoe_id = $3) AND ($4::text IS NULL OR ${a}.dealer_id = $4)
      AND ($5::text IS NULL OR ${a}.currency = $5) AND ($6::date IS NULL OR ${a}.gaming_day >= $6) AND ($7::date IS NULL OR ${a}.gaming_day <= $7)
      AND ($8::text[] IS NULL OR ${a}.table_id = ANY($8::text[])) AND ($9::text IS NULL OR ${a}.round_id = $9)`;
}

/**
 * A `ledger_entries` row as {@link ReconciliationReads.entriesOfShoe} reads it: the columns of
 * {@link LedgerEntryRow}, with `recorded_at` as ISO-8601 UTC text (milliseconds) and `gaming_day` as
 * `YYYY-MM-DD`, so that it compares as text with the entries folded from the events.
 */
export type LedgerEntryLine = Omit<LedgerEntryRow, 'recorded_at' | 'gaming_day'> & { readonly recorded_at: string; readonly gaming_day: string };

/** The columns of {@link LedgerEntryLine}, from `e`. */
const ENTRY_COLUMNS = `e.global_position::text AS global_position, entry_no, event_id, event_type,
  to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at, gaming_day::text AS gaming_day, table_id, shoe_id,
  round_id, bet_id, dealer_id, currency, turnover::text AS turnover, payouts::text AS payouts, correction_payout_delta::text AS correction_payout_delta,
  voided_stakes::text AS voided_stakes, bets_settled::text AS bets_settled, bets_refunded::text AS bets_refunded, bets_resettled::text AS bets_resettled,
  rounds_resulted::text AS rounds_resulted, rounds_voided::text AS rounds_voided, corrections::text AS corrections,
  dropped_num::text AS dropped_num, dropped_den::text AS dropped_den`;

/** An adjustment step's sums per currency over its entries (see {@link ReconciliationReads.adjustmentSteps}). */
const STEP_SUMS = `sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(voided_stakes)::text AS voided_stakes,
              sum(correction_payout_delta)::text AS correction_payout_delta, sum(bets_settled)::text AS bets_settled,
              sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled, sum(rounds_resulted)::text AS rounds_resulted,
              sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
              array_agg(dropped_num::text || '/' || dropped_den::text) FILTER (WHERE dropped_num <> 0) AS dropped_parts`;

/** The reads of the reconciliation read model on one connection (or pool, or a close's snapshot). */
export class ReconciliationReads {
  private readonly t: { readonly entries: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, RECONCILIATION_TABLES);
  }

  /** The live reconciliation: the sums of every entry of the scope, one row per group ordered by the grouping; none when no entry matched. @throws Error on an unknown dimension */
  live(scope: ReconciliationScope): Promise<ReconciliationFiguresRow[]> {
    return this.sums(scope, null);
  }

  /** The reconciliation as known at global `position` (docs/reports.md §3): the sums of the entries with `global_position <= position`. @throws Error on an unknown dimension */
  asOf(position: bigint, scope: ReconciliationScope): Promise<ReconciliationFiguresRow[]> {
    return this.sums(scope, position);
  }

  private async sums(scope: ReconciliationScope, position: bigint | null): Promise<ReconciliationFiguresRow[]> {
    const dims = scope.groupBy.map((d) => {
      const c = RECONCILIATION_DIMENSIONS.get(d);
      if (c === undefined) throw new Error(`unknown reconciliation dimension ${String(d).slice(0, 64)}`);
      return c;
    });
    const select = dims.map((c) => (c === 'gaming_day' ? 'gaming_day::text AS gaming_day' : c));
    const grouping = dims.length ? `GROUP BY ${dims.join(', ')} ORDER BY ${dims.join(', ')}` : '';
    const found = await rows<ReconciliationFiguresRow>(
      this.q,
      `SELECT ${[...select, ''].join(', ')} ${SUMS}
       FROM ${this.t.entries} x
      WHERE ($1::bigint IS NULL OR x.global_position <= $1::bigint) AND ${where('x')}
      ${grouping}`,
      [
        position === null ? null : position.toString(),
        scope.tableId ?? null,
        scope.shoeId ?? null,
        scope.dealerId ?? null,
        scope.currency ?? null,
        scope.fromDay ?? null,
        scope.toDay ?? null,
        scope.tableIds ? [...scope.tableIds] : null,
        scope.roundId ?? null,
      ],
    );
    // without a grouping, no entry still gives one row of nulls
    return found.filter((r) => r.turnover !== null);
  }

  /**
   * The steps of the rounds of closed (gaming day, table) pairs recorded after their close, as known
   * at `position` (docs/reports.md §2): the entries with `global_position` in (the close's
   * through_position, position], split per round at each outcome revision (a result, correction or
   * void, with the resettlements and refunds that follow it; settlements alone when they come first),
   * summed per step and currency; ordered by round, step start, currency. One index range of entries
   * per closed pair, never one statement per round.
   * @param closed the closes' pairs; only those with a day before `beforeDay` (when given) and a table of `tableIds` (when given)
   */
  adjustmentSteps(closed: readonly ClosedPair[], position: bigint, beforeDay: string | null, tableIds: readonly string[] | null): Promise<AdjustmentStepRow[]> {
    return rows<AdjustmentStepRow>(
      this.q,
      `WITH closed AS (
         SELECT c.gaming_day::date AS gaming_day, c.table_id, c.through_position::bigint AS through_position, c.close_id AS id
           FROM jsonb_to_recordset($1::jsonb) AS c(gaming_day text, table_id text, through_position text, close_id text)
          WHERE ($3::date IS NULL OR c.gaming_day::date < $3::date) AND ($4::text[] IS NULL OR c.table_id = ANY($4::text[]))),
       changed AS (
         SELECT e.*, cl.id AS close_id,
                coalesce(max(CASE WHEN e.event_type IN ('RoundResulted','ResultCorrected','RoundVoided') THEN e.global_position END)
                           OVER (PARTITION BY e.round_id ORDER BY e.global_position, e.entry_no ROWS UNBOUNDED PRECEDING),
                         min(e.global_position) OVER (PARTITION BY e.round_id)) AS start
           FROM closed cl JOIN ${this.t.entries} e
             ON e.gaming_day = cl.gaming_day AND e.table_id = cl.table_id AND e.global_position > cl.through_position AND e.global_position <= $2::bigint),
       stepped AS (
         SELECT c.*, first_value(event_id) OVER w AS start_event_id, first_value(event_type) OVER w AS start_type,
                first_value(recorded_at) OVER w AS start_recorded_at
           FROM changed c WINDOW w AS (PARTITION BY round_id, start ORDER BY global_position, entry_no))
       SELECT round_id, shoe_id, table_id, dealer_id, gaming_day::text AS gaming_day, close_id::text AS close_id, start::text AS start_position, start_type,
              start_event_id AS event_id, to_char(start_recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at, currency,
              ${STEP_SUMS}
         FROM stepped
        GROUP BY round_id, shoe_id, table_id, dealer_id, gaming_day, close_id, start, start_type, start_event_id, start_recorded_at, currency
        ORDER BY round_id, stepped.start, currency`,
      [JSON.stringify(closed), position.toString(), beforeDay, tableIds ? [...tableIds] : null],
    );
  }

  /** Every currency each round given has entries in up to `position`, with the first position of one (decimal string). */
  roundCurrencies(roundIds: readonly string[], position: bigint): Promise<{ round_id: string; currency: string; first: string }[]> {
    return rows(
      this.q,
      `SELECT round_id, currency, min(global_position)::text AS first FROM ${this.t.entries}
        WHERE round_id = ANY($1::text[]) AND global_position <= $2::bigint GROUP BY round_id, currency`,
      [[...roundIds], position.toString()],
    );
  }

  /**
   * The shoes with an entry a close of `day` for `tableIds` at `position` may sum: the day's, and those
   * recorded after the close of an earlier closed pair (`closed`, its `through` a decimal string).
   */
  async shoesWithEntries(tableIds: readonly string[], day: string, position: bigint, closed: readonly { gaming_day: string; table_id: string; through: string }[]): Promise<string[]> {
    const found = await rows<{ shoe_id: string }>(
      this.q,
      `SELECT DISTINCT e.shoe_id FROM ${this.t.entries} e WHERE e.table_id = ANY($1::text[]) AND e.gaming_day = $2::date AND e.global_position <= $3::bigint
       UNION
       SELECT DISTINCT e.shoe_id FROM jsonb_to_recordset($4::jsonb) AS k(gaming_day text, table_id text, through text)
         JOIN ${this.t.entries} e ON e.gaming_day = k.gaming_day::date AND e.table_id = k.table_id AND e.global_position > k.through::bigint AND e.global_position <= $3::bigint`,
      [[...tableIds], day, position.toString(), JSON.stringify(closed)],
    );
    return found.map((r) => r.shoe_id);
  }

  /** A shoe's entries up to `position`, in global order then entry number. */
  entriesOfShoe(shoeId: string, position: bigint): Promise<LedgerEntryLine[]> {
    return rows<LedgerEntryLine>(this.q, `SELECT ${ENTRY_COLUMNS} FROM ${this.t.entries} e WHERE e.shoe_id = $1 AND e.global_position <= $2::bigint ORDER BY e.global_position, e.entry_no`, [shoeId, position.toString()]);
  }
}
