import { RulesError } from './errors';

/**
 * Exact money (docs/domain-rules.md §4): amounts are integer minor units (`bigint`), odds are exact
 * rationals. Never a binary float.
 */

/** A non-negative exact rational `num/den`, always reduced, `den > 0`. */
export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** Largest stake the ledger accepts in minor units: 2^53 − 1 (§4). */
export const MAX_STAKE_MINOR = 2n ** 53n - 1n;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Builds a reduced ratio. @throws RulesError `MONEY.INVALID_ODDS` when `den` is 0 or either part is negative */
export function ratio(num: bigint, den: bigint = 1n): Ratio {
  if (den <= 0n || num < 0n) throw new RulesError('MONEY.INVALID_ODDS', `invalid ratio ${num}/${den}`);
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

/**
 * Parses a non-negative decimal string exactly: `"0.95"` → 19/20, `"35"` → 35/1.
 * @throws RulesError `MONEY.INVALID_ODDS` for anything but digits with an optional fraction
 */
export function parseDecimal(text: string): Ratio {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new RulesError('MONEY.INVALID_ODDS', `not a non-negative decimal: ${JSON.stringify(text)}`);
  const frac = m[2] ?? '';
  return ratio(BigInt(m[1] + frac), 10n ** BigInt(frac.length));
}

/**
 * Parses odds written `X:Y` (X units of profit per Y staked; `"0.95:1"`, `"1:2"`, `"35:1"`).
 * @returns the profit per unit staked as a ratio (0.95:1 → 19/20; 1:2 → 1/2)
 * @throws RulesError `MONEY.INVALID_ODDS`
 */
export function parseOdds(text: string): Ratio {
  const parts = text.split(':');
  if (parts.length !== 2) throw new RulesError('MONEY.INVALID_ODDS', `odds must be "X:Y", got ${JSON.stringify(text)}`);
  const x = parseDecimal(parts[0]);
  const y = parseDecimal(parts[1]);
  if (y.num === 0n) throw new RulesError('MONEY.INVALID_ODDS', `odds ${text} divide by zero`);
  return ratio(x.num * y.den, x.den * y.num);
}

/**
 * Exact decimal string of a ratio whose denominator divides a power of ten (`19/20` → `"0.95"`);
 * otherwise a fraction string `"1/3"`. Negative values allowed via `negative`.
 */
export function formatRatio(r: Ratio, negative = false): string {
  const sign = negative && r.num !== 0n ? '-' : '';
  let den = r.den;
  let twos = 0;
  let fives = 0;
  while (den % 2n === 0n) {
    den /= 2n;
    twos++;
  }
  while (den % 5n === 0n) {
    den /= 5n;
    fives++;
  }
  if (den !== 1n) return `${sign}${r.num}/${r.den}`;
  const digits = Math.max(twos, fives);
  const scaled = (r.num * 10n ** BigInt(digits)) / r.den;
  if (digits === 0) return `${sign}${scaled}`;
  const s = scaled.toString().padStart(digits + 1, '0');
  const int = s.slice(0, s.length - digits);
  const frac = s.slice(s.length - digits).replace(/0+$/, '');
  return `${sign}${int}${frac ? '.' + frac : ''}`;
}

/**
 * Formats minor units as a major-unit decimal string with `exponent` decimals (`285n` → `"2.85"`).
 * @param exponent the currency's minor-unit exponent (2 for cents)
 */
export function formatMinor(amount: bigint, exponent = 2): string {
  const neg = amount < 0n;
  const abs = neg ? -amount : amount;
  const s = abs.toString().padStart(exponent + 1, '0');
  const out = exponent === 0 ? s : `${s.slice(0, s.length - exponent)}.${s.slice(s.length - exponent)}`;
  return neg ? `-${out}` : out;
}

/**
 * Checks a stake in minor units: an integer `bigint` with 1 ≤ stake ≤ {@link MAX_STAKE_MINOR}.
 * @throws RulesError `MONEY.INVALID_STAKE`
 */
export function assertValidStake(stake: unknown): asserts stake is bigint {
  if (typeof stake !== 'bigint' || stake <= 0n || stake > MAX_STAKE_MINOR) {
    throw new RulesError('MONEY.INVALID_STAKE', `stake must be an integer number of minor units in 1..2^53-1, got ${String(stake)}`, {
      stake: String(stake),
    });
  }
}
