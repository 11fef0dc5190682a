import type { LedgerEvent } from '@ledger/events';
import { ProjectionError } from '../errors';
import type { ProjectionTx, ReconciliationKey, RoundContext } from '../projection-tx';
import { addOverLcm, Fraction, negate, parseFraction, parseMinor, ZERO_FRACTION } from '../rational';
import type { Projection } from './projection';

/**
 * `reconciliation`: money and counts by (table, shoe, dealer, gaming day, currency), the
 * back-office view of domain-rules.md §4:
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
 *   (§4) of the settlements in force, over the lcm of every denominator summed.
 * - Counts: `bets_settled` (in force: settled and not refunded), `bets_refunded`, `rounds_resulted`
 *   (resulted and not voided), `rounds_voided`, `corrections`.
 *
 * Every bet's amounts go to the row of its round's context (dealer at RoundOpened, gaming day of
 * the RoundOpened, see hand_outcomes); round counts use the shoe's currency.
 *
 * ORDER: this projection runs BEFORE hand_outcomes and bet_settlements for each event, because it
 * reads their rows as they were before the event (the payout a resettlement replaces, whether a
 * voided round had been resulted). Deltas are accumulated in the transaction and upserted once per
 * key at commit.
 */
export const reconciliationProjection: Projection = {
  name: 'reconciliation',
  tables: [{ name: 'reconciliation', orderBy: 'table_id COLLATE "C", shoe_id COLLATE "C", dealer_id COLLATE "C", gaming_day, currency COLLATE "C"' }],
  async apply(e: LedgerEvent, tx: ProjectionTx): Promise<void> {
    switch (e.type) {
      case 'RoundResulted': {
        const ctx = await tx.roundContext(e.data.roundId);
        tx.addReconciliation(keyOf(ctx, ctx.currency), { roundsResulted: 1n });
        return;
      }
      case 'ResultCorrected': {
        const ctx = await tx.roundContext(e.data.roundId);
        tx.addReconciliation(keyOf(ctx, ctx.currency), { corrections: 1n });
        return;
      }
      case 'RoundVoided': {
        const ctx = await tx.roundContext(e.data.roundId);
        const rows = await tx.query<{ status: string }>(`SELECT status FROM ${tx.t('hand_outcomes')} WHERE round_id = $1`, [e.data.roundId]);
        const before = rows[0]?.status;
        if (before === 'VOIDED') return; // counted once
        const wasResulted = before === 'RESULTED' || before === 'CORRECTED';
        tx.addReconciliation(keyOf(ctx, ctx.currency), { roundsVoided: 1n, roundsResulted: wasResulted ? -1n : 0n });
        return;
      }
      case 'BetSettled': {
        const d = e.data;
        const ctx = await tx.roundContext(d.roundId);
        tx.addReconciliation(keyOf(ctx, d.currency), {
          turnover: parseMinor(d.stake, 'stake'),
          payouts: parseMinor(d.payout, 'payout'),
          betsSettled: 1n,
          dropped: parseFraction(d.dropped),
        });
        return;
      }
      case 'BetResettled': {
        const d = e.data;
        const ctx = await tx.roundContext(d.roundId);
        const bet = await betInForce(tx, e, d.betId);
        if (bet.status !== 'SETTLED' && bet.status !== 'RESETTLED') {
          throw inconsistent(e, `BetResettled of bet ${d.betId}, which is ${bet.status}`, d.betId);
        }
        const delta = parseMinor(d.payout, 'payout') - BigInt(bet.payout ?? '0');
        tx.addReconciliation(keyOf(ctx, d.currency), {
          payouts: delta,
          correctionPayoutDelta: delta,
          betsResettled: 1n,
          dropped: sub(parseFraction(d.dropped), bet.dropped),
        });
        return;
      }
      case 'BetRefunded': {
        const d = e.data;
        const ctx = await tx.roundContext(d.roundId);
        const bet = await betInForce(tx, e, d.betId);
        const stake = parseMinor(d.stake, 'stake');
        if (bet.status === 'REFUNDED') throw inconsistent(e, `bet ${d.betId} refunded twice`, d.betId);
        if (bet.status === 'OPEN') {
          tx.addReconciliation(keyOf(ctx, d.currency), { voidedStakes: stake, betsRefunded: 1n });
          return;
        }
        tx.addReconciliation(keyOf(ctx, d.currency), {
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
