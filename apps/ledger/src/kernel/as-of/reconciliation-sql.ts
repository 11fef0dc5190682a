import { ReconciliationReads, type Queryable, type ReconciliationDimension, type ReconciliationScope, type ReconciliationFiguresRow } from '@ledger/read-model';
import { droppedTotal } from './dropped-total';

/**
 * The reconciliation figures (docs/domain-rules.md §4, docs/reports.md §3) as the API answers them,
 * from the read model's sums of the position-stamped entries (`readModel.reconciliation.live` /
 * `.asOf`, `@ledger/read-model`): the SQL is the read model's; this file only shapes its rows.
 */

/** A dimension of the reconciliation report (`ReconciliationDimension` of the read model). */
export type Dimension = ReconciliationDimension;

export type { ReconciliationScope };

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

/** A read-model sums row as {@link ReconciliationFigures}: columns camelCase in their order, the dropped parts summed exactly. */
export function toFigures(r: ReconciliationFiguresRow): ReconciliationFigures {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'dropped_parts') continue;
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  }
  out.dropped = droppedTotal(r.dropped_parts);
  return out as ReconciliationFigures;
}

/**
 * The reconciliation report grouped by `scope.groupBy`, live (`position` null) or as known at a
 * global position, read through `q` (the gaming-day close passes its snapshot): the read model's
 * `ReconciliationReads` shaped by {@link toFigures}. The API's own reads use `READ_MODEL` instead.
 * @param S the read-model schema (checked)
 * @returns one row per group, ordered by the grouping; no row when no entry matched
 * @throws Error on an unknown dimension (callers check them first)
 */
export async function reconciliationFigures(q: Queryable, S: string, scope: ReconciliationScope, position: bigint | null): Promise<ReconciliationFigures[]> {
  const reads = new ReconciliationReads(q, S);
  return (position === null ? await reads.live(scope) : await reads.asOf(position, scope)).map(toFigures);
}
