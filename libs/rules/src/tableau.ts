import { Card, handTotal, isPair, pointValue } from './cards';
import { RulesError } from './errors';

/**
 * The tableau: dealing order and third-card rules (docs/domain-rules.md §2).
 *
 * Dealing order: P1 B1 P2 B2, then the Player's third card (P3) if any, then the Banker's (B3).
 */

/** Positions on the layout, in the order they can be dealt. */
export const POSITIONS = ['P1', 'B1', 'P2', 'B2', 'P3', 'B3'] as const;
export type Position = (typeof POSITIONS)[number];

export type Winner = 'PLAYER' | 'BANKER' | 'TIE';

/**
 * Player's third-card rule (§2), no natural on either side: total 0–5 draws, 6–7 stands.
 * @param playerTotal two-card Player total 0..7
 */
export function playerDraws(playerTotal: number): boolean {
  return playerTotal <= 5;
}

/**
 * Banker's third-card rule (§2), no natural on either side.
 * @param bankerTotal two-card Banker total 0..7
 * @param playerThirdValue point value `v` of the Player's third card, or `null` when the Player stood
 * @returns true when the Banker draws
 */
export function bankerDraws(bankerTotal: number, playerThirdValue: number | null): boolean {
  if (playerThirdValue === null) return bankerTotal <= 5;
  const v = playerThirdValue;
  switch (bankerTotal) {
    case 0:
    case 1:
    case 2:
      return true;
    case 3:
      return v !== 8;
    case 4:
      return v >= 2 && v <= 7;
    case 5:
      return v >= 4 && v <= 7;
    case 6:
      return v === 6 || v === 7;
    default:
      return false;
  }
}

/**
 * The position the tableau calls for next, given the cards already dealt to the round in
 * dealing order, or `null` when the round is complete.
 * @param dealt 0..6 cards in dealing order (P1 B1 P2 B2 [P3] [B3])
 */
export function nextPosition(dealt: readonly Card[]): Position | null {
  const n = dealt.length;
  if (n < 4) return POSITIONS[n];
  const player = [dealt[0], dealt[2]];
  const banker = [dealt[1], dealt[3]];
  const pt = handTotal(player);
  const bt = handTotal(banker);
  if (pt >= 8 || bt >= 8) return null; // natural: neither side draws
  const pDraws = playerDraws(pt);
  if (n === 4) {
    if (pDraws) return 'P3';
    return bankerDraws(bt, null) ? 'B3' : null;
  }
  if (n === 5 && pDraws) {
    return bankerDraws(bt, pointValue(dealt[4].rank)) ? 'B3' : null;
  }
  return null;
}

/** Names of the ways a dealt sequence can break the tableau. */
export type TableauViolationKind =
  | 'OUT_OF_ORDER' // e.g. B1 before P1
  | 'ROUND_COMPLETE' // a card after the round needed no more
  | 'NATURAL_NO_DRAW' // a third card after a natural
  | 'PLAYER_MUST_STAND' // P3 on a Player 6 or 7
  | 'PLAYER_MUST_DRAW' // B3 while the Player had to draw first
  | 'BANKER_MUST_STAND'; // B3 where the Banker's table says stand

/**
 * Explains why `position` may not be dealt after `dealt`, or returns `null` when it is exactly
 * the card the tableau calls for.
 */
export function tableauViolation(dealt: readonly Card[], position: Position): TableauViolationKind | null {
  const expected = nextPosition(dealt);
  if (expected === position) return null;
  const n = dealt.length;
  if (n < 4 || (position !== 'P3' && position !== 'B3')) {
    return expected === null ? 'ROUND_COMPLETE' : 'OUT_OF_ORDER';
  }
  const pt = handTotal([dealt[0], dealt[2]]);
  const bt = handTotal([dealt[1], dealt[3]]);
  if (pt >= 8 || bt >= 8) return 'NATURAL_NO_DRAW';
  if (position === 'P3') {
    if (n === 4) return 'PLAYER_MUST_STAND';
    // five or more cards are down: either the Banker's B3 is due (out of order) or the round is over
    return expected === null ? 'ROUND_COMPLETE' : 'OUT_OF_ORDER';
  }
  // position B3
  if (n === 4 && expected === 'P3') return 'PLAYER_MUST_DRAW';
  // the Banker already holds a third card (after P3, or as the 5th card when the Player stood)
  if (n >= 6 || (n === 5 && !playerDraws(pt))) return 'ROUND_COMPLETE';
  return 'BANKER_MUST_STAND';
}

