import { Variant } from '@ledger/rules';
import { FairnessStatistic, statisticsOf } from './categories';
import { ScopeCounts } from './counts';
import { expectedRankDistribution, expectedRoundDistributions, ExpectedDistribution, fullComposition, Probability, probabilityToNumber, ShoeComposition } from './expected';
import { chiSquaredCritical, goodnessOfFit, GoodnessOfFit } from './goodness-of-fit';

/**
 * The decision rule of the fairness monitor (docs/fairness.md §4). Per table and gaming day the
 * monitor looks once at each shoe's close, and tests, for every statistic of the game: the shoe
 * just closed, the dealer's gaming day so far and the table's gaming day so far. That is at most
 * {@link SCOPES_PER_LOOK} × statistics × {@link LOOKS_PER_TABLE_DAY} tests a day; each is run at
 * the level α = (1 − confidence) / that number (Bonferroni), so the probability that an honest
 * table raises any alert in a gaming day is at most 1 − confidence (5 % at the default
 * `FAIRNESS_ALERT_CONFIDENCE` 95/100), whatever the dependence between the tests.
 */

/** Looks per table per gaming day the α is budgeted for: shoe closes (an 8-deck shoe lasts over an hour, so a day has fewer). */
export const LOOKS_PER_TABLE_DAY = 32;
/** Scopes tested at each look: the closed shoe, the dealer's gaming day so far, the table's gaming day so far. */
export const SCOPES_PER_LOOK = 3;

