import type { DataSource } from 'typeorm';
import { droppedTotal } from './dropped-total';

/** A dimension of the reconciliation report and its column (same as `RECONCILIATION_DIMENSIONS` of the queries). */
export type Dimension = 'table' | 'shoe' | 'dealer' | 'day' | 'currency';

const COLUMNS: ReadonlyMap<Dimension, string> = new Map([
  ['table', 'table_id'],
  ['shoe', 'shoe_id'],
  ['dealer', 'dealer_id'],
  ['day', 'gaming_day'],
  ['currency', 'currency'],
]);

/** What rows a reconciliation covers. Days are gaming days `YYYY-MM-DD`, inclusive; null = no filter. */
export interface ReconciliationScope {
  readonly groupBy: readonly Dimension[];
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

/**
 * One reconciliation row: the grouping's dimensions (camelCase: tableId, shoeId, dealerId,
 * gamingDay, currency) and its sums. Amounts are integer minor units as decimal strings; `hold` =
 * GGR / turnover rounded to 6 decimals (exact numeric), null without turnover; `dropped` the exact
 * dropped-fraction total ({@link droppedTotal}).
 */
export interface ReconciliationFigures {
  [dimension: string]: unknown;
  turnover: string;
  payouts: string;
  ggr: string;
  hold: string | null;
  voidedStakes: string;
  correctionPayoutDelta: string;
  betsSettled: string;
  betsRefunded: string;
  betsResettled: string;
  roundsResulted: string;
  roundsVoided: string;
  corrections: string;
  dropped: string;
}

/**
 * The sums over the entries `x` of the scope (docs/domain-rules.md §4). Amounts numeric minor units
 * → decimal text; hold exact, rounded to 6 decimals; the dropped parts as `num/den` texts for
 * {@link droppedTotal}.
 */
const SUMS = `sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(turnover - payouts)::text AS ggr,
  CASE WHEN sum(turnover) = 0 THEN NULL ELSE round(sum(turnover - payouts) / sum(turnover), 6)::text END AS hold,
  sum(voided_stakes)::text AS voided_stakes, sum(correction_payout_delta)::text AS correction_payout_delta,
  sum(bets_settled)::text AS bets_settled, sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled,
  sum(rounds_resulted)::text AS rounds_resulted, sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
  array_agg(dropped_num::text || '/' || dropped_den::text) FILTER (WHERE dropped_num <> 0) AS dropped_parts`;

/** The filters over an entry's attribution columns, parameters $2..$9. */
function where(alias: string): string {
  const a = alias;
  return `($2::text IS NULL OR ${a}.table_id = $2) AND ($3::text IS NULL OR ${a}.shoe_id = $3) AND ($4::text IS NULL OR ${a}.dealer_id = $4)
      AND ($5::text IS NULL OR ${a}.currency = $5) AND ($6::date IS NULL OR ${a}.gaming_day >= $6) AND ($7::date IS NULL OR ${a}.gaming_day <= $7)
      AND ($8::text[] IS NULL OR ${a}.table_id = ANY($8::text[])) AND ($9::text IS NULL OR ${a}.round_id = $9)`;
}

/**
 * The reconciliation report (docs/domain-rules.md §4), grouped by `scope.groupBy`: the sum of the
 * position-stamped entries of `ledger_entries` (the one reconciliation rule,
 * `libs/read-model/src/reconciliation/ledger-entries.ts`) in the scope — live (`position` null: every entry) or as
 * known at a global position P (docs/reports.md §3: the entries with `global_position <= P`). ONE
 * query either way, so the as-of answer at the latest position is the live one by construction.
 * @param S the read-model schema (a checked identifier)
 * @param position the last global position counted; null = live (no bound)
 * @returns one row per group, ordered by the grouping; no row when no entry matched
 * @throws Error on an unknown dimension (callers check them first)
 */
export async function reconciliationFigures(ds: Pick<DataSource, 'query'>, S: string, scope: ReconciliationScope, position: bigint | null): Promise<ReconciliationFigures[]> {
  const dims = scope.groupBy.map((d) => {
    const c = COLUMNS.get(d);
    if (c === undefined) throw new Error(`unknown reconciliation dimension ${String(d).slice(0, 64)}`);
    return c;
  });
  const select = dims.map((c) => (c === 'gaming_day' ? 'gaming_day::text AS gaming_day' : c));
  const grouping = dims.length ? `GROUP BY ${dims.join(', ')} ORDER BY ${dims.join(', ')}` : '';
  const rows: Record<string, unknown>[] = await ds.query(
    `SELECT ${[...select, ''].join(', ')} ${SUMS}
       FROM ${S}.ledger_entries x
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
  return rows.filter((r) => r.turnover !== null).map(toFigures);
}

function toFigures(r: Record<string, unknown>): ReconciliationFigures {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'dropped_parts') continue;
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  }
  out.dropped = droppedTotal(r.dropped_parts as string[] | null);
  return out as ReconciliationFigures;
}
