/**
 * The outlier statistic of the staff statistics (docs/reports.md §6): is a dealer's rate of voided
 * rounds (or of rounds with a tableau refusal) far above that of their peers? Pure, exact: every
 * quantity is a ratio of bigints; no floating point is ever compared or printed.
 *
 * The test is the classical two-proportion z-test of the dealer (x of n rounds) against the pool
 * of every other dealer of the report (X of N rounds), with the pooled proportion
 * p = (x+X)/(n+N):
 *
 *     z = (x/n − X/N) / sqrt(p·(1−p)·(1/n + 1/N))
 *
 * which, squared and cleared of fractions, is
 *
 *     z² = a²·(n+N) / (n·N·(x+X)·(n+N−x−X)),   a = x·N − X·n   (sign of z = sign of a).
 *
 * A dealer is flagged when z ≥ {@link Z_THRESHOLD} (one-sided: only rates *above* the peers' are
 * suspicious) and both the dealer and the pool hold at least `minRounds` rounds
 * ({@link DEFAULT_MIN_ROUNDS}). The comparison z ≥ 3 is decided exactly as a > 0 ∧ z²num ≥ 9·z²den.
 */

/** z at or above which a dealer is flagged: three standard errors (one-sided p ≈ 0.00135 under the normal approximation). */
export const Z_THRESHOLD = 3n;

/**
 * Fewest rounds the dealer and the pool of their peers must each hold before a flag is raised
 * (docs/reports.md §6): the normal approximation behind the z-test needs samples of a few dozen
 * (the usual rule of thumb: 30); below that a single bad shoe gives a z of 3 by chance far more
 * often than 0.135 %. A report may ask for more, never for fewer than {@link MIN_ROUNDS_FLOOR}.
 */
export const DEFAULT_MIN_ROUNDS = 30;

/** Lowest `minRounds` a report may ask for (docs/reports.md §6). */
export const MIN_ROUNDS_FLOOR = 10;

/** Decimal places of the rates and of z in a report. */
export const RATE_PLACES = 4;
export const Z_PLACES = 2;

/** The outcome of the test of one dealer on one metric. */
export interface OutlierTest {
  /** `VOID_RATE` (voided rounds per round dealt) or `REFUSAL_RATE` (rounds with a tableau refusal per round dealt). */
  readonly metric: 'VOID_RATE' | 'REFUSAL_RATE';
  /** The dealer's count and rounds. */
  readonly count: number;
  readonly rounds: number;
  /** The peers' (every other dealer of the report) count and rounds. */
  readonly peerCount: number;
  readonly peerRounds: number;
  /** count/rounds, {@link RATE_PLACES} decimals (half up), or null with no round. */
  readonly rate: string | null;
  readonly peerRate: string | null;
  /** z truncated toward zero to {@link Z_PLACES} decimals; null when undefined (no round on a side, or a pooled rate of 0 or 1). */
  readonly z: string | null;
  /** z ≥ {@link Z_THRESHOLD} with at least `minRounds` rounds on both sides. */
  readonly flagged: boolean;
  /** Why no flag could be raised (small sample, no variation), else null. */
  readonly note: string | null;
}

/** The integer square root ⌊√v⌋ of v ≥ 0 (Newton's method on bigints). */
export function isqrt(v: bigint): bigint {
  if (v < 0n) throw new RangeError('isqrt of a negative number');
  if (v < 2n) return v;
  let x = v;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + v / x) / 2n;
  }
  return x;
}

/**
 * `num/den` as a decimal string with `places` decimals, rounded half up (num ≥ 0, den > 0).
 * E.g. (2, 3, 4) → `"0.6667"`, (1, 8, 2) → `"0.13"`.
 */
export function decimalOf(num: bigint, den: bigint, places: number): string {
  if (den <= 0n || num < 0n) throw new RangeError('decimalOf needs num ≥ 0 and den > 0');
  const scale = 10n ** BigInt(places);
  const scaled = (num * scale * 2n + den) / (2n * den); // half up
  const int = scaled / scale;
  const frac = (scaled % scale).toString().padStart(places, '0');
  return places > 0 ? `${int}.${frac}` : `${int}`;
}

/**
 * The squared z of the two-proportion test as an exact fraction, and its sign, or null when it is
 * undefined (n or N zero, or a pooled proportion of 0 or 1: no variation to test against).
 */
export function zSquared(x: bigint, n: bigint, X: bigint, N: bigint): { readonly num: bigint; readonly den: bigint; readonly sign: -1 | 0 | 1 } | null {
  if (n <= 0n || N <= 0n || x < 0n || X < 0n || x > n || X > N) return null;
  const T = n + N;
  const hits = x + X;
  const den = n * N * hits * (T - hits);
  if (den === 0n) return null;
  const a = x * N - X * n;
  return { num: a * a * T, den, sign: a > 0n ? 1 : a < 0n ? -1 : 0 };
}

/** z of {@link zSquared} truncated toward zero to `places` decimals, as text (`"3.46"`, `"-1.20"`, `"0.00"`). */
export function zText(z2: { num: bigint; den: bigint; sign: -1 | 0 | 1 }, places = Z_PLACES): string {
  const scale = 10n ** BigInt(places);
  const abs = isqrt((z2.num * scale * scale) / z2.den); // ⌊√⌊q⌋⌋ = ⌊√q⌋
  const text = `${abs / scale}.${(abs % scale).toString().padStart(places, '0')}`;
  return z2.sign < 0 && abs > 0n ? `-${text}` : text;
}

/**
 * Tests one dealer (count of rounds) against the pool of peers (docs/reports.md §6).
 * @param minRounds fewest rounds on each side for a flag (≥ {@link MIN_ROUNDS_FLOOR})
 */
export function outlierTest(metric: OutlierTest['metric'], count: number, rounds: number, peerCount: number, peerRounds: number, minRounds: number = DEFAULT_MIN_ROUNDS): OutlierTest {
  const [x, n, X, N] = [count, rounds, peerCount, peerRounds].map((v) => BigInt(v));
  const z2 = zSquared(x, n, X, N);
  const z = z2 ? zText(z2) : null;
  const enough = rounds >= minRounds && peerRounds >= minRounds;
  const far = z2 !== null && z2.sign > 0 && z2.num >= Z_THRESHOLD * Z_THRESHOLD * z2.den;
  let note: string | null = null;
  if (!enough) note = `fewer than ${minRounds} rounds (dealer ${rounds}, peers ${peerRounds}): no flag`;
  else if (z2 === null) note = 'no variation in the pool (rate 0 or 1 for all): no test';
  return {
    metric,
    count,
    rounds,
    peerCount,
    peerRounds,
    rate: n > 0n ? decimalOf(x, n, RATE_PLACES) : null,
    peerRate: N > 0n ? decimalOf(X, N, RATE_PLACES) : null,
    z,
    flagged: enough && far,
    note,
  };
}

/**
 * Every dealer tested on a metric against the others of the list: `of(d)` gives the dealer's
 * (count, rounds). Returns the tests in the list's order.
 */
export function outlierTests<D>(dealers: readonly D[], of: (d: D) => { count: number; rounds: number }, metric: OutlierTest['metric'], minRounds: number): OutlierTest[] {
  const all = dealers.map(of);
  const total = all.reduce((s, v) => ({ count: s.count + v.count, rounds: s.rounds + v.rounds }), { count: 0, rounds: 0 });
  return all.map((v) => outlierTest(metric, v.count, v.rounds, total.count - v.count, total.rounds - v.rounds, minRounds));
}
