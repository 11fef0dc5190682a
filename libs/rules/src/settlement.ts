import { assertValidStake, Ratio, ratio } from './money';

/**
 * Settlement of one bet (docs/domain-rules.md §3, §4).
 *
 * "X:1" pays X units of profit per unit staked and returns the stake; "push" returns the stake; a
 * losing wager loses the stake. Winnings that fall between minor units are rounded DOWN to the
 * minor unit (the house keeps the fraction) and the fraction dropped is recorded. A win whose
 * winnings round to 0 is still a win (stake returned).
 */

/** What the paytable says a bet gets for an outcome. */
export type Payoff = { readonly kind: 'WIN'; readonly odds: Ratio } | { readonly kind: 'PUSH' } | { readonly kind: 'LOSE' };

export type BetResult = 'WIN' | 'LOSE' | 'PUSH';

/** A settled bet. All amounts in integer minor units. */
export interface Settlement {
  readonly result: BetResult;
  /** The stake, minor units. */
  readonly stake: bigint;
  /** Winnings credited on top of the stake, rounded down; 0 on push or loss. */
  readonly winnings: bigint;
  /** Amount returned to the player: stake + winnings on a win, stake on a push, 0 on a loss. */
  readonly payout: bigint;
  /** payout − stake: positive on a win, 0 on a push, −stake on a loss. */
  readonly net: bigint;
  /**
   * Fraction of a minor unit dropped by rounding down, as an exact ratio in minor units
   * (0 ≤ dropped < 1). Stake 5 at 1:2 → winnings 2, dropped 1/2 (i.e. 0.005 of a major unit).
   */
  readonly dropped: Ratio;
}

/**
 * Settles a stake against a payoff.
 * @param stake integer minor units, 1 ≤ stake ≤ 2^53 − 1
 * @throws RulesError `MONEY.INVALID_STAKE`
 */
export function settle(stake: bigint, payoff: Payoff): Settlement {
  assertValidStake(stake);
  switch (payoff.kind) {
    case 'LOSE':
      return { result: 'LOSE', stake, winnings: 0n, payout: 0n, net: -stake, dropped: ratio(0n) };
    case 'PUSH':
      return { result: 'PUSH', stake, winnings: 0n, payout: stake, net: 0n, dropped: ratio(0n) };
    case 'WIN': {
      const exact = stake * payoff.odds.num;
      const winnings = exact / payoff.odds.den; // bigint division truncates: rounds down for non-negatives
      const remainder = exact - winnings * payoff.odds.den;
      return {
        result: 'WIN',
        stake,
        winnings,
        payout: stake + winnings,
        net: winnings,
        dropped: ratio(remainder, payoff.odds.den),
      };
    }
  }
}
