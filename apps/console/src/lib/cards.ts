/**
 * Card codes as the ledger spells them (docs/domain-rules.md: rank `A 2-9 T J Q K` then suit
 * `C D H S`, e.g. `"TH"` = ten of hearts), parsed for drawing. Pure (no DOM): unit-tested in
 * test/console/cards.unit.spec.ts.
 */

/** A suit letter of a card code. */
export type SuitLetter = 'C' | 'D' | 'H' | 'S';

/** A parsed card: what a face shows and what a screen reader says. */
export interface CardFace {
  readonly code: string;
  /** Rank as printed on the card: `A`, `2`…`10`, `J`, `Q`, `K`. */
  readonly rank: string;
  readonly suit: SuitLetter;
  /** The suit's symbol: ♣ ♦ ♥ ♠. */
  readonly symbol: string;
  readonly red: boolean;
  /** Accessible name, e.g. `"10 of hearts"`, `"ace of spades"`. */
  readonly label: string;
}

const SUITS: Record<SuitLetter, { symbol: string; name: string; red: boolean }> = {
  C: { symbol: '♣', name: 'clubs', red: false },
  D: { symbol: '♦', name: 'diamonds', red: true },
  H: { symbol: '♥', name: 'hearts', red: true },
  S: { symbol: '♠', name: 'spades', red: false },
};
const RANKS: Record<string, { face: string; name: string }> = {
  A: { face: 'A', name: 'ace' },
  T: { face: '10', name: '10' },
  '10': { face: '10', name: '10' },
  J: { face: 'J', name: 'jack' },
  Q: { face: 'Q', name: 'queen' },
  K: { face: 'K', name: 'king' },
  ...Object.fromEntries(['2', '3', '4', '5', '6', '7', '8', '9'].map((d) => [d, { face: d, name: d }])),
};

/**
 * Parses a card code (`"9S"`, `"TH"`, `"AS"`; case-insensitive). @returns `null` for anything that
 * is not a card (the caller shows the raw code then).
 */
export function parseCard(code: string): CardFace | null {
  const c = code.trim().toUpperCase();
  const suit = c.slice(-1) as SuitLetter;
  const rank = RANKS[c.slice(0, -1)];
  const s = SUITS[suit];
  if (!rank || !s) return null;
  return { code: c, rank: rank.face, suit, symbol: s.symbol, red: s.red, label: `${rank.name} of ${s.name}` };
}

/** Accessible text of a hand: `"9 of spades, king of hearts"` (unparseable codes as they are). */
export function handLabel(codes: readonly string[]): string {
  return codes.map((c) => parseCard(c)?.label ?? c).join(', ');
}
