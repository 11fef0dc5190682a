import { Card, RANKS, SUITS } from './cards';
import { RulesError } from './errors';

/**
 * Card accounting for a shoe of N standard 52-card decks (§1): a shoe holds exactly N copies
 * of each rank+suit, so a card that would exceed that count cannot have been dealt.
 *
 * Immutable value: every operation returns a new {@link ShoeCount}.
 */
export interface ShoeCount {
  /** Number of decks in the shoe (1..16). */
  readonly decks: number;
  /** Cards of each code (`9S`, `TH`…) that have left the shoe, dealt, burned or exposed. */
  readonly used: Readonly<Record<string, number>>;
  /** Total cards that have left the shoe. */
  readonly usedTotal: number;
}

/** Largest shoe the ledger accepts. */
export const MAX_DECKS = 16;

/**
 * A full shoe of `decks` decks with no card used.
 * @throws RulesError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ {@link MAX_DECKS}, integer
 */
export function newShoeCount(decks: number): ShoeCount {
  if (!Number.isInteger(decks) || decks < 1 || decks > MAX_DECKS) {
    throw new RulesError('SHOE.INVALID_DECK_COUNT', `a shoe holds 1 to ${MAX_DECKS} decks, got ${decks}`, { decks });
  }
  return { decks, used: {}, usedTotal: 0 };
}

/** Copies of `card` still in the shoe. */
export function remainingOf(shoe: ShoeCount, card: Card): number {
  return shoe.decks - (shoe.used[card.code] ?? 0);
}

/** Cards still in the shoe, all codes together. */
export function remainingTotal(shoe: ShoeCount): number {
  return shoe.decks * 52 - shoe.usedTotal;
}

/**
 * Records that `card` has left the shoe.
 * @throws RulesError `SHOE.CARD_EXCEEDS_DECKS` when all N copies have already left (a ninth KH
 *   in an 8-deck shoe)
 */
export function takeCard(shoe: ShoeCount, card: Card): ShoeCount {
  const used = shoe.used[card.code] ?? 0;
  if (used >= shoe.decks) {
    throw new RulesError('SHOE.CARD_EXCEEDS_DECKS', `${card.code} would be copy ${used + 1} in a ${shoe.decks}-deck shoe, which holds ${shoe.decks}`, { card: card.code, decks: shoe.decks, alreadyUsed: used });
  }
  return { decks: shoe.decks, used: { ...shoe.used, [card.code]: used + 1 }, usedTotal: shoe.usedTotal + 1 };
}

/** Records several cards in order. @throws RulesError `SHOE.CARD_EXCEEDS_DECKS` */
export function takeCards(shoe: ShoeCount, cards: readonly Card[]): ShoeCount {
  return cards.reduce(takeCard, shoe);
}

/** Remaining cards by rank (suits summed), e.g. `{ A: 32, '2': 31, … }`. */
export function remainingByRank(shoe: ShoeCount): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of RANKS) {
    let n = 0;
    for (const s of SUITS) n += shoe.decks - (shoe.used[`${r}${s}`] ?? 0);
    out[r] = n;
  }
  return out;
}
