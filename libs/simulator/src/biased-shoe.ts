import { Card, card as makeCard, commencementBurnCount, dealRound, pointValue, Rank, RANKS, RoundOutcome, SUITS } from '@ledger/rules';
import { SeededRandom } from './seeded-random';

/** The cut card's house rule here: between 52 and 70 cards from the back of the shoe (about one deck). */
export const CUT_CARD_FROM_BACK = { min: 52, max: 70 } as const;

/** Every card of an N-deck shoe in deck order. */
export function fullShoe(decks: number): Card[] {
  const out: Card[] = [];
  for (let d = 0; d < decks; d++) for (const s of SUITS) for (const r of RANKS) out.push(makeCard(r, s));
  return out;
}

/**
 * A biased shoe, to prove the fairness monitor works (docs/fairness.md §5): a shoe missing cards,
 * or a dealer who "finds" Banker naturals. No bias = an honest, uniformly shuffled shoe, exactly as
 * `generateShoeScript` deals it.
 */
export interface ShoeBias {
  /** Every copy of these ranks is taken out before the shuffle (e.g. `['9']`: an 8-deck shoe of 384 cards). */
  readonly missingRanks?: readonly Rank[];
  /**
   * Chance per round (0..1) that the dealer, before dealing, swaps two cards from further down the
   * shoe into B1 and B2 so that the Banker holds a natural (8 or 9). The cards are the shoe's own:
   * the rank distribution stays honest, the outcomes do not.
   */
  readonly bankerNaturalChance?: number;
}

/** The cards of a `decks`-deck shoe less `bias.missingRanks`, shuffled by `rng` (Fisher–Yates). */
export function shuffledShoe(decks: number, rng: SeededRandom, bias: ShoeBias = {}): Card[] {
  const missing = new Set<Rank>(bias.missingRanks ?? []);
  return rng.shuffle(fullShoe(decks).filter((c) => !missing.has(c.rank)));
}

/**
 * With probability `bias.bankerNaturalChance`, rigs the round about to be dealt from `cards[idx]`:
 * two cards from `cards[idx + 4 …]` whose point values add up to 8 or 9 (mod 10) are swapped into
 * B1 (`idx + 1`) and B2 (`idx + 3`). Draws from `rng` only when the chance is above 0, so an
 * honest shoe's random stream is unchanged. Mutates `cards`.
 * @returns true when the round was rigged
 */
export function rigBankerNatural(cards: Card[], idx: number, rng: SeededRandom, bias: ShoeBias): boolean {
  const chance = bias.bankerNaturalChance ?? 0;
  if (chance <= 0 || !rng.chance(chance)) return false;
  const from = idx + 4;
  const span = cards.length - from;
  if (span < 2) return false;
  const p1 = from + rng.int(span);
  const start = rng.int(span);
  for (let k = 0; k < span; k++) {
    const p2 = from + ((start + k) % span);
    if (p2 === p1 || (pointValue(cards[p1].rank) + pointValue(cards[p2].rank)) % 10 < 8) continue;
    [cards[idx + 1], cards[p1]] = [cards[p1], cards[idx + 1]];
    [cards[idx + 3], cards[p2]] = [cards[p2], cards[idx + 3]];
    return true;
  }
  return false;
}

/** A shoe dealt without bets: the resulted rounds in order (for statistics; the ledger is not involved). */
export interface DealtShoe {
  readonly rounds: readonly RoundOutcome[];
  /** Rounds the dealer rigged (`bankerNaturalChance`). */
  readonly rigged: number;
}

/**
 * Deals a whole shoe as `generateShoeScript` does (commencement card and its burns, rounds
 * through the tableau, the cut card per {@link CUT_CARD_FROM_BACK}: the round during which it
 * comes out is the last), without bets or incidents, fast enough for a million rounds.
 * Deterministic for a given seed.
 * @param decks 1..16; @param seed any string
 */
export function dealShoe(decks: number, seed: string, bias: ShoeBias = {}): DealtShoe {
  const rng = new SeededRandom(seed);
  const cards = shuffledShoe(decks, rng, bias);
  const cutCardIndex = cards.length - (CUT_CARD_FROM_BACK.min + rng.int(CUT_CARD_FROM_BACK.max - CUT_CARD_FROM_BACK.min + 1));
  let idx = 1 + commencementBurnCount(cards[0].rank);
  const rounds: RoundOutcome[] = [];
  let rigged = 0;
  while (idx < cutCardIndex && cards.length - idx >= 6) {
    if (rigBankerNatural(cards, idx, rng, bias)) rigged++;
    const outcome = dealRound(cards.slice(idx, idx + 6));
    rounds.push(outcome);
    idx += outcome.cardsConsumed;
  }
  return { rounds, rigged };
}
