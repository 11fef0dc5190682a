import { rows, first, tablesIn, type Queryable } from '../sql';
import { BET_SETTLEMENTS_TABLE, BET_SETTLEMENT_REVISIONS_TABLE } from './tables';

/**
 * The settlements read model's queries (docs/reports.md §3, §4, §5): a bet as it stands (live) and
 * as it stood at a global position (as of), its settlement history, the bets of a wallet match's
 * scope, and the settlement revisions of an export. Amounts (bigint minor units) come back as
 * decimal strings, never as numbers; times as `Date`.
 */

/** The settlements' tables (their names are declared in `tables.ts`). */
export const SETTLEMENT_TABLES = { settlements: BET_SETTLEMENTS_TABLE, revisions: BET_SETTLEMENT_REVISIONS_TABLE } as const;

/** A bet's row as the API answers it (`Settlement` of docs/openapi.json before camelCase): amounts decimal strings, the gaming day `YYYY-MM-DD`. */
export type SettlementRow = {
  bet_id: string;
  shoe_id: string;
  round_id: string;
  table_id: string;
  dealer_id: string;
  gaming_day: string;
  account_id: string;
  bet_code: string;
  currency: string;
  stake: string;
  status: string;
  result: string | null;
  winnings: string | null;
  payout: string | null;
  net: string | null;
  dropped: string | null;
  paytable_ref: string | null;
  revision: number;
  refunded_stake: string | null;
  placed_at: Date;
  settled_at: Date | null;
  refunded_at: Date | null;
};

/**
 * One entry of a bet's settlement history (SETTLED, RESETTLED, REFUNDED), amounts decimal strings.
 * `actor_id` is who acted: the acting manager of the decision behind the entry, if any (who
 * requested it; the approver is `approver_id`), else the event's actor. `refunded_stake` is what a
 * refund credits back (the stake; null on a settlement), in the bet's `currency`.
 */
export type SettlementRevisionRow = {
  seq: number;
  kind: string;
  revision: number;
  result: string | null;
  stake: string;
  winnings: string | null;
  payout: string | null;
  net: string | null;
  dropped: string | null;
  paytable_ref: string | null;
  compensates: string | null;
  event_id: string;
  actor_id: string;
  actor_role: string;
  reason: string | null;
  approver_id: string | null;
  occurred_at: Date;
  currency: string;
  refunded_stake: string | null;
};

/** A history entry with its bet (the revisions of a round's bets). */
export type BetRevisionRow = SettlementRevisionRow & { bet_id: string };

/** Filters of the settlement list (null: no filter). `status` is the live status, or the status at the position as of. */
export interface SettlementPageFilters {
  readonly tableId?: string | null;
  readonly shoeId?: string | null;
  readonly roundId?: string | null;
  readonly accountId?: string | null;
  readonly status?: string | null;
  /** Only bets after this id (a decoded cursor). */
  readonly afterBetId?: string | null;
  /** Most rows read (a page's limit + 1 tells whether there is a next page). */
  readonly take: number;
}

/** The bets of a wallet match (docs/reports.md §4): gaming days `YYYY-MM-DD` inclusive, or a time period `[from, to)` (ISO-8601). */
export type WalletScope = { readonly kind: 'days'; readonly fromDay: string; readonly toDay: string } | { readonly kind: 'period'; readonly from: string; readonly to: string };

/** A bet with one entry of its history (the entry's columns null for a bet without one), for the wallet match. */
export type WalletBetRow = {
  bet_id: string;
  round_id: string;
  table_id: string;
  account_id: string;
  currency: string;
  gaming_day: string;
  stake: string;
  placed_at: Date;
  seq: number | null;
  kind: string | null;
  revision: number | null;
  payout: string | null;
  occurred_at: Date | null;
  event_id: string | null;
};

/** A settlement revision as the settlements export writes it (docs/reports.md §5). */
export type SettlementExportRow = {
  global_position: string;
  event_id: string;
  bet_id: string;
  seq: number;
  kind: string;
  revision: number;
  round_id: string;
  shoe_id: string;
  table_id: string;
  dealer_id: string;
  gaming_day: string;
  account_id: string;
  bet_code: string;
  currency: string;
  stake: string;
  result: string | null;
  winnings: string | null;
  payout: string | null;
  net: string | null;
  dropped: string | null;
  paytable_ref: string | null;
  compensates: string | null;
  actor_id: string;
  actor_role: string;
  cause_event_id: string;
  reason: string | null;
  /** The decision's acting (requesting) manager; `actor_id` is the event's actor, as the signed event has it. */
  acting_manager_id: string | null;
  approver_id: string | null;
  occurred_at: Date;
};

