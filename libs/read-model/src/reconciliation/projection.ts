import type { LedgerEvent } from '@ledger/events';
import { type Fraction, parseFraction, type Projection, ProjectionError, type ProjectionTx, type SumTable } from '@ledger/projections';
import { type EntryBefore, type EntryBet, type EntryBetStatus, entryNeeds, type EntryRoundStatus, type LedgerEntry, reconciliationEntries } from './ledger-entries';
import { roundContext, ROUND_CONTEXT_TABLE } from '../outcomes/round-context';
import { HAND_OUTCOMES_TABLE } from '../outcomes/tables';
import { LEDGER_ENTRIES_TABLE, RECONCILIATION_TABLE } from './tables';
import { BET_SETTLEMENTS_TABLE } from '../settlements/tables';

/** A reconciliation row's key (docs/domain-rules.md §4: reconciliation by table / shoe / dealer / day / currency). */
export interface ReconciliationKey {
  readonly tableId: string;
  readonly shoeId: string;
  readonly dealerId: string;
  readonly gamingDay: string;
  readonly currency: string;
}

/** Changes to a reconciliation row; amounts in minor units. Omitted fields are 0. */
export interface ReconciliationDelta {
  turnover?: bigint;
  payouts?: bigint;
  correctionPayoutDelta?: bigint;
  voidedStakes?: bigint;
  betsSettled?: bigint;
  betsRefunded?: bigint;
  betsResettled?: bigint;
  roundsResulted?: bigint;
  roundsVoided?: bigint;
  corrections?: bigint;
  dropped?: Fraction;
}

/** Delta field → its column of `reconciliation`. */
const DELTA_COLUMNS = [
  ['turnover', 'turnover'],
  ['payouts', 'payouts'],
  ['correctionPayoutDelta', 'correction_payout_delta'],
  ['voidedStakes', 'voided_stakes'],
  ['betsSettled', 'bets_settled'],
  ['betsRefunded', 'bets_refunded'],
  ['betsResettled', 'bets_resettled'],
  ['roundsResulted', 'rounds_resulted'],
  ['roundsVoided', 'rounds_voided'],
  ['corrections', 'corrections'],
] as const;

/** The `reconciliation` table as sums by key (upserted once per key at commit). */
export const RECONCILIATION_SUMS: SumTable = {
  name: RECONCILIATION_TABLE,
  key: [
    { column: 'table_id', type: 'text' },
    { column: 'shoe_id', type: 'text' },
    { column: 'dealer_id', type: 'text' },
    { column: 'gaming_day', type: 'date' },
    { column: 'currency', type: 'text' },
  ],
  sums: DELTA_COLUMNS.map(([, c]) => c),
  fractions: [{ name: 'dropped', num: 'dropped_num', den: 'dropped_den' }],
};

/** Adds `delta` to the reconciliation row of `key` (written at commit). */
export function addReconciliation(tx: ProjectionTx, key: ReconciliationKey, delta: ReconciliationDelta): void {
  const d: Record<string, bigint | Fraction | undefined> = { dropped: delta.dropped };
  for (const [field, column] of DELTA_COLUMNS) d[column] = delta[field];
  tx.increment(RECONCILIATION_SUMS, [key.tableId, key.shoeId, key.dealerId, key.gamingDay, key.currency], d);
}

/** The `ledger_entries` row of an entry (snake_case columns; amounts and positions as decimal strings). */
export function entryRow(x: LedgerEntry): Record<string, string | number | null> {
  return {
    global_position: x.globalPosition.toString(),
    entry_no: x.entryNo,
    event_id: x.eventId,
    event_type: x.eventType,
    recorded_at: x.recordedAt,
    gaming_day: x.gamingDay,
    table_id: x.tableId,
    shoe_id: x.shoeId,
    round_id: x.roundId,
    bet_id: x.betId,
    dealer_id: x.dealerId,
    currency: x.currency,
    turnover: x.turnover.toString(),
    payouts: x.payouts.toString(),
    correction_payout_delta: x.correctionPayoutDelta.toString(),
    voided_stakes: x.voidedStakes.toString(),
    bets_settled: x.betsSettled.toString(),
    bets_refunded: x.betsRefunded.toString(),
    bets_resettled: x.betsResettled.toString(),
    rounds_resulted: x.roundsResulted.toString(),
    rounds_voided: x.roundsVoided.toString(),
    corrections: x.corrections.toString(),
    dropped_num: x.dropped.num.toString(),
    dropped_den: x.dropped.den.toString(),
  };
}

