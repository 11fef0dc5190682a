import type { DataSource } from 'typeorm';

/**
 * The columns of a settlement (`Settlement` of the OpenAPI document, the same as
 * `SETTLEMENT_COLUMNS` of the live read) as known at global position $1 (docs/reports.md §3):
 * the bet's attribution from `bet_settlements` (fixed at placement), its state from the revision in
 * force at P (`l`, the latest `bet_settlement_revisions` row ≤ P) and its latest settlement ≤ P (`s`):
 * no revision → OPEN; SETTLED/RESETTLED → that result and those amounts; REFUNDED → the amounts
 * cleared and the stake refunded, as the projection's row after a refund.
 */
const AS_OF_COLUMNS = `b.bet_id, b.shoe_id, b.round_id, b.table_id, b.dealer_id, b.gaming_day::text AS gaming_day, b.account_id, b.bet_code, b.currency,
  b.stake::text AS stake, coalesce(l.kind, 'OPEN') AS status,
  CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.result END AS result,
  CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.winnings::text END AS winnings,
  CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.payout::text END AS payout,
  CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.net::text END AS net,
  CASE WHEN l.kind = 'REFUNDED' THEN NULL ELSE l.dropped END AS dropped,
  s.paytable_ref, coalesce(s.revision, 0) AS revision,
  CASE WHEN l.kind = 'REFUNDED' THEN l.stake::text END AS refunded_stake,
  b.placed_at, s.occurred_at AS settled_at, CASE WHEN l.kind = 'REFUNDED' THEN l.occurred_at END AS refunded_at`;

/** The bets placed at or before $1 with their revisions in force then. */
function asOfFrom(S: string): string {
  return `FROM ${S}.bet_settlements b
    JOIN ${S}.applied_events pe ON pe.event_id = b.placed_event_id AND pe.global_position <= $1::bigint
    LEFT JOIN LATERAL (SELECT kind, result, stake, winnings, payout, net, dropped, occurred_at FROM ${S}.bet_settlement_revisions v
                        WHERE v.bet_id = b.bet_id AND v.global_position <= $1::bigint ORDER BY v.seq DESC LIMIT 1) l ON true
    LEFT JOIN LATERAL (SELECT revision, paytable_ref, occurred_at FROM ${S}.bet_settlement_revisions v
                        WHERE v.bet_id = b.bet_id AND v.kind <> 'REFUNDED' AND v.global_position <= $1::bigint ORDER BY v.seq DESC LIMIT 1) s ON true`;
}

/** Filters of the settlement list as of a position (those of `GET /settlements`; `status` is the status then). */
export interface SettlementAsOfFilters {
  tableId?: string | null;
  shoeId?: string | null;
  roundId?: string | null;
  accountId?: string | null;
  status?: string | null;
  /** Bets after this id (the decoded cursor). */
  afterBetId?: string | null;
  limit: number;
}

/** The settlements as known at `position`, ordered by bet id (rows snake_case, as the live read's). */
export function settlementsAsOf(ds: DataSource, S: string, position: bigint, f: SettlementAsOfFilters): Promise<Record<string, unknown>[]> {
  return ds.query(
    `SELECT ${AS_OF_COLUMNS} ${asOfFrom(S)}
      WHERE ($2::text IS NULL OR b.table_id = $2) AND ($3::text IS NULL OR b.shoe_id = $3) AND ($4::text IS NULL OR b.round_id = $4)
        AND ($5::text IS NULL OR b.account_id = $5) AND ($6::text IS NULL OR coalesce(l.kind, 'OPEN') = $6) AND ($7::text IS NULL OR b.bet_id > $7)
      ORDER BY b.bet_id LIMIT $8`,
    [position.toString(), f.tableId ?? null, f.shoeId ?? null, f.roundId ?? null, f.accountId ?? null, f.status ?? null, f.afterBetId ?? null, f.limit + 1],
  );
}

/** One bet as known at `position` with its history up to it; `null` when it was not placed by then. */
export async function settlementAsOf(ds: DataSource, S: string, position: bigint, betId: string): Promise<{ bet: Record<string, unknown>; history: Record<string, unknown>[] } | null> {
  const [bet] = await ds.query(`SELECT ${AS_OF_COLUMNS} ${asOfFrom(S)} WHERE b.bet_id = $2`, [position.toString(), betId]);
  if (!bet) return null;
  const history = await ds.query(
    `SELECT seq, kind, revision, result, stake::text AS stake, winnings::text AS winnings, payout::text AS payout, net::text AS net, dropped,
            paytable_ref, compensates, event_id, actor_id, actor_role, reason, approver_id, occurred_at
       FROM ${S}.bet_settlement_revisions WHERE bet_id = $1 AND global_position <= $2::bigint ORDER BY seq`,
    [betId, position.toString()],
  );
  return { bet, history };
}