/** The columns of {@link SettlementRow}. */
const SETTLEMENT_COLUMNS = `bet_id, shoe_id, round_id, table_id, dealer_id, gaming_day::text AS gaming_day, account_id, bet_code, currency,
  stake::text AS stake, status, result, winnings::text AS winnings, payout::text AS payout, net::text AS net, dropped, paytable_ref,
  revision, refunded_stake::text AS refunded_stake, placed_at, settled_at, refunded_at`;

/**
 * The columns of {@link SettlementRevisionRow} (`v` a revision, `b` its bet): the actor is the
 * decision's acting manager when there is one (the envelope's actor of a four-eyes decision's
 * events is its approver), the refunded stake that of a REFUNDED entry.
 */
const REVISION_COLUMNS = `v.seq, v.kind, v.revision, v.result, v.stake::text AS stake, v.winnings::text AS winnings, v.payout::text AS payout,
  v.net::text AS net, v.dropped, v.paytable_ref, v.compensates, v.event_id, coalesce(v.acting_manager_id, v.actor_id) AS actor_id, v.actor_role,
  v.reason, v.approver_id, v.occurred_at, b.currency, CASE WHEN v.kind = 'REFUNDED' THEN v.stake::text END AS refunded_stake`;

/**
 * The columns of {@link SettlementRow} as known at global position $1 (docs/reports.md §3): the
 * bet's attribution from `b` (fixed at placement), its state from the revision in force at P (`l`,
 * the latest revision ≤ P) and its latest settlement ≤ P (`s`): no revision → OPEN; SETTLED /
 * RESETTLED → that result and those amounts; REFUNDED → the amounts cleared and the stake refunded,
 * as the projection's row after a refund.
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

/** The columns of {@link SettlementExportRow} (`r` a revision, `b` its bet; the actor is the event's, the decision's managers beside it). */
const EXPORT_COLUMNS = `r.global_position::text AS global_position, r.event_id, r.bet_id, r.seq, r.kind, r.revision, r.round_id, b.shoe_id, b.table_id,
  b.dealer_id, b.gaming_day::text AS gaming_day, b.account_id, b.bet_code, b.currency, r.stake::text AS stake, r.result, r.winnings::text AS winnings,
  r.payout::text AS payout, r.net::text AS net, r.dropped, r.paytable_ref, r.compensates, r.actor_id, r.actor_role, r.cause_event_id, r.reason,
  r.acting_manager_id, r.approver_id, r.occurred_at`;

/** The reads of the settlements read model on one connection (or pool). */
export class SettlementReads {
  private readonly t: { readonly settlements: string; readonly revisions: string };

  /**
   * @param q where to read (the API's pool, or a transaction's snapshot)
   * @param schema the read-model schema (checked)
   * @param applied the qualified name of the engine's `applied_events` (when each bet was placed, for the as-of reads)
   */
  constructor(
    private readonly q: Queryable,
    schema: string,
    private readonly applied: string,
  ) {
    this.t = tablesIn(schema, SETTLEMENT_TABLES);
  }

  /** Bets by table, shoe, round, account or live status, ordered by bet id. */
  page(f: SettlementPageFilters): Promise<SettlementRow[]> {
    return rows<SettlementRow>(
      this.q,
      `SELECT ${SETTLEMENT_COLUMNS} FROM ${this.t.settlements}
        WHERE ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR shoe_id = $2) AND ($3::text IS NULL OR round_id = $3)
          AND ($4::text IS NULL OR account_id = $4) AND ($5::text IS NULL OR status = $5) AND ($6::text IS NULL OR bet_id > $6)
        ORDER BY bet_id LIMIT $7`,
      [f.tableId ?? null, f.shoeId ?? null, f.roundId ?? null, f.accountId ?? null, f.status ?? null, f.afterBetId ?? null, f.take],
    );
  }

  /** One bet as it stands; `undefined` when not projected (or never placed). */
  one(betId: string): Promise<SettlementRow | undefined> {
    return first<SettlementRow>(this.q, `SELECT ${SETTLEMENT_COLUMNS} FROM ${this.t.settlements} WHERE bet_id = $1`, [betId]);
  }

