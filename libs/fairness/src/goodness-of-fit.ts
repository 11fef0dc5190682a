import gammainc = require('@stdlib/math-base-special-gammainc');
import gammaln = require('@stdlib/math-base-special-gammaln');

/**
 * Goodness-of-fit tests of observed category counts against exact expected probabilities
 * (docs/fairness.md §3). Floating point (float64) is used here and only here: a test statistic and
 * a p-value are not money. The chi-squared tail is the regularized upper incomplete gamma
 * function of @stdlib (`Q(df/2, x/2)`, accurate in the far tail, unlike `1 − CDF`).
 */

/** Smallest expected count a chi-squared cell may have (Cochran's rule, as COMAR's test assumes). */
export const MIN_EXPECTED_COUNT = 5;

/** How a test was done: Pearson's chi-squared, an exact two-sided binomial, or none (no rounds). */
export type TestMethod = 'chi-squared' | 'exact-binomial' | 'none';

/** The result of one goodness-of-fit test. */
export interface GoodnessOfFit {
  readonly method: TestMethod;
  /** Observations (rounds or cards) tested. */
  readonly n: number;
  /** Pearson's X² = Σ (O − E)² / E over the (pooled) cells; for `exact-binomial` the X² of the two cells; 0 for `none`. */
  readonly statistic: number;
  /** Degrees of freedom: cells after pooling − 1 (0 for `none`). */
  readonly degreesOfFreedom: number;
  /** P(a statistic at least this extreme | the expected probabilities hold), in [0, 1]; 1 for `none`. */
  readonly pValue: number;
  /** The cells tested, each a list of the original category indexes pooled into it. */
  readonly cells: readonly (readonly number[])[];
}

/**
 * P(X ≥ x) for X chi-squared with `df` degrees of freedom (the upper tail), x ≥ 0, df ≥ 1.
 * E.g. (3.841459, 1) → 0.05; (21.026070, 12) → 0.05.
 */
export function chiSquaredSurvival(x: number, df: number): number {
  if (x <= 0) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

/** The x with P(X ≥ x) = alpha for X chi-squared with `df` degrees of freedom (bisection on {@link chiSquaredSurvival}), 0 < alpha < 1. */
export function chiSquaredCritical(alpha: number, df: number): number {
  let lo = 0;
  let hi = 1;
  while (chiSquaredSurvival(hi, df) > alpha) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (chiSquaredSurvival(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Exact two-sided binomial test: the probability, under Binomial(n, p), of every count whose
 * probability is no greater than that of `k` (the "minimum likelihood" p-value, as R's binom.test).
 * @param k observed successes, 0..n; @param p success probability, 0 < p < 1
 */
export function exactBinomialPValue(k: number, n: number, p: number): number {
  const logPmf = (j: number) => gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1) + j * Math.log(p) + (n - j) * Math.log1p(-p);
  const threshold = logPmf(k) + 1e-7; // relative tolerance for ties, as R's binom.test
  let sum = 0;
  for (let j = 0; j <= n; j++) {
    const lp = logPmf(j);
    if (lp <= threshold) sum += Math.exp(lp);
  }
  return Math.min(1, sum);
}

/**
 * Tests observed counts against expected probabilities (docs/fairness.md §3):
 * - no observation → `none`, p-value 1;
 * - a category with probability 0 that was observed → p-value 0 (the composition forbids it);
 * - cells with an expected count below {@link MIN_EXPECTED_COUNT} are pooled, the smallest into
 *   the next smallest, while more than two cells remain; Pearson's chi-squared on the cells, df =
 *   cells − 1;
 * - when two cells remain and one still expects fewer than 5, the exact two-sided binomial test.
 * @param observed counts per category (non-negative integers)
 * @param probabilities expected probability per category (same order; they add up to 1)
 */
export function goodnessOfFit(observed: readonly number[], probabilities: readonly number[]): GoodnessOfFit {
  const n = observed.reduce((a, b) => a + b, 0);
  if (n === 0) return { method: 'none', n, statistic: 0, degreesOfFreedom: 0, pValue: 1, cells: [] };
  const impossible = observed.findIndex((o, i) => o > 0 && probabilities[i] === 0);
  if (impossible >= 0) return { method: 'chi-squared', n, statistic: Infinity, degreesOfFreedom: Math.max(1, observed.length - 1), pValue: 0, cells: [[impossible]] };
  let cells = probabilities.map((p, i) => ({ idx: [i], p, o: observed[i] })).filter((c) => c.p > 0);
  cells.sort((a, b) => a.p - b.p);
  while (cells.length > 2 && cells[0].p * n < MIN_EXPECTED_COUNT) {
    const [a, b, ...rest] = cells;
    cells = [{ idx: [...a.idx, ...b.idx], p: a.p + b.p, o: a.o + b.o }, ...rest].sort((x, y) => x.p - y.p);
  }
  const statistic = cells.reduce((s, c) => s + (c.o - n * c.p) ** 2 / (n * c.p), 0);
  const shape = cells.map((c) => c.idx);
  if (cells.length < 2) return { method: 'none', n, statistic: 0, degreesOfFreedom: 0, pValue: 1, cells: shape };
  if (cells.length === 2 && cells[0].p * n < MIN_EXPECTED_COUNT) {
    return { method: 'exact-binomial', n, statistic, degreesOfFreedom: 1, pValue: exactBinomialPValue(cells[0].o, n, cells[0].p), cells: shape };
  }
  const df = cells.length - 1;
  return { method: 'chi-squared', n, statistic, degreesOfFreedom: df, pValue: chiSquaredSurvival(statistic, df), cells: shape };
}
