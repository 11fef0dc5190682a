import { Card } from './cards';
import { RulesError } from './errors';
import { RoundOutcome } from './tableau';

/**
 * The three games and the rule of which paytable row each bet's result falls in
 * (docs/domain-rules.md §3). The odds themselves are data: see `paytables.ts`.
 */

export const VARIANTS = ['classic', 'tiger', 'fabulous4'] as const;
/** `classic` = Classic baccarat with Lucky Pair side bets (§3.1), `tiger` = Tiger Baccarat (§3.2), `fabulous4` = Fabulous 4 Baccarat (§3.3). */
export type Variant = (typeof VARIANTS)[number];

/** Bet codes of every variant, in the order the CLI and reports list them. */
export const BET_CODES = {
  classic: ['PLAYER', 'BANKER', 'TIE', 'PLAYER_PAIR', 'BANKER_PAIR', 'EITHER_PAIR'],
  tiger: ['PLAYER', 'BANKER', 'TIE', 'TIGER_TIE', 'TIGER_PAIR', 'TIGER', 'BIG_TIGER', 'SMALL_TIGER'],
  fabulous4: ['PLAYER', 'BANKER', 'TIE', 'PLAYER_FABULOUS_PAIR', 'BANKER_FABULOUS_PAIR', 'PLAYER_FABULOUS_4', 'BANKER_FABULOUS_4'],
} as const satisfies Record<Variant, readonly string[]>;

export type BetCode = (typeof BET_CODES)[Variant][number];

/** The main wagers (§3.1): a pair wager may need one of these first, per table setting. */
export const MAIN_BETS: readonly BetCode[] = ['PLAYER', 'BANKER', 'TIE'];

/** Classic's Lucky Pair wagers, subject to the table's "pair bets need a main bet" setting (§3.1). */
export const PAIR_BETS: readonly BetCode[] = ['PLAYER_PAIR', 'BANKER_PAIR', 'EITHER_PAIR'];

/**
 * Paytable row keys each bet code may have, most specific first (§3). A paytable gives odds
 * (or push) for some of them; a bet whose outcome matches no row the paytable has is lost.
 */
export const ROW_KEYS: Record<BetCode, readonly string[]> = {
  PLAYER: ['WIN_TOTAL_4', 'WIN_TOTAL_1', 'WIN', 'TIE'],
  BANKER: ['WIN_TOTAL_6', 'WIN_TOTAL_4', 'WIN_TOTAL_1', 'WIN', 'TIE'],
  TIE: ['WIN'],
  PLAYER_PAIR: ['WIN'],
  BANKER_PAIR: ['WIN'],
  EITHER_PAIR: ['WIN'],
  TIGER_TIE: ['WIN'],
  TIGER_PAIR: ['TWIN_PAIRS', 'TWO_PAIRS', 'ONE_PAIR'],
  TIGER: ['SIX_ON_THREE_CARDS', 'SIX_ON_TWO_CARDS'],
  BIG_TIGER: ['SIX_ON_THREE_CARDS'],
  SMALL_TIGER: ['SIX_ON_TWO_CARDS'],
  PLAYER_FABULOUS_PAIR: ['SUITED_PAIR', 'PAIR', 'SUITED'],
  BANKER_FABULOUS_PAIR: ['SUITED_PAIR', 'PAIR', 'SUITED'],
  PLAYER_FABULOUS_4: ['WIN_TOTAL_4'],
  BANKER_FABULOUS_4: ['WIN_TOTAL_4'],
};

/** Which of a side's first two cards' Fabulous Pair rows hold (§3.3). */
function fabulousPairRows(first: Card, second: Card): string[] {
  const sameRank = first.rank === second.rank;
  const sameSuit = first.suit === second.suit;
  if (sameRank && sameSuit) return ['SUITED_PAIR'];
  if (sameRank) return ['PAIR'];
  if (sameSuit) return ['SUITED'];
  return [];
}

/**
 * The paytable rows a bet's outcome matches, most specific first; the first row the paytable
 * defines applies (e.g. Tiger Banker winning on 6 matches `WIN_TOTAL_6` then `WIN`). An empty list
 * means the bet loses. Rule source: docs/domain-rules.md §3.1–§3.3.
 */
export function matchingRows(bet: BetCode, o: RoundOutcome): string[] {
  const pWin = o.winner === 'PLAYER';
  const bWin = o.winner === 'BANKER';
  const tie = o.winner === 'TIE';
  const rows: string[] = [];
  const sideWin = (win: boolean, total: number) => {
    if (win) {
      if (total === 6 && bet === 'BANKER') rows.push('WIN_TOTAL_6');
      if (total === 4) rows.push('WIN_TOTAL_4');
      if (total === 1) rows.push('WIN_TOTAL_1');
      rows.push('WIN');
    } else if (tie) rows.push('TIE');
    return rows;
  };
  switch (bet) {
    case 'PLAYER':
      return sideWin(pWin, o.playerTotal);
    case 'BANKER':
      return sideWin(bWin, o.bankerTotal);
    case 'TIE':
      return tie ? ['WIN'] : [];
    case 'PLAYER_PAIR':
      return o.playerPair ? ['WIN'] : [];
    case 'BANKER_PAIR':
      return o.bankerPair ? ['WIN'] : [];
    case 'EITHER_PAIR':
      return o.playerPair || o.bankerPair ? ['WIN'] : [];
    case 'TIGER_TIE':
      return tie && o.playerTotal === 6 ? ['WIN'] : [];
    case 'TIGER_PAIR':
      if (o.playerPair && o.bankerPair) return o.player[0].rank === o.banker[0].rank ? ['TWIN_PAIRS'] : ['TWO_PAIRS'];
      return o.playerPair || o.bankerPair ? ['ONE_PAIR'] : [];
    case 'TIGER':
    case 'BIG_TIGER':
    case 'SMALL_TIGER':
      if (!bWin || o.bankerTotal !== 6) return [];
      return o.banker.length === 3 ? ['SIX_ON_THREE_CARDS'] : ['SIX_ON_TWO_CARDS'];
    case 'PLAYER_FABULOUS_PAIR':
      return fabulousPairRows(o.player[0], o.player[1]);
    case 'BANKER_FABULOUS_PAIR':
      return fabulousPairRows(o.banker[0], o.banker[1]);
    case 'PLAYER_FABULOUS_4':
      return pWin && o.playerTotal === 4 ? ['WIN_TOTAL_4'] : [];
    case 'BANKER_FABULOUS_4':
      return bWin && o.bankerTotal === 4 ? ['WIN_TOTAL_4'] : [];
  }
}

/** Narrows a string to a variant. @throws RulesError `VARIANT.UNKNOWN` */
export function parseVariant(text: unknown): Variant {
  if (typeof text === 'string' && (VARIANTS as readonly string[]).includes(text)) return text as Variant;
  throw new RulesError('VARIANT.UNKNOWN', `unknown variant ${JSON.stringify(text)}; expected one of ${VARIANTS.join(', ')}`);
}

/** True when `code` is a bet code of `variant`. */
export function isBetCodeOf(variant: Variant, code: unknown): code is BetCode {
  return typeof code === 'string' && (BET_CODES[variant] as readonly string[]).includes(code);
}