  /** The revisions `v` with their bets `b` (for {@link REVISION_COLUMNS}). */
  private revisionsFrom(): string {
    return `FROM ${this.t.revisions} v JOIN ${this.t.settlements} b ON b.bet_id = v.bet_id`;
  }

  /** A bet's whole settlement history, by `seq`. */
  history(betId: string): Promise<SettlementRevisionRow[]> {
    return rows<SettlementRevisionRow>(this.q, `SELECT ${REVISION_COLUMNS} ${this.revisionsFrom()} WHERE v.bet_id = $1 ORDER BY v.seq`, [betId]);
  }

  /** The bets of a round as they stand, by bet id (game recall). */
  ofRound(roundId: string): Promise<SettlementRow[]> {
    return rows<SettlementRow>(this.q, `SELECT ${SETTLEMENT_COLUMNS} FROM ${this.t.settlements} WHERE round_id = $1 ORDER BY bet_id`, [roundId]);
  }

  /** The settlement histories of a round's bets, by bet id then `seq` (game recall). */
  historyOfRound(roundId: string): Promise<BetRevisionRow[]> {
    return rows<BetRevisionRow>(this.q, `SELECT v.bet_id, ${REVISION_COLUMNS} ${this.revisionsFrom()} WHERE v.round_id = $1 ORDER BY v.bet_id, v.seq`, [roundId]);
  }

  /** The bets placed at or before $1 with their revisions in force then. */
  private asOfFrom(): string {
    return `FROM ${this.t.settlements} b
    JOIN ${this.applied} pe ON pe.event_id = b.placed_event_id AND pe.global_position <= $1::bigint
    LEFT JOIN LATERAL (SELECT kind, result, stake, winnings, payout, net, dropped, occurred_at FROM ${this.t.revisions} v
                        WHERE v.bet_id = b.bet_id AND v.global_position <= $1::bigint ORDER BY v.seq DESC LIMIT 1) l ON true
    LEFT JOIN LATERAL (SELECT revision, paytable_ref, occurred_at FROM ${this.t.revisions} v
                        WHERE v.bet_id = b.bet_id AND v.kind <> 'REFUNDED' AND v.global_position <= $1::bigint ORDER BY v.seq DESC LIMIT 1) s ON true`;
  }

  /** The bets placed by global `position`, each in the state it had then (`status` filters on it), ordered by bet id (docs/reports.md §3). */
  pageAsOf(position: bigint, f: SettlementPageFilters): Promise<SettlementRow[]> {
    return rows<SettlementRow>(
      this.q,
      `SELECT ${AS_OF_COLUMNS} ${this.asOfFrom()}
      WHERE ($2::text IS NULL OR b.table_id = $2) AND ($3::text IS NULL OR b.shoe_id = $3) AND ($4::text IS NULL OR b.round_id = $4)
        AND ($5::text IS NULL OR b.account_id = $5) AND ($6::text IS NULL OR coalesce(l.kind, 'OPEN') = $6) AND ($7::text IS NULL OR b.bet_id > $7)
      ORDER BY b.bet_id LIMIT $8`,
      [position.toString(), f.tableId ?? null, f.shoeId ?? null, f.roundId ?? null, f.accountId ?? null, f.status ?? null, f.afterBetId ?? null, f.take],
    );
  }

  /** One bet as it stood at global `position` with its history up to it; `undefined` when it was not placed by then. */
  async oneAsOf(position: bigint, betId: string): Promise<{ bet: SettlementRow; history: SettlementRevisionRow[] } | undefined> {
    const bet = await first<SettlementRow>(this.q, `SELECT ${AS_OF_COLUMNS} ${this.asOfFrom()} WHERE b.bet_id = $2`, [position.toString(), betId]);
    if (!bet) return undefined;
    const history = await rows<SettlementRevisionRow>(this.q, `SELECT ${REVISION_COLUMNS} ${this.revisionsFrom()} WHERE v.bet_id = $1 AND v.global_position <= $2::bigint ORDER BY v.seq`, [betId, position.toString()]);
    return { bet, history };
  }

