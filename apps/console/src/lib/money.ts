/**
 * Money in the console (apps/console/README.md "Money and time"): amounts arrive from the API as
 * decimal strings of **integer minor units** (`"2500"` = 25.00 EUR, docs/domain-rules.md §4) and are
 * formatted with BigInt and string arithmetic only: never through a floating-point number.
 * Pure functions (no DOM): unit-tested in test/console/money.unit.spec.ts.
 */

/** Minor-unit digits of ISO 4217 currencies that differ from 2 (the rest have 2). */
const MINOR_DIGITS: Readonly<Record<string, number>> = {
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
};

/** Number of minor-unit digits of a currency (ISO 4217; 2 unless listed). */
export function minorDigits(currency: string): number {
  return MINOR_DIGITS[currency.toUpperCase()] ?? 2;
}

const INTEGER = /^-?\d+$/;

/** Groups the digits of a non-negative integer string in threes: `"1234567"` → `"1,234,567"`. */
function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Formats an amount of minor units: `formatMinor("-123456", "EUR")` → `"-1,234.56"`;
 * `formatMinor("5", "JPY")` → `"5"`; with `withCurrency` → `"-1,234.56 EUR"`.
 * @param minor integer minor units as a decimal string (or bigint), as the API sends them
 * @throws Error when `minor` is not an integer (a float or garbage never reaches the screen as money)
 */
export function formatMinor(minor: string | bigint, currency: string, withCurrency = false): string {
  const s = typeof minor === 'bigint' ? minor.toString() : minor.trim();
  if (!INTEGER.test(s)) throw new Error(`not an amount of minor units: ${JSON.stringify(minor)}`);
  const negative = s.startsWith('-');
  const abs = (negative ? s.slice(1) : s).replace(/^0+(?=\d)/, '');
  const d = minorDigits(currency);
  const padded = abs.padStart(d + 1, '0');
  const whole = group(padded.slice(0, padded.length - d));
  const frac = d === 0 ? '' : '.' + padded.slice(padded.length - d);
  const sign = negative && /[1-9]/.test(abs) ? '-' : '';
  return `${sign}${whole}${frac}${withCurrency ? ' ' + currency : ''}`;
}

/**
 * Formats a ratio given as a decimal string (the reconciliation's `hold`, e.g. `"0.012345"`) as a
 * percentage with the same digits shifted: `"1.2345 %"`. `null` (no turnover) → `"–"`.
 * @throws Error when `ratio` is not a plain decimal string
 */
export function formatRatioPercent(ratio: string | null | undefined): string {
  if (ratio === null || ratio === undefined) return '–';
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(ratio.trim());
  if (!m) throw new Error(`not a decimal ratio: ${JSON.stringify(ratio)}`);
  const [, sign, int, frac = ''] = m;
  // percent = ratio × 100: move the decimal point two places right, on the digit string alone
  const f = frac.padEnd(2, '0');
  const whole = (int + f.slice(0, 2)).replace(/^0+(?=\d)/, '');
  const rest = f.slice(2).replace(/0+$/, '');
  const body = rest ? `${whole}.${rest}` : whole;
  const nonZero = /[1-9]/.test(int + frac);
  return `${sign && nonZero ? '-' : ''}${body} %`;
}

/**
 * Sums amounts of minor units exactly (BigInt). @throws Error on a non-integer string
 */
export function sumMinor(values: readonly (string | bigint)[]): bigint {
  let total = 0n;
  for (const v of values) {
    const s = typeof v === 'bigint' ? v : v.trim();
    if (typeof s === 'string' && !INTEGER.test(s)) throw new Error(`not an amount of minor units: ${JSON.stringify(v)}`);
    total += BigInt(s);
  }
  return total;
}

/**
 * An integer amount as a JavaScript number for **drawing only** (a bar's height in a chart): exact
 * while it is a safe integer, and the chart's labels and tooltips always print the string itself
 * with {@link formatMinor}. @throws RangeError beyond ±2^53−1 minor units
 */
export function minorForPlot(minor: string | bigint): number {
  const b = typeof minor === 'bigint' ? minor : BigInt(minor);
  if (b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount too large to plot exactly');
  return Number(b);
}
