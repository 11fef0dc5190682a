import { ProjectionError } from './errors';

/**
 * Exact rationals for the fractions of a minor unit that settlement drops (domain-rules.md §4:
 * "the settlement records the fraction dropped so reconciliation can account for it").
 *
 * A settlement records `dropped` as `"num/den"` (or `"0"`). Reconciliation sums them exactly as a
 * numerator over a denominator that is the least common multiple of every denominator summed
 * (see {@link addOverLcm}); SQL does the same with `lcm()`, so the stored pair does not depend
 * on how events were grouped into transactions.
 */

/** A fraction of minor units, `num/den`, `den ≥ 1`; `num` may be negative (a reversal). Not necessarily reduced. */
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
 * Parses a settlement's `dropped` field: `"0"`, `"1/4"`, `"3/20"` (also a bare integer).
 * @throws ProjectionError `PROJECTION.BAD_AMOUNT`
 */
export function parseFraction(text: unknown): Fraction {
  if (typeof text === 'string') {
    const m = /^(-?\d+)(?:\/(\d+))?$/.exec(text);
    if (m) {
      const den = BigInt(m[2] ?? '1');
      if (den > 0n) return { num: BigInt(m[1]), den };
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

/** The reduced text form, `"0"`, `"7"`, `"1/4"`, `"-3/20"`. */
export function formatFraction(a: Fraction): string {
  const g = gcd(a.num, a.den) || 1n;
  const num = a.num / g;
  const den = a.den / g;
  return den === 1n ? `${num}` : `${num}/${den}`;
}