  /** The condition on a bet `b` of a wallet scope (parameters $1, $2). */
  private inWalletScope(scope: WalletScope): string {
    return scope.kind === 'days'
      ? `b.gaming_day BETWEEN $1::date AND $2::date`
      : `((b.placed_at >= $1::timestamptz AND b.placed_at < $2::timestamptz)
            OR EXISTS (SELECT 1 FROM ${this.t.revisions} x WHERE x.bet_id = b.bet_id AND x.occurred_at >= $1::timestamptz AND x.occurred_at < $2::timestamptz))`;
  }

  /** How many bets a wallet scope holds: those of its gaming days, or those placed, settled, resettled or refunded in its period. */
  async walletScopeCount(scope: WalletScope): Promise<number> {
    const bounds = scope.kind === 'days' ? [scope.fromDay, scope.toDay] : [scope.from, scope.to];
    const row = await first<{ n: number }>(this.q, `SELECT count(*)::int AS n FROM ${this.t.settlements} b WHERE ${this.inWalletScope(scope)}`, bounds);
    return row?.n ?? 0;
  }

  /**
   * The bets of a wallet scope and the bets `betIds` (whatever their day), each with every entry of
   * its history (one row per entry; one row with the entry's columns null for a bet without one),
   * ordered by bet id then `seq`.
   */
  walletBets(scope: WalletScope, betIds: readonly string[]): Promise<WalletBetRow[]> {
    const bounds = scope.kind === 'days' ? [scope.fromDay, scope.toDay] : [scope.from, scope.to];
    return rows<WalletBetRow>(
      this.q,
      `SELECT b.bet_id, b.round_id, b.table_id, b.account_id, b.currency, b.gaming_day::text AS gaming_day, b.stake::text AS stake, b.placed_at,
              r.seq, r.kind, r.revision, r.payout::text AS payout, r.occurred_at, r.event_id
         FROM ${this.t.settlements} b LEFT JOIN ${this.t.revisions} r ON r.bet_id = b.bet_id
        WHERE ${this.inWalletScope(scope)} OR b.bet_id = ANY($3::text[])
        ORDER BY b.bet_id, r.seq`,
      [...bounds, [...betIds]],
    );
  }

  /**
   * The bets `betIds` that are not of the wallet scope (those {@link walletBets} gives with the scope
   * alone are left out), each with every entry of its history, as {@link walletBets} gives them: a
   * wallet upload loads the bets its file names page by page beside its scope's.
   */
  walletBetsOutside(scope: WalletScope, betIds: readonly string[]): Promise<WalletBetRow[]> {
    const bounds = scope.kind === 'days' ? [scope.fromDay, scope.toDay] : [scope.from, scope.to];
    return rows<WalletBetRow>(
      this.q,
      `SELECT b.bet_id, b.round_id, b.table_id, b.account_id, b.currency, b.gaming_day::text AS gaming_day, b.stake::text AS stake, b.placed_at,
              r.seq, r.kind, r.revision, r.payout::text AS payout, r.occurred_at, r.event_id
         FROM ${this.t.settlements} b LEFT JOIN ${this.t.revisions} r ON r.bet_id = b.bet_id
        WHERE b.bet_id = ANY($3::text[]) AND NOT (${this.inWalletScope(scope)})
        ORDER BY b.bet_id, r.seq`,
      [...bounds, [...betIds]],
    );
  }

  /** How many settlement revisions lie at global positions `first..last` (inclusive; decimal strings), for the settlements export. */
  async exportCount(firstPosition: string, lastPosition: string): Promise<number> {
    const row = await first<{ n: string }>(this.q, `SELECT count(*)::text AS n FROM ${this.t.revisions} WHERE global_position >= $1::bigint AND global_position <= $2::bigint`, [firstPosition, lastPosition]);
    return Number(row?.n ?? 0);
  }

  /** The settlement revisions at positions `first..last` after position `after` (null: from the first), at most `limit`, in global order. */
  exportBatch(firstPosition: string, lastPosition: string, after: string | null, limit: number): Promise<SettlementExportRow[]> {
    return rows<SettlementExportRow>(
      this.q,
      `SELECT ${EXPORT_COLUMNS} FROM ${this.t.revisions} r JOIN ${this.t.settlements} b ON b.bet_id = r.bet_id
           WHERE r.global_position >= $1::bigint AND r.global_position <= $2::bigint AND ($3::bigint IS NULL OR r.global_position > $3::bigint)
           ORDER BY r.global_position LIMIT $4`,
      [firstPosition, lastPosition, after, limit],
    );
  }
}
