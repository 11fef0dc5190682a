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

/** The sums, from the base rows `x` of either query. */
const SUMS = `sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(turnover - payouts)::text AS ggr,
  CASE WHEN sum(turnover) = 0 THEN NULL ELSE round(sum(turnover - payouts) / sum(turnover), 6)::text END AS hold,
  sum(voided_stakes)::text AS voided_stakes, sum(correction_payout_delta)::text AS correction_payout_delta,
  sum(bets_settled)::text AS bets_settled, sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled,
  sum(rounds_resulted)::text AS rounds_resulted, sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
  array_agg(dropped) FILTER (WHERE dropped IS NOT NULL AND dropped <> '0') AS dropped_parts`;

/** The filters over a base row's attribution columns, parameters $2..$9. */
function where(alias: string): string {
  const a = alias;
  return `($2::text IS NULL OR ${a}.table_id = $2) AND ($3::text IS NULL OR ${a}.shoe_id = $3) AND ($4::text IS NULL OR ${a}.dealer_id = $4)
      AND ($5::text IS NULL OR ${a}.currency = $5) AND ($6::date IS NULL OR ${a}.gaming_day >= $6) AND ($7::date IS NULL OR ${a}.gaming_day <= $7)
      AND ($8::text[] IS NULL OR ${a}.table_id = ANY($8::text[])) AND ($9::text IS NULL OR ${a}.round_id = $9)`;
}

/**
 * The live base rows: the `reconciliation` projection (docs/domain-rules.md §4). It has no round
 * column: a round filter is answered from the as-of query at the latest position instead.
 */
function liveBase(S: string): string {
  return `SELECT r.table_id, r.shoe_id, r.dealer_id, r.gaming_day, r.currency, r.turnover, r.payouts, r.voided_stakes, r.correction_payout_delta,
            r.bets_settled, r.bets_refunded, r.bets_resettled, r.rounds_resulted, r.rounds_voided, r.corrections,
            CASE WHEN r.dropped_num = 0 THEN NULL ELSE r.dropped_num::text || '/' || r.dropped_den::text END AS dropped
       FROM ${S}.reconciliation r, (SELECT NULL::text AS round_id) nr
      WHERE $1::bigint IS NULL AND ${where('r').replace('r.round_id', 'nr.round_id')}`;
}

/**
 * The base rows as known at global position $1 (docs/reports.md §3), from the projections' revision
 * rows (each carries its event's global position), by the same rules as the `reconciliation`
 * projection:
 *
 * - per bet (placed, its attribution fixed at placement in `bet_settlements`), the revision in force
 *   at P (the latest `bet_settlement_revisions` row ≤ P): SETTLED/RESETTLED → its stake in turnover,
 *   its payout in payouts, payout − first payout in correction_payout_delta, its dropped fraction,
 *   one bet settled; REFUNDED → its stake in voided_stakes, one bet refunded. bets_resettled counts
 *   the RESETTLED revisions ≤ P (a later refund does not take them back, as in the projection);
 * - per round (`hand_outcomes`, attributed at RoundOpened), the revision in force at P: RESULTED or
 *   CORRECTED → one round resulted, VOIDED → one round voided; corrections = CORRECTED revisions ≤ P.
 */