/**
 * Throws when `position` is not the card the tableau calls for next.
 * @throws RulesError `TABLEAU.VIOLATION` with `details.violation` a {@link TableauViolationKind}
 */
export function assertNextPosition(dealt: readonly Card[], position: Position): void {
  const v = tableauViolation(dealt, position);
  if (v) {
    throw new RulesError('TABLEAU.VIOLATION', `tableau forbids ${position} here: ${v}`, {
      violation: v,
      position,
      expected: nextPosition(dealt),
      dealt: dealt.map((c) => c.code),
    });
  }
}

/** A resulted round: the cards each side used, totals, winner, natural and pairs. */
export interface RoundOutcome {
  /** Player's cards in the order received (2 or 3). */
  readonly player: readonly Card[];
  /** Banker's cards in the order received (2 or 3). */
  readonly banker: readonly Card[];
  readonly playerTotal: number;
  readonly bankerTotal: number;
  readonly winner: Winner;
  /** Either side had a natural (two-card 8 or 9). */
  readonly natural: boolean;
  readonly playerNatural: boolean;
  readonly bankerNatural: boolean;
  /** Player's first two cards are the same rank (counts even if the Player drew). */
  readonly playerPair: boolean;
  /** Banker's first two cards are the same rank. */
  readonly bankerPair: boolean;
  /** Cards the round took from the shoe: 4, 5 or 6. */
  readonly cardsConsumed: number;
}

/**
 * Results a round from the cards dealt to it, in dealing order.
 * @param dealt exactly the cards of a complete round (4–6), as {@link nextPosition} calls them
 * @throws RulesError `TABLEAU.INSUFFICIENT_CARDS` if the round is not complete,
 *   `TABLEAU.VIOLATION` if there are more cards than the tableau allows
 */
export function resultRound(dealt: readonly Card[]): RoundOutcome {
  const need = cardsNeeded(dealt);
  if (need > dealt.length) {
    throw new RulesError('TABLEAU.INSUFFICIENT_CARDS', `round needs at least ${need} cards, got ${dealt.length}`, {
      given: dealt.length,
    });
  }
  if (need < dealt.length) {
    throw new RulesError('TABLEAU.VIOLATION', `round complete after ${need} cards, got ${dealt.length}`, {
      violation: 'ROUND_COMPLETE' satisfies TableauViolationKind,
    });
  }
  const player = [dealt[0], dealt[2]];
  const banker = [dealt[1], dealt[3]];
  const playerNatural = handTotal(player) >= 8;
  const bankerNatural = handTotal(banker) >= 8;
  if (dealt.length >= 5) {
    // P3 exists unless the player stood and only the banker drew
    const playerStood = !playerDraws(handTotal(player));
    if (playerStood) banker.push(dealt[4]);
    else player.push(dealt[4]);
  }
  if (dealt.length === 6) banker.push(dealt[5]);
  const playerTotal = handTotal(player);
  const bankerTotal = handTotal(banker);
  return {
    player,
    banker,
    playerTotal,
    bankerTotal,
    winner: playerTotal > bankerTotal ? 'PLAYER' : bankerTotal > playerTotal ? 'BANKER' : 'TIE',
    natural: playerNatural || bankerNatural,
    playerNatural,
    bankerNatural,
    playerPair: isPair(player),
    bankerPair: isPair(banker),
    cardsConsumed: dealt.length,
  };
}

/** Number of cards a round with this prefix will take in all; `> dealt.length` while incomplete. */
function cardsNeeded(dealt: readonly Card[]): number {
  for (let i = 0; i <= Math.min(dealt.length, 6); i++) {
    if (nextPosition(dealt.slice(0, i)) === null) return i;
  }
  return dealt.length + 1;
}

/**
 * Deals one round from the next cards off the shoe (possibly more than the round needs) and
 * results it. `outcome.cardsConsumed` says how many of `shoeCards` it took.
 * @throws RulesError `TABLEAU.INSUFFICIENT_CARDS` when the cards run out before the round completes
 */
export function dealRound(shoeCards: readonly Card[]): RoundOutcome {
  const dealt: Card[] = [];
  while (nextPosition(dealt) !== null) {
    if (dealt.length >= shoeCards.length) {
      throw new RulesError('TABLEAU.INSUFFICIENT_CARDS', `round needs more than the ${shoeCards.length} card(s) given`, { given: shoeCards.length, position: nextPosition(dealt) });
    }
    dealt.push(shoeCards[dealt.length]);
  }
  return resultRound(dealt);
}
