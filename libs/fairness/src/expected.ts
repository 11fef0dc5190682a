import { Rank, RANKS, roundDistribution, Variant } from '@ledger/rules';
import { FairnessStatistic, ROUND_STATISTICS } from './categories';

/**
 * The exact expected probabilities of every category (docs/fairness.md §2): round statistics
 * from the PAR engine's enumeration (`roundDistribution` of `@ledger/rules`, the same numbers as
 * its PAR sheet), card ranks from the shoe's composition. Exact rationals: `bigint` numerator over
 * a `bigint` denominator, never a float.
 */

/** An exact probability `numerator / denominator` (both `bigint`, denominator > 0). */
export interface Probability {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The expected distribution of one statistic: category → exact probability, in report order. */
export interface ExpectedDistribution {
  readonly statistic: FairnessStatistic;
  readonly categories: readonly string[];
  /** One exact probability per category (same order); they add up to exactly 1. */
  readonly probabilities: readonly Probability[];
}

/** Cards of each rank in a shoe, e.g. 32 of each for 8 decks. */
export type ShoeComposition = Readonly<Record<Rank, number>>;

/** The composition of a full shoe of `decks` standard decks: 4 × decks of each rank. */
export function fullComposition(decks: number): ShoeComposition {
  return Object.fromEntries(RANKS.map((r) => [r, 4 * decks])) as Record<Rank, number>;
}

const CACHE = new Map<string, readonly ExpectedDistribution[]>();

/**
 * The exact expected distribution of every round statistic of `variant` for one round off the top
 * of a fresh shoe of `decks` decks (the PAR engine's convention; a round further into a shoe differs
 * by the cards already gone, which averages out over a shoe; docs/fairness.md §2). Cached per
 * (variant, decks).
 * @throws RulesError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ 16, integer
 */
export function expectedRoundDistributions(variant: Variant, decks: number): readonly ExpectedDistribution[] {
  const key = `${variant}/${decks}`;
  const hit = CACHE.get(key);
  if (hit) return hit;
  const out = ROUND_STATISTICS[variant].map((s): ExpectedDistribution => {
    const { denominator, weights } = roundDistribution(decks, s.classify);
    for (const name of weights.keys()) if (!s.categories.includes(name)) throw new Error(`fairness: ${s.id} classified a round as ${name}, not one of its categories`);
    return { statistic: s.id, categories: s.categories, probabilities: s.categories.map((c) => reduce(weights.get(c) ?? 0n, denominator)) };
  });
  CACHE.set(key, out);
  return out;
}

/**
 * The expected rank distribution of the cards dealt to rounds: each rank's share of the shoe,
 * exact. Every position of a uniformly shuffled shoe holds a given rank with exactly this
 * probability, so it is the exact expectation of each dealt card even though the cards are drawn
 * without replacement (the counts then vary less than a multinomial's: the chi-squared test is
 * conservative, docs/fairness.md §2).
 */
export function expectedRankDistribution(composition: ShoeComposition): ExpectedDistribution {
  let total = 0n;
  for (const r of RANKS) total += BigInt(composition[r]);
  return { statistic: 'CARD_RANKS', categories: RANKS, probabilities: RANKS.map((r) => reduce(BigInt(composition[r]), total)) };
}

/** `n/d` in lowest terms. */
function reduce(n: bigint, d: bigint): Probability {
  let a = n;
  let b = d;
  while (b) [a, b] = [b, a % b];
  return a === 0n ? { numerator: 0n, denominator: 1n } : { numerator: n / a, denominator: d / a };
}

/** `p` as a float64, for the test statistic only (docs/fairness.md §3). */
export function probabilityToNumber(p: Probability): number {
  return Number(p.numerator) / Number(p.denominator);
}
