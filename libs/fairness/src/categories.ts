import { matchingRows, RANKS, RoundOutcome, Variant } from '@ledger/rules';

/**
 * The statistics the fairness monitor tests per game (docs/fairness.md §1): each splits every
 * resulted round into mutually exclusive categories, read off the settlement engine's own
 * `matchingRows` where a bet exists, so the monitor and the paytables cannot disagree.
 */

/** Names of the statistics (one goodness-of-fit test each per scope). */
export type FairnessStatistic = 'OUTCOME' | 'PAIRS' | 'NATURALS' | 'TIGER_PAIR' | 'TIGER' | 'PLAYER_FABULOUS_PAIR' | 'BANKER_FABULOUS_PAIR' | 'FABULOUS_4' | 'CARD_RANKS';

/** A statistic over rounds: its categories, in report order, and the category of a round. */
export interface RoundStatistic {
  readonly id: Exclude<FairnessStatistic, 'CARD_RANKS'>;
  /** Every category, mutually exclusive and exhaustive, in the order reports list them. */
  readonly categories: readonly string[];
  /**
   * The category of a resulted round. Depends only on what the PAR engine's enumeration tells
   * apart (winner, totals, card counts, naturals, pairs, suited first two cards), so its exact
   * distribution is `roundDistribution` of `@ledger/rules`.
   */
  readonly classify: (outcome: RoundOutcome) => string;
}

const both = (player: boolean, banker: boolean): string => (player && banker ? 'BOTH' : player ? 'PLAYER' : banker ? 'BANKER' : 'NONE');

/** Who won: PLAYER, BANKER or TIE (every game). */
export const OUTCOME: RoundStatistic = { id: 'OUTCOME', categories: ['PLAYER', 'BANKER', 'TIE'], classify: (o) => o.winner };

/** Which side's first two cards are a pair (Classic's Player Pair / Banker Pair bets): NONE, PLAYER, BANKER, BOTH. */
export const PAIRS: RoundStatistic = { id: 'PAIRS', categories: ['NONE', 'PLAYER', 'BANKER', 'BOTH'], classify: (o) => both(o.playerPair, o.bankerPair) };

/** Which side holds a natural (two-card 8 or 9): NONE, PLAYER, BANKER, BOTH (every game). */
export const NATURALS: RoundStatistic = { id: 'NATURALS', categories: ['NONE', 'PLAYER', 'BANKER', 'BOTH'], classify: (o) => both(o.playerNatural, o.bankerNatural) };

/** Tiger Pair's rows (docs/domain-rules.md §3.2): NONE, ONE_PAIR, TWO_PAIRS, TWIN_PAIRS. */
export const TIGER_PAIR: RoundStatistic = { id: 'TIGER_PAIR', categories: ['NONE', 'ONE_PAIR', 'TWO_PAIRS', 'TWIN_PAIRS'], classify: (o) => matchingRows('TIGER_PAIR', o)[0] ?? 'NONE' };

/**
 * Tiger's side outcomes (§3.2): Banker wins on 6 with two cards (Small Tiger, `SIX_ON_TWO_CARDS`),
 * with three (Big Tiger, `SIX_ON_THREE_CARDS`), a tie on 6 (Tiger Tie, `TIE_ON_6`), else NONE.
 */
export const TIGER: RoundStatistic = {
  id: 'TIGER',
  categories: ['NONE', 'SIX_ON_TWO_CARDS', 'SIX_ON_THREE_CARDS', 'TIE_ON_6'],
  classify: (o) => matchingRows('TIGER', o)[0] ?? (matchingRows('TIGER_TIE', o).length ? 'TIE_ON_6' : 'NONE'),
};

const FABULOUS_PAIR_ROWS = ['NONE', 'SUITED', 'PAIR', 'SUITED_PAIR'] as const;

/** Fabulous 4's Player Fabulous Pair rows (§3.3): NONE, SUITED, PAIR, SUITED_PAIR of the Player's first two cards. */
export const PLAYER_FABULOUS_PAIR: RoundStatistic = { id: 'PLAYER_FABULOUS_PAIR', categories: FABULOUS_PAIR_ROWS, classify: (o) => matchingRows('PLAYER_FABULOUS_PAIR', o)[0] ?? 'NONE' };

/** Fabulous 4's Banker Fabulous Pair rows (§3.3), as {@link PLAYER_FABULOUS_PAIR} for the Banker's first two cards. */
export const BANKER_FABULOUS_PAIR: RoundStatistic = { id: 'BANKER_FABULOUS_PAIR', categories: FABULOUS_PAIR_ROWS, classify: (o) => matchingRows('BANKER_FABULOUS_PAIR', o)[0] ?? 'NONE' };

/** Fabulous 4's wins on 4 (§3.3): PLAYER_WINS_ON_4, BANKER_WINS_ON_4, else NONE. */
export const FABULOUS_4: RoundStatistic = {
  id: 'FABULOUS_4',
  categories: ['NONE', 'PLAYER_WINS_ON_4', 'BANKER_WINS_ON_4'],
  classify: (o) => (matchingRows('PLAYER_FABULOUS_4', o).length ? 'PLAYER_WINS_ON_4' : matchingRows('BANKER_FABULOUS_4', o).length ? 'BANKER_WINS_ON_4' : 'NONE'),
};

/** The round statistics tested for each game, in report order; `CARD_RANKS` follows them for every game. */
export const ROUND_STATISTICS: Readonly<Record<Variant, readonly RoundStatistic[]>> = {
  classic: [OUTCOME, PAIRS, NATURALS],
  tiger: [OUTCOME, NATURALS, TIGER_PAIR, TIGER],
  fabulous4: [OUTCOME, NATURALS, PLAYER_FABULOUS_PAIR, BANKER_FABULOUS_PAIR, FABULOUS_4],
};

/** The categories of `CARD_RANKS`: the 13 ranks of the cards dealt to rounds (A, 2…9, T, J, Q, K). */
export const CARD_RANK_CATEGORIES: readonly string[] = RANKS;

/** Every statistic tested for a game: its round statistics, then `CARD_RANKS`. */
export function statisticsOf(variant: Variant): readonly FairnessStatistic[] {
  return [...ROUND_STATISTICS[variant].map((s) => s.id), 'CARD_RANKS'];
}
