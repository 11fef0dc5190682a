import { RANKS, RoundOutcome, Variant } from '@ledger/rules';
import { CARD_RANK_CATEGORIES, FairnessStatistic, ROUND_STATISTICS } from './categories';

/**
 * Observed counts of one scope (a shoe, a dealer's gaming day, a table's gaming day; docs/fairness.md
 * §1): per statistic, the rounds (or, for `CARD_RANKS`, the dealt cards) in each category.
 * Only resulted rounds count; a voided round and burned, exposed or unneeded cards do not.
 */
export interface ScopeCounts {
  /** Resulted rounds counted. */
  rounds: number;
  /** statistic → counts per category, in the statistic's category order (see `categories.ts`). */
  readonly counts: Partial<Record<FairnessStatistic, number[]>>;
}

const RANK_INDEX = new Map<string, number>(RANKS.map((r, i) => [r, i]));

/** Zero counts for every statistic of `variant`. */
export function emptyCounts(variant: Variant): ScopeCounts {
  const counts: Partial<Record<FairnessStatistic, number[]>> = {};
  for (const s of ROUND_STATISTICS[variant]) counts[s.id] = s.categories.map(() => 0);
  counts.CARD_RANKS = CARD_RANK_CATEGORIES.map(() => 0);
  return { rounds: 0, counts };
}

/** Adds one resulted round (its categories and its 4–6 cards' ranks) to `into`, in place. */
export function countRound(into: ScopeCounts, variant: Variant, outcome: RoundOutcome): void {
  into.rounds++;
  for (const s of ROUND_STATISTICS[variant]) into.counts[s.id]![s.categories.indexOf(s.classify(outcome))]++;
  const ranks = into.counts.CARD_RANKS!;
  for (const c of outcome.player) ranks[RANK_INDEX.get(c.rank)!]++;
  for (const c of outcome.banker) ranks[RANK_INDEX.get(c.rank)!]++;
}

/** `a + b`, category by category, as new counts (both of the same game). */
export function addCounts(a: ScopeCounts, b: ScopeCounts): ScopeCounts {
  const counts: Partial<Record<FairnessStatistic, number[]>> = {};
  for (const [k, v] of Object.entries(a.counts) as [FairnessStatistic, number[]][]) counts[k] = v.map((x, i) => x + (b.counts[k]?.[i] ?? 0));
  return { rounds: a.rounds + b.rounds, counts };
}
