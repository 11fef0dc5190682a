import type { LedgerEventType } from '@ledger/events';

/**
 * The tables of the reconciliation read model (`reconciliation/projection.ts`): the sums by table,
 * shoe, dealer, gaming day and currency (migration 1733000000000), the position-stamped entries
 * they are the sum of (migration 1799000200000), and the report view over the sums.
 */
export const RECONCILIATION_TABLE = 'reconciliation';
/** Append-only: one row per money effect of an event (docs/reports.md §3). */
export const LEDGER_ENTRIES_TABLE = 'ledger_entries';
/** View: {@link RECONCILIATION_TABLE} + `hold` = ggr / turnover, dropped as a reduced fraction. */
export const RECONCILIATION_REPORT_VIEW = 'reconciliation_report';

/** The sums of a reconciliation row and of an entry, as PostgreSQL returns them through `pg` (numeric and bigint as decimal strings). */
export interface ReconciliationSumsRow {
  /** Minor units (numeric(38,0)). */
  readonly turnover: string;
  readonly payouts: string;
  readonly correction_payout_delta: string;
  readonly voided_stakes: string;
  /** Counts (bigint). */
  readonly bets_settled: string;
  readonly bets_refunded: string;
  readonly bets_resettled: string;
  readonly rounds_resulted: string;
  readonly rounds_voided: string;
  readonly corrections: string;
  /** The dropped fraction (numeric(60,0)): `dropped_num / dropped_den`, over the lcm of every denominator summed. */
  readonly dropped_num: string;
  readonly dropped_den: string;
}

/**
 * A row of `reconciliation` (key: table, shoe, dealer, gaming day, currency) as PostgreSQL returns
 * it through `pg`: sums as decimal strings, the date as a `Date` (read `gaming_day::text` for the day).
 */
export interface ReconciliationRow extends ReconciliationSumsRow {
  readonly table_id: string;
  readonly shoe_id: string;
  readonly dealer_id: string;
  readonly gaming_day: Date;
  readonly currency: string;
  /** Generated: turnover − payouts. */
  readonly ggr: string;
}

/** A row of the view `reconciliation_report`: {@link ReconciliationRow} + hold and the dropped fraction reduced. */
export interface ReconciliationReportRow extends ReconciliationRow {
  /** ggr / turnover (numeric, a decimal string); null without turnover. */
  readonly hold: string | null;
  /** `num` or `num/den`, reduced. */
  readonly dropped: string;
}

/**
 * A row of `ledger_entries` (key: global position, entry number) as PostgreSQL returns it through
 * `pg`: the event, the round's attribution, the bet and the deltas of `reconciliation`.
 */
export interface LedgerEntryRow extends ReconciliationSumsRow {
  readonly global_position: string;
  /** Ordinal of the entry within its event, from 0. */
  readonly entry_no: number;
  readonly event_id: string;
  readonly event_type: LedgerEventType;
  /** The ledger's clock. */
  readonly recorded_at: Date;
  readonly gaming_day: Date;
  readonly table_id: string;
  readonly shoe_id: string;
  readonly round_id: string;
  /** Null for a round count. */
  readonly bet_id: string | null;
  readonly dealer_id: string;
  readonly currency: string;
}