/**
 * `reconciliation` + `ledger_entries`: the reconciliation of docs/domain-rules.md §4, by the ONE rule
 * {@link reconciliationEntries} (`ledger-entries.ts`), which turns each event into entries:
 *
 * - `ledger_entries`: one append-only row per entry (money effect) of an event, stamped with the
 *   event's global position, id, type and `recordedAt`, the round's attribution (table, shoe,
 *   dealer at RoundOpened, gaming day of the RoundOpened), bet (null for round counts) and currency,
 *   and the deltas. Written at commit in one INSERT per batch, never updated. The reports sum them:
 *   live = every entry, as of a global position P = the entries at or below P, a close's adjustments
 *   = the entries in (close position, P] (docs/reports.md §2, §3).
 * - `reconciliation`: the same deltas summed by (table, shoe, dealer, gaming day, currency), one
 *   upsert per key at commit (read by the projections' own specs and checksums);
 *   sum(ledger_entries) by that key equals its rows. ggr = turnover − payouts (generated), hold at
 *   query time (view `reconciliation_report`); `dropped_num/dropped_den` summed over the lcm of every
 *   denominator.
 *
 * READS `hand_outcomes` (the round's context and status) and `bet_settlements` (the settlement a
 * resettlement or refund replaces), in {@link Projection.prepare}: as they were BEFORE the event,
 * whatever order the projections run in.
 */
export const reconciliationProjection: Projection<EntryBefore | undefined> = {
  name: 'reconciliation',
  tables: [
    {
      name: RECONCILIATION_TABLE,
      orderBy: 'table_id COLLATE "C", shoe_id COLLATE "C", dealer_id COLLATE "C", gaming_day, currency COLLATE "C"',
      scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p) => `gaming_day = ${p}` },
    },
    { name: LEDGER_ENTRIES_TABLE, orderBy: 'global_position, entry_no', scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p) => `gaming_day = ${p}` } },
  ],
  reads: [ROUND_CONTEXT_TABLE, BET_SETTLEMENTS_TABLE],
  async prepare(e: LedgerEvent, tx: ProjectionTx): Promise<EntryBefore | undefined> {
    const needs = entryNeeds(e);
    if (!needs) return undefined;
    const round = await roundContext(tx, needs.roundId);
    if (needs.roundStatus) {
      // the round's row as the transaction holds it (`ProjectionTx.row`): its status before the event
      const row = await tx.row(HAND_OUTCOMES_TABLE, 'round_id', needs.roundId);
      return { round, roundStatus: row ? (row.values.status as EntryRoundStatus) : undefined };
    }
    if (needs.betId !== undefined) return { round, bet: await betInForce(tx, e, needs.betId) };
    return { round };
  },
  async preload(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void> {
    const rounds: string[] = [];
    const bets: string[] = [];
    for (const e of events) {
      const needs = entryNeeds(e);
      if (needs?.roundStatus) rounds.push(needs.roundId);
      if (needs?.betId !== undefined) bets.push(needs.betId);
    }
    await tx.preload(HAND_OUTCOMES_TABLE, 'round_id', rounds);
    await tx.preload(BET_SETTLEMENTS_TABLE, 'bet_id', bets);
  },
  async apply(e: LedgerEvent, tx: ProjectionTx, before: EntryBefore | undefined): Promise<void> {
    if (!before) return;
    for (const x of reconciliationEntries(e, before)) {
      tx.append(LEDGER_ENTRIES_TABLE, entryRow(x));
      addReconciliation(tx, x, x);
    }
  },
};

/**
 * The bet in force, from its `bet_settlements` row as the transaction holds it (`ProjectionTx.row`:
 * preloaded for the batch, or created by a BetPlaced of the same transaction), before the event.
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when it was never placed
 */
async function betInForce(tx: ProjectionTx, e: LedgerEvent, betId: string): Promise<EntryBet> {
  const row = await tx.row(BET_SETTLEMENTS_TABLE, 'bet_id', betId);
  if (!row) {
    throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `${e.type} of bet ${betId}, which was never placed`, { eventId: e.eventId, type: e.type, betId });
  }
  const v = row.values;
  return {
    status: v.status as EntryBetStatus,
    stake: BigInt(String(v.stake)),
    payout: v.payout === null ? null : BigInt(String(v.payout)),
    dropped: v.dropped ? parseFraction(String(v.dropped)) : null,
    correctionPayoutDelta: BigInt(String(v.correction_payout_delta)),
  };
}
