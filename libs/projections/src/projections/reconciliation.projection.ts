import type { LedgerEvent } from '@ledger/events';
import { ProjectionError } from '../errors';
import type { ProjectionTx, SumTable } from '../projection-tx';
import { addOverLcm, Fraction, negate, parseFraction, parseMinor, ZERO_FRACTION } from '../rational';
import { roundContext, ROUND_CONTEXT_TABLE, RoundContext } from '../round-context';
import type { Projection } from './projection';

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
export const RECONCILIATION_TABLE: SumTable = {
  name: 'reconciliation',
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
  tx.increment(RECONCILIATION_TABLE, [key.tableId, key.shoeId, key.dealerId, key.gamingDay, key.currency], d);
}

/** What {@link reconciliationProjection} reads before an event: the round, and the bet or round as it was. */
interface Before {
  readonly ctx: RoundContext;
  /** The bet in force (BetResettled, BetRefunded). */
  readonly bet?: BetRow;
  /** `hand_outcomes.status` of the round (RoundVoided). */
  readonly roundStatus?: string;
}

/**
 * `reconciliation`: money and counts by (table, shoe, dealer, gaming day, currency), the
 * back-office view of docs/domain-rules.md §4:
 *
 * - turnover = stakes of bets in rounds that were not voided; payouts = amounts returned to players
 *   (stake + winnings on a win, the stake on a push), both for the settlement IN FORCE;
 *   ggr = turnover − payouts (a generated column); hold = ggr / turnover is computed at query
 *   time (view `reconciliation_report`).
 * - A bet enters turnover and payouts when it is first settled (BetSettled): an open round
 *   contributes nothing yet.
 * - A resettlement (BetResettled after a ResultCorrected) changes payouts by (new − old payout);
 *   that change is ALSO added to `correction_payout_delta`, so corrections are shown apart
 *   while payouts and ggr stay those in force. `bets_resettled`, `corrections` count them.
 * - A refund (BetRefunded after a void) takes the bet out of turnover and payouts (and its
 *   correction delta out of `correction_payout_delta`) and adds its stake to `voided_stakes`,
 *   which is neither turnover nor payout. A bet refunded before any settlement only adds to
 *   `voided_stakes`.
 * - `dropped_num/dropped_den`: exact sum of the fractions of a minor unit dropped by rounding
 *   (docs/domain-rules.md §4) of the settlements in force, over the lcm of every denominator summed.
 * - Counts: `bets_settled` (in force: settled and not refunded), `bets_refunded`, `rounds_resulted`
 *   (resulted and not voided), `rounds_voided`, `corrections`.
 *
 * Every bet's amounts go to the row of its round's context (dealer at RoundOpened, gaming day of
 * the RoundOpened, see hand_outcomes); round counts use the shoe's currency.
 *
 * READS `hand_outcomes` (the round's context and status) and `bet_settlements` (the settlement a
 * resettlement or refund replaces), in {@link Projection.prepare}: as they were BEFORE the event,
 * whatever order the projections run in. Deltas are accumulated in the transaction and upserted
 * once per key at commit.
 */