function asOfBase(S: string): string {
  return `SELECT b.table_id, b.shoe_id, b.dealer_id, b.gaming_day, b.currency,
            CASE WHEN l.kind = 'REFUNDED' THEN 0 ELSE b.stake END AS turnover,
            CASE WHEN l.kind = 'REFUNDED' THEN 0 ELSE l.payout END AS payouts,
            CASE WHEN l.kind = 'REFUNDED' THEN 0 ELSE l.payout - f.payout END AS correction_payout_delta,
            CASE WHEN l.kind = 'REFUNDED' THEN l.stake ELSE 0 END AS voided_stakes,
            CASE WHEN l.kind = 'REFUNDED' THEN 0 ELSE 1 END AS bets_settled,
            CASE WHEN l.kind = 'REFUNDED' THEN 1 ELSE 0 END AS bets_refunded,
            rs.n AS bets_resettled, 0 AS rounds_resulted, 0 AS rounds_voided, 0 AS corrections,
            CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.dropped END AS dropped
       FROM ${S}.bet_settlements b
       CROSS JOIN LATERAL (SELECT kind, stake, payout, dropped FROM ${S}.bet_settlement_revisions v
                            WHERE v.bet_id = b.bet_id AND v.global_position <= $1 ORDER BY v.seq DESC LIMIT 1) l
       LEFT JOIN LATERAL (SELECT payout FROM ${S}.bet_settlement_revisions v
                           WHERE v.bet_id = b.bet_id AND v.seq = 1 AND v.kind <> 'REFUNDED' AND v.global_position <= $1) f ON true
       CROSS JOIN LATERAL (SELECT count(*) AS n FROM ${S}.bet_settlement_revisions v
                            WHERE v.bet_id = b.bet_id AND v.kind = 'RESETTLED' AND v.global_position <= $1) rs
      WHERE ${where('b')}
     UNION ALL
     SELECT h.table_id, h.shoe_id, h.dealer_id, h.gaming_day, h.currency, 0, 0, 0, 0, 0, 0, 0,
            CASE WHEN l.kind = 'VOIDED' THEN 0 ELSE 1 END, CASE WHEN l.kind = 'VOIDED' THEN 1 ELSE 0 END, c.n, NULL
       FROM ${S}.hand_outcomes h
       CROSS JOIN LATERAL (SELECT kind FROM ${S}.hand_outcome_revisions v
                            WHERE v.round_id = h.round_id AND v.global_position <= $1 ORDER BY v.revision DESC LIMIT 1) l
       CROSS JOIN LATERAL (SELECT count(*) AS n FROM ${S}.hand_outcome_revisions v
                            WHERE v.round_id = h.round_id AND v.kind = 'CORRECTED' AND v.global_position <= $1) c
      WHERE ${where('h')}`;
}

/**
 * The reconciliation report, grouped by `scope.groupBy` (docs/domain-rules.md §4), live (`position`
 * null: the `reconciliation` projection) or as known at a global position (docs/reports.md §3). Both
 * answer the same figures for the same events: the as-of query at the latest projected position
 * equals the live one (an e2e spec checks it over a shoe with voids and corrections).
 * @param S the read-model schema (a checked identifier)
 * @returns one row per group, ordered by the grouping; no row when nothing matched
 */
export async function reconciliationFigures(ds: DataSource, S: string, scope: ReconciliationScope, position: bigint | null): Promise<ReconciliationFigures[]> {
  const dims = scope.groupBy.map((d) => {
    const c = COLUMNS.get(d);
    if (c === undefined) throw new Error(`unknown reconciliation dimension ${String(d).slice(0, 64)}`);
    return c;
  });
  const useAsOf = position !== null || !!scope.roundId;
  const base = useAsOf ? asOfBase(S) : liveBase(S);
  const select = dims.map((c) => (c === 'gaming_day' ? 'gaming_day::text AS gaming_day' : c));
  const grouping = dims.length ? `GROUP BY ${dims.join(', ')} ORDER BY ${dims.join(', ')}` : '';
  const rows: Record<string, unknown>[] = await ds.query(`SELECT ${[...select, ''].join(', ')} ${SUMS} FROM (${base}) x ${grouping}`, [
    useAsOf ? (position ?? MAX_BIGINT).toString() : null,
    scope.tableId ?? null,
    scope.shoeId ?? null,
    scope.dealerId ?? null,
    scope.currency ?? null,
    scope.fromDay ?? null,
    scope.toDay ?? null,
    scope.tableIds ? [...scope.tableIds] : null,
    scope.roundId ?? null,
  ]);
  return rows.filter((r) => r.turnover !== null).map(toFigures);
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;

function toFigures(r: Record<string, unknown>): ReconciliationFigures {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'dropped_parts') continue;
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  }
  out.dropped = droppedTotal(r.dropped_parts as string[] | null);
  return out as ReconciliationFigures;
}
