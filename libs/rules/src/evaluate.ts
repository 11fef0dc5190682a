import { Card } from './cards';
import { formatRatio } from './money';
import { payoffFor, Paytable } from './paytables';
import { Payoff } from './settlement';
import { dealRound, RoundOutcome } from './tableau';
import { BET_CODES, BetCode } from './variants';

/** A dealt round with the payoff of every bet of its paytable. */
export interface EvaluatedRound {
  readonly outcome: RoundOutcome;
  readonly payoffs: ReadonlyMap<BetCode, Payoff>;
}

/**
 * Deals a round from the next cards off the shoe and gives every bet's payoff under `paytable`.
 * @throws RulesError `TABLEAU.INSUFFICIENT_CARDS`
 */
export function evaluateRound(paytable: Paytable, shoeCards: readonly Card[]): EvaluatedRound {
  const outcome = dealRound(shoeCards);
  const payoffs = new Map<BetCode, Payoff>();
  for (const bet of BET_CODES[paytable.variant] as readonly BetCode[]) payoffs.set(bet, payoffFor(paytable, bet, outcome));
  return { outcome, payoffs };
}

/**
 * Net result of a 1-unit stake as an exact decimal string: `"-1"` lose, `"0"` push, odds on a win
 * (`"0.95"`, `"0.5"`, `"35"`).
 */
export function netPerUnit(payoff: Payoff): string {
  switch (payoff.kind) {
    case 'LOSE':
      return '-1';
    case 'PUSH':
      return '0';
    case 'WIN':
      return formatRatio(payoff.odds);
  }
}