export const reconciliationProjection: Projection<Before | undefined> = {
  name: 'reconciliation',
  tables: [{ name: 'reconciliation', orderBy: 'table_id COLLATE "C", shoe_id COLLATE "C", dealer_id COLLATE "C", gaming_day, currency COLLATE "C"' }],
  reads: [ROUND_CONTEXT_TABLE, 'bet_settlements'],
  async prepare(e: LedgerEvent, tx: ProjectionTx): Promise<Before | undefined> {
    switch (e.type) {
      case 'RoundResulted':
      case 'ResultCorrected':
      case 'BetSettled':
        return { ctx: await roundContext(tx, e.data.roundId) };
      case 'RoundVoided': {
        const ctx = await roundContext(tx, e.data.roundId);
        const rows = await tx.query<{ status: string }>(`SELECT status FROM ${tx.t('hand_outcomes')} WHERE round_id = $1`, [e.data.roundId]);
        return { ctx, roundStatus: rows[0]?.status };
      }
      case 'BetResettled':
      case 'BetRefunded':
        return { ctx: await roundContext(tx, e.data.roundId), bet: await betInForce(tx, e, e.data.betId) };
      default:
        return undefined;
    }
  },
  async apply(e: LedgerEvent, tx: ProjectionTx, before: Before | undefined): Promise<void> {
    if (!before) return;
    const ctx = before.ctx;
    switch (e.type) {
      case 'RoundResulted':
        addReconciliation(tx, keyOf(ctx, ctx.currency), { roundsResulted: 1n });
        return;
      case 'ResultCorrected':
        addReconciliation(tx, keyOf(ctx, ctx.currency), { corrections: 1n });
        return;
      case 'RoundVoided': {
        const status = before.roundStatus;
        if (status === 'VOIDED') return; // counted once
        const wasResulted = status === 'RESULTED' || status === 'CORRECTED';
        addReconciliation(tx, keyOf(ctx, ctx.currency), { roundsVoided: 1n, roundsResulted: wasResulted ? -1n : 0n });
        return;
      }
      case 'BetSettled': {
        const d = e.data;
        addReconciliation(tx, keyOf(ctx, d.currency), {
          turnover: parseMinor(d.stake, 'stake'),
          payouts: parseMinor(d.payout, 'payout'),
          betsSettled: 1n,
          dropped: parseFraction(d.dropped),
        });
        return;
      }
      case 'BetResettled': {
        const d = e.data;
        const bet = before.bet!;
        if (bet.status !== 'SETTLED' && bet.status !== 'RESETTLED') {
          throw inconsistent(e, `BetResettled of bet ${d.betId}, which is ${bet.status}`, d.betId);
        }
        const delta = parseMinor(d.payout, 'payout') - BigInt(bet.payout ?? '0');
        addReconciliation(tx, keyOf(ctx, d.currency), {
          payouts: delta,
          correctionPayoutDelta: delta,
          betsResettled: 1n,
          dropped: sub(parseFraction(d.dropped), bet.dropped),
        });
        return;
      }
      case 'BetRefunded': {
        const d = e.data;
        const bet = before.bet!;
        const stake = parseMinor(d.stake, 'stake');
        if (bet.status === 'REFUNDED') throw inconsistent(e, `bet ${d.betId} refunded twice`, d.betId);
        if (bet.status === 'OPEN') {
          addReconciliation(tx, keyOf(ctx, d.currency), { voidedStakes: stake, betsRefunded: 1n });
          return;
        }
        addReconciliation(tx, keyOf(ctx, d.currency), {
          turnover: -BigInt(bet.stake),
          payouts: -BigInt(bet.payout ?? '0'),
          correctionPayoutDelta: -BigInt(bet.correction_payout_delta),
          betsSettled: -1n,
          dropped: bet.dropped ? negate(parseFraction(bet.dropped)) : ZERO_FRACTION,
          voidedStakes: stake,
          betsRefunded: 1n,
        });
        return;
      }
      default:
        return;
    }
  },
};

function keyOf(ctx: RoundContext, currency: string): ReconciliationKey {
  return { tableId: ctx.tableId, shoeId: ctx.shoeId, dealerId: ctx.dealerId, gamingDay: ctx.gamingDay, currency };
}

function inconsistent(e: LedgerEvent, message: string, betId: string): ProjectionError {
  return new ProjectionError('PROJECTION.INCONSISTENT_EVENT', message, { eventId: e.eventId, type: e.type, betId });
}

interface BetRow {
  status: string;
  stake: string;
  payout: string | null;
  dropped: string | null;
  correction_payout_delta: string;
}

async function betInForce(tx: ProjectionTx, e: LedgerEvent, betId: string): Promise<BetRow> {
  const rows = await tx.query<BetRow>(
    `SELECT status, stake::text AS stake, payout::text AS payout, dropped, correction_payout_delta::text AS correction_payout_delta
     FROM ${tx.t('bet_settlements')} WHERE bet_id = $1`,
    [betId],
  );
  if (rows.length === 0) throw inconsistent(e, `${e.type} of bet ${betId}, which was never placed`, betId);
  return rows[0];
}

/** `next − previous` (the dropped fraction a resettlement replaces), over the lcm of their denominators. */
function sub(next: Fraction, previous: string | null): Fraction {
  return addOverLcm(next, negate(previous ? parseFraction(previous) : ZERO_FRACTION));
}
