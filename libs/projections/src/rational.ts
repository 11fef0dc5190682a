import { ratio, RulesError, type Ratio } from '@ledger/rules';
import { ProjectionError } from './errors';

/**
 * Exact rationals for the fractions of a minor unit that settlement drops (docs/domain-rules.md §4:
 * "the settlement records the fraction dropped so reconciliation can account for it").
 *
 * One fraction type for what a settlement drops: the rules' {@link Ratio} (non-negative, reduced),
 * which `settle` produces and a settlement event carries as `"num/den"` (or `"0"`);
 * {@link parseFraction} reads that text back into a `Ratio` with the rules' own constructor.
 *
 * Reconciliation then SUMS them, which a `Ratio` cannot hold: a sum may be negative (a refund or a
 * resettlement takes a fraction back out) and must stay over the least common multiple of every
 * denominator summed, unreduced (see {@link addOverLcm}), so the stored pair does not depend on how
 * events were grouped into transactions (SQL does the same with `lcm()`). That accumulator is
 * {@link Fraction}: the same `{ num, den }` shape, so every `Ratio` is a `Fraction`.
 */

/**
 * A signed sum of dropped fractions of minor units, `num/den`, `den ≥ 1`; `num` may be negative (a
 * reversal); not reduced (the lcm rule). Every rules {@link Ratio} is one.
 */
export interface Fraction {
  readonly num: bigint;
  readonly den: bigint;
}

/** Zero, as `0/1`. */
export const ZERO_FRACTION: Fraction = { num: 0n, den: 1n };

const INT = /^-?\d+$/;

/**
 * Parses a minor-unit amount from an event (`"1950"`, `"-300"`).
 * @throws ProjectionError `PROJECTION.BAD_AMOUNT`
 */
export function parseMinor(text: unknown, what = 'amount'): bigint {
  if (typeof text !== 'string' || !INT.test(text)) {
    throw new ProjectionError('PROJECTION.BAD_AMOUNT', `${what} must be an integer number of minor units as a decimal string, got ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

/**
 * Parses a settlement's `dropped` field, `"0"`, `"1/4"`, `"3/20"` (also a bare integer), into the
 * rules' {@link Ratio} (reduced, as `settle` computed it).
 * @throws ProjectionError `PROJECTION.BAD_AMOUNT` for anything else (a zero denominator, a sign, a decimal point)
 */
export function parseFraction(text: unknown): Ratio {
  if (typeof text === 'string') {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(text);
    if (m) {
      try {
        return ratio(BigInt(m[1]), BigInt(m[2] ?? '1'));
      } catch (err) {
        if (!(err instanceof RulesError)) throw err;
      }
    }
  }
  throw new ProjectionError('PROJECTION.BAD_AMOUNT', `dropped must be "num/den" or an integer, got ${JSON.stringify(text)}`);
}

/** Greatest common divisor of |a| and |b| (0 when both are 0). */
export function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Least common multiple of two positive integers. */
export function lcm(a: bigint, b: bigint): bigint {
  return (a / gcd(a, b)) * b;
}

/**
 * `a + b` over the denominator `lcm(a.den, b.den)` (not reduced further). The same rule as the
 * SQL upsert of `reconciliation.dropped_num/dropped_den`, so sums are independent of grouping.
 */
export function addOverLcm(a: Fraction, b: Fraction): Fraction {
  const den = lcm(a.den, b.den);
  return { num: a.num * (den / a.den) + b.num * (den / b.den), den };
}

/** `-a`. */
export function negate(a: Fraction): Fraction {
  return { num: -a.num, den: a.den };
}

/**
 * The reduced text form, `"0"`, `"7"`, `"1/4"`, `"-3/20"`: for a rules `Ratio` below 1 (what
 * `settle` drops) exactly the `dropped` text a settlement event carries.
 */
export function formatFraction(a: Fraction): string {
  const g = gcd(a.num, a.den) || 1n;
  const num = a.num / g;
  const den = a.den / g;
  return den === 1n ? `${num}` : `${num}/${den}`;
}
