import { payoffFor, settle, type Paytable, type RoundOutcome } from '@ledger/rules';
import type { BetSettlementData, NewEvent, VoidCause } from '@ledger/events';
import type { DecideContext } from '../commands';
import { logValues } from '../keyed-log';
import { betSettlement, type BetRecord, type RoundState } from '../state';

/**
 * What a result or a void does to a round's bets, shared by the areas that result rounds
 * (dealing.ts, management.ts) and those that void them (incidents.ts, dealing.ts for the cut
 * card, management.ts). Section signs (§) are those of docs/domain-rules.md.
 */

/**
 * The settlement of one bet (§3, §4): exact, winnings rounded down to the minor unit, the
 * fraction dropped recorded as `"num/den"` (`"0"` when none).
 * @param revision 1 for the first settlement, +1 for each resettlement after a correction
 */
export function settlement(bet: BetRecord, outcome: RoundOutcome, paytable: Paytable, revision: number): BetSettlementData {
  const st = settle(bet.stake, payoffFor(paytable, bet.betCode, outcome));
  return {
    betId: bet.betId,
    roundId: bet.roundId,
    accountId: bet.accountId,
    betCode: bet.betCode,
    currency: bet.currency,
    result: st.result,
    stake: st.stake.toString(),
    winnings: st.winnings.toString(),
    payout: st.payout.toString(),
    net: st.net.toString(),
    dropped: st.dropped.num === 0n ? '0' : `${st.dropped.num}/${st.dropped.den}`,
    paytableRef: paytable.ref,
    revision,
  };
}

/**
 * A void caused by a table fact (exposed, dropped or cut card, §5.2, §5.3, §5.5) or by the
 * shoe's void: RoundVoided naming the event that caused it, then the refunds.
 */
export function autoVoid(round: RoundState, cause: Exclude<VoidCause, 'MANAGEMENT'>, causedBy: string, ctx: DecideContext): NewEvent[] {
  const voided: NewEvent = { eventId: ctx.newId(), type: 'RoundVoided', data: { roundId: round.roundId, cause, decision: null, causedBy } };
  return [voided, ...refunds(round, voided.eventId, ctx)];
}

/**
 * §6: a void returns every stake of the hand. One BetRefunded per bet, naming the RoundVoided
 * and ending the settlement revision in force (0 for a bet never settled).
 */
export function refunds(round: RoundState, roundVoidedId: string, ctx: DecideContext): NewEvent[] {
  const out: NewEvent[] = [];
  for (const bet of logValues(round.bets)) {
    out.push({
      eventId: ctx.newId(),
      type: 'BetRefunded',
      data: {
        betId: bet.betId,
        roundId: bet.roundId,
        accountId: bet.accountId,
        betCode: bet.betCode,
        currency: bet.currency,
        stake: bet.stake.toString(),
        compensates: roundVoidedId,
        revision: betSettlement(round, bet.betId)?.revision ?? 0,
      },
    });
  }
  return out;
}