/** The configured confidence `FAIRNESS_ALERT_CONFIDENCE` as an exact ratio, 0 < numerator < denominator. */
export interface Confidence {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The stated false-alarm rate per table per gaming day: 1 − confidence (a float, for reports). */
export function falseAlarmRatePerTableDay(confidence: Confidence): number {
  return Number(confidence.denominator - confidence.numerator) / Number(confidence.denominator);
}

/** The level each test is run at: (1 − confidence) / (scopes × statistics × looks) for `variant`. */
export function perTestAlpha(confidence: Confidence, variant: Variant): number {
  return falseAlarmRatePerTableDay(confidence) / (SCOPES_PER_LOOK * statisticsOf(variant).length * LOOKS_PER_TABLE_DAY);
}

/** One category of a statistic's report: observed, expected (exact and as a count) and its band. */
export interface CategoryReport {
  readonly category: string;
  readonly observed: number;
  /** The exact expected probability, decimal integer strings (PAR engine or shoe composition). */
  readonly probability: { readonly numerator: string; readonly denominator: string };
  /** n × probability, a float. */
  readonly expected: number;
  /** The count band n·p ± z·√(n·p·(1−p)), z the two-sided normal quantile at the per-test α (a guide for charts; the alert is the test's). */
  readonly band: { readonly low: number; readonly high: number };
}

/** One statistic's test in one scope. */
export interface StatisticReport {
  readonly statistic: FairnessStatistic;
  readonly categories: readonly CategoryReport[];
  readonly test: GoodnessOfFit;
  /** The per-test level α it was judged at. */
  readonly alpha: number;
  /** p-value < α (a test with no observation never alerts). */
  readonly alert: boolean;
}

const Z_CACHE = new Map<number, number>();

function zFor(alpha: number): number {
  let z = Z_CACHE.get(alpha);
  if (z === undefined) Z_CACHE.set(alpha, (z = Math.sqrt(chiSquaredCritical(alpha, 1))));
  return z;
}

function statisticReport(expected: ExpectedDistribution, observed: readonly number[], alpha: number): StatisticReport {
  const probs = expected.probabilities.map(probabilityToNumber);
  const test = goodnessOfFit(observed, probs);
  const n = test.n;
  const z = zFor(alpha);
  const categories = expected.categories.map((category, i): CategoryReport => {
    const p = probs[i];
    const half = z * Math.sqrt(n * p * (1 - p));
    return { category, observed: observed[i], probability: text(expected.probabilities[i]), expected: n * p, band: { low: Math.max(0, n * p - half), high: n * p + half } };
  });
  return { statistic: expected.statistic, categories, test, alpha, alert: test.method !== 'none' && test.pValue < alpha };
}

const text = (p: Probability) => ({ numerator: p.numerator.toString(), denominator: p.denominator.toString() });

/** What {@link testScope} needs: the game, its shoe, the observed counts and the confidence. */
export interface ScopeTestInput {
  readonly variant: Variant;
  /** Decks of the table's shoe (1..16): the PAR engine's expectations are for it. */
  readonly decks: number;
  /** The shoe's declared composition; default a full shoe of `decks` decks. */
  readonly composition?: ShoeComposition;
  readonly counts: ScopeCounts;
  readonly confidence: Confidence;
}

/**
 * Tests every statistic of the game on one scope's counts at the per-test α of {@link perTestAlpha}.
 * @returns one report per statistic, in `statisticsOf(variant)` order
 * @throws RulesError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ 16
 */
export function testScope(input: ScopeTestInput): StatisticReport[] {
  const alpha = perTestAlpha(input.confidence, input.variant);
  const expectations = [...expectedRoundDistributions(input.variant, input.decks), expectedRankDistribution(input.composition ?? fullComposition(input.decks))];
  return expectations.map((e) => statisticReport(e, input.counts.counts[e.statistic] ?? e.categories.map(() => 0), alpha));
}

/** A scope of the fairness statistics (UKGC RTS 17A: by game, staff, location). */
export type FairnessScope = { readonly kind: 'shoe'; readonly shoeId: string } | { readonly kind: 'dealer'; readonly dealerId: string } | { readonly kind: 'table' };

/** One failed test: the details a `STATISTICS.OUT_OF_BOUNDS` significant event carries. */
export interface FairnessFailure {
  readonly scope: FairnessScope;
  readonly statistic: FairnessStatistic;
  readonly rounds: number;
  readonly chiSquared: number;
  readonly degreesOfFreedom: number;
  readonly method: GoodnessOfFit['method'];
  readonly pValue: number;
  readonly alpha: number;
}

/** The verdict of one look: alert when any test failed, with every failure. */
export interface FairnessVerdict {
  readonly alert: boolean;
  readonly failures: readonly FairnessFailure[];
  /** The stated false-alarm rate per table per gaming day (1 − confidence). */
  readonly falseAlarmRatePerTableDay: number;
  readonly alpha: number;
}

/** One look's input: the game, the shoe and the scopes' counts (any may be left out). */
export interface LookInput {
  readonly variant: Variant;
  readonly decks: number;
  readonly composition?: ShoeComposition;
  readonly confidence: Confidence;
  readonly scopes: readonly { readonly scope: FairnessScope; readonly counts: ScopeCounts }[];
}

/**
 * The monitor's decision at a shoe's close (docs/fairness.md §4): tests every statistic on every
 * scope given (the closed shoe, the dealer's day so far, the table's day so far) and says "alert"
 * when any p-value is below the per-test α. Pure: raising the significant event
 * (`STATISTICS.OUT_OF_BOUNDS`) is the caller's.
 */
export function fairnessVerdict(input: LookInput): FairnessVerdict {
  const failures: FairnessFailure[] = [];
  for (const { scope, counts } of input.scopes) {
    for (const r of testScope({ variant: input.variant, decks: input.decks, composition: input.composition, counts, confidence: input.confidence })) {
      if (!r.alert) continue;
      failures.push({ scope, statistic: r.statistic, rounds: counts.rounds, chiSquared: r.test.statistic, degreesOfFreedom: r.test.degreesOfFreedom, method: r.test.method, pValue: r.test.pValue, alpha: r.alpha });
    }
  }
  return { alert: failures.length > 0, failures, falseAlarmRatePerTableDay: falseAlarmRatePerTableDay(input.confidence), alpha: perTestAlpha(input.confidence, input.variant) };
}
