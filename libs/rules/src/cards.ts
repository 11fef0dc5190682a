import { RulesError } from './errors';

/**
 * Cards, point values and hand totals (docs/domain-rules.md §1).
 *
 * Notation: rank then suit, `9S`, `TH`, `QD`, `AC`; `10H` is accepted for a ten and normalised
 * to `TH`. Suits: S ♠, H ♥, D ♦, C ♣.
 */

/** The 13 ranks, in deck order. `T` is the ten. */
export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'] as const;
/** The four suits: spades, hearts, diamonds, clubs. */
export const SUITS = ['S', 'H', 'D', 'C'] as const;

export type Rank = (typeof RANKS)[number];
export type Suit = (typeof SUITS)[number];

/** A playing card. `code` is the canonical two-character notation (`TH`, never `10H`). */
export interface Card {
  readonly rank: Rank;
  readonly suit: Suit;
  readonly code: string;
}

const CARD_CACHE = new Map<string, Card>();
for (const rank of RANKS) {
  for (const suit of SUITS) {
    const code = `${rank}${suit}`;
    CARD_CACHE.set(code, Object.freeze({ rank, suit, code }));
  }
}

/**
 * Parses a card in the notation `9S`, `TH`, `10H`, `QD`, `AC` (case-insensitive).
 * @returns the canonical, frozen {@link Card} (the same object for the same card)
 * @throws RulesError `CARD.MALFORMED` for anything else (non-string, unknown rank or suit)
 */
export function parseCard(text: unknown): Card {
  if (typeof text !== 'string') {
    throw new RulesError('CARD.MALFORMED', `card must be a string like "9S", got ${JSON.stringify(text)}`, { card: text });
  }
  let t = text.trim().toUpperCase();
  if (t.length === 3 && t.startsWith('10')) t = `T${t[2]}`;
  const card = CARD_CACHE.get(t);
  if (!card) {
    throw new RulesError('CARD.MALFORMED', `malformed card ${JSON.stringify(text)}: expected rank A,2-9,T/10,J,Q,K then suit S,H,D,C`, { card: text });
  }
  return card;
}

/** Returns the card of a rank and suit. */
export function card(rank: Rank, suit: Suit): Card {
  return CARD_CACHE.get(`${rank}${suit}`)!;
}

/** Parses a space- or comma-separated list of cards (`"2S KC 3H"`). @throws RulesError `CARD.MALFORMED` */
export function parseCards(text: string): Card[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(parseCard);
}

/**
 * Point value of a rank in a hand (§1): A = 1, 2–9 = face value, T/J/Q/K = 0.
 * Also the value `v` of the Player's third card in the Banker's table (§2).
 */
export function pointValue(rank: Rank): number {
  switch (rank) {
    case 'A':
      return 1;
    case 'T':
    case 'J':
    case 'Q':
    case 'K':
      return 0;
    default:
      return Number(rank);
  }
}

/**
 * Number of cards burned after a commencement card of this rank (§5.1): A = 1, 2–9 = face
 * value, T/J/Q/K = 10. Differs from {@link pointValue} for tens and faces.
 */
export function commencementBurnCount(rank: Rank): number {
  const v = pointValue(rank);
  return v === 0 ? 10 : v;
}

/** Hand total (§1): sum of point values modulo 10. Works for 0..3 cards. */
export function handTotal(cards: readonly Card[]): number {
  let sum = 0;
  for (const c of cards) sum += pointValue(c.rank);
  return sum % 10;
}

/** True when the first two cards are the same rank (suits ignored; T and K are not a pair). */
export function isPair(cards: readonly Card[]): boolean {
  return cards.length >= 2 && cards[0].rank === cards[1].rank;
}
