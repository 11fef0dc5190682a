/**
 * The reconciliation report's arithmetic in the console (docs/http-api.md "Reads and writes",
 * docs/domain-rules.md §4): totals of the rows the API answers, and the per-gaming-day series the
 * chart draws. Every figure stays a decimal string of **integer minor units** and is added with
 * BigInt; amounts of different currencies are never added together (a total is per currency).
 * Pure functions (no DOM, no React): unit-tested in test/console/report.unit.spec.ts.
 */
import { minorForPlot } from './money';

/**
 * The fields of a reconciliation row this module reads (structurally the API's
 * `ReconciliationRow`, `components['schemas']['ReconciliationRow']`): amounts in minor units as
 * decimal strings, counts as decimal strings, `hold` = GGR / turnover with 6 decimals (or null
 * when there was no turnover), and the grouping columns the request asked for.
 */
export interface ReportRowLike {
  readonly tableId?: string | null;
  readonly shoeId?: string | null;
  readonly dealerId?: string | null;
  readonly gamingDay?: string | null;
  readonly currency?: string | null;
  readonly turnover: string;
  readonly payouts: string;
  readonly ggr: string;
  readonly hold?: string | null;
  readonly voidedStakes: string;
  readonly correctionPayoutDelta: string;
  readonly betsSettled: string;
  readonly betsRefunded: string;
  readonly betsResettled: string;
  readonly roundsResulted: string;
  readonly roundsVoided: string;
  readonly corrections: string;
}

/** The amount columns of a row (minor units of the row's currency). */
export const AMOUNT_COLUMNS = ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta'] as const;
/** The count columns of a row (bets and rounds). */
export const COUNT_COLUMNS = ['betsSettled', 'betsRefunded', 'betsResettled', 'roundsResulted', 'roundsVoided', 'corrections'] as const;

export type AmountColumn = (typeof AMOUNT_COLUMNS)[number];
export type CountColumn = (typeof COUNT_COLUMNS)[number];

/** The totals of one currency: every amount and count as a decimal string, `hold` recomputed exactly. */
export type CurrencyTotals = { readonly currency: string; readonly rows: number; readonly hold: string | null } & {
  readonly [K in AmountColumn | CountColumn]: string;
};

const INTEGER = /^-?\d+$/;

function int(value: string, what: string): bigint {
  const s = value.trim();
  if (!INTEGER.test(s)) throw new Error(`${what}: not an integer: ${JSON.stringify(value)}`);
  return BigInt(s);
}

/**
 * `numerator / denominator` as a decimal string with `scale` decimals, rounded half away from zero
 * (as PostgreSQL's `round(numeric, 6)`, which computes the rows' own `hold`): exact, BigInt only.
 * `ratio(-929770n, 9773700n)` → `"-0.095130"`. `null` when the denominator is 0.
 */
export function ratio(numerator: bigint, denominator: bigint, scale = 6): string | null {
  if (denominator === 0n) return null;
  const negative = numerator < 0n !== denominator < 0n && numerator !== 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const factor = 10n ** BigInt(scale);
  let q = (n * factor) / d;
  const r = (n * factor) % d;
  if (r * 2n >= d) q += 1n;
  const digits = q.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = scale ? '.' + digits.slice(digits.length - scale) : '';
  return `${negative && q !== 0n ? '-' : ''}${whole}${frac}`;
}

/**
 * Totals of the rows, one per currency (in the order of first appearance): amounts and counts added
 * with BigInt, `hold` = total GGR / total turnover (6 decimals, {@link ratio}).
 * @throws Error when a row has no `currency` (the report was not grouped by currency: its sums
 *   would mix currencies, so the console always asks for `currency` among the groups), or when an
 *   amount or count is not an integer string
 */
export function totalsByCurrency(rows: readonly ReportRowLike[]): CurrencyTotals[] {
  const acc = new Map<string, { rows: number; sums: Record<AmountColumn | CountColumn, bigint> }>();
  for (const row of rows) {
    const currency = row.currency;
    if (!currency) throw new Error('a reconciliation row without currency: totals would add amounts of different currencies');
    let a = acc.get(currency);
    if (!a) {
      a = { rows: 0, sums: Object.fromEntries([...AMOUNT_COLUMNS, ...COUNT_COLUMNS].map((c) => [c, 0n])) as Record<AmountColumn | CountColumn, bigint> };
      acc.set(currency, a);
    }
    a.rows += 1;
    for (const c of [...AMOUNT_COLUMNS, ...COUNT_COLUMNS]) a.sums[c] += int(row[c], c);
  }
  return [...acc.entries()].map(([currency, a]) => {
    const strings = Object.fromEntries(Object.entries(a.sums).map(([k, v]) => [k, v.toString()])) as Record<AmountColumn | CountColumn, string>;
    return { currency, rows: a.rows, hold: ratio(a.sums.ggr, a.sums.turnover), ...strings };
  });
}

/** One gaming day of the chart: the exact strings (for labels and tooltips) and their plot values. */
export interface DayPoint {
  /** Gaming day `YYYY-MM-DD`. */
  readonly gamingDay: string;
  readonly turnover: string;
  readonly payouts: string;
  readonly ggr: string;
  /** GGR / turnover, 6 decimals, null without turnover. */
  readonly hold: string | null;
  /** Heights for drawing only ({@link minorForPlot}: exact safe integers of minor units). */
  readonly plot: { readonly turnover: number; readonly payouts: number; readonly ggr: number; readonly holdPercent: number | null };
}

/**
 * A hold ratio string as a percentage **for drawing only** (the axis position of a line point);
 * labels print the string with `formatRatioPercent`. `"-0.095130"` → `-9.513`.
 */
export function holdForPlot(hold: string | null | undefined): number | null {
  if (hold === null || hold === undefined) return null;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(hold.trim());
  if (!m) throw new Error(`not a decimal ratio: ${JSON.stringify(hold)}`);
  // integer micro-units of the ratio, exact; the one division by 10^4 only places a point on the chart
  const frac = (m[3] ?? '').padEnd(6, '0').slice(0, 6);
  const micro = Number(BigInt(m[2] + frac));
  return (m[1] ? -micro : micro) / 10_000;
}

/**
 * The per-gaming-day series of one currency from rows grouped by (at least) `day` and `currency`
 * (`GET /reports/reconciliation?groupBy=day,currency`): days ascending, rows of the same day (when
 * the report was grouped finer) added with BigInt and their hold recomputed.
 * @returns a map currency → points (a chart never mixes currencies)
 * @throws Error when a row has no `gamingDay` or no `currency`
 */
export function dailySeries(rows: readonly ReportRowLike[]): Map<string, DayPoint[]> {
  const byCurrency = new Map<string, Map<string, { turnover: bigint; payouts: bigint; ggr: bigint }>>();
  for (const row of rows) {
    if (!row.currency) throw new Error('a reconciliation row without currency: the chart needs groupBy=day,currency');
    if (!row.gamingDay) throw new Error('a reconciliation row without gamingDay: the chart needs groupBy=day,currency');
    let days = byCurrency.get(row.currency);
    if (!days) byCurrency.set(row.currency, (days = new Map()));
    const d = days.get(row.gamingDay) ?? { turnover: 0n, payouts: 0n, ggr: 0n };
    d.turnover += int(row.turnover, 'turnover');
    d.payouts += int(row.payouts, 'payouts');
    d.ggr += int(row.ggr, 'ggr');
    days.set(row.gamingDay, d);
  }
  const out = new Map<string, DayPoint[]>();
  for (const [currency, days] of [...byCurrency.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const points = [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([gamingDay, d]): DayPoint => {
        const hold = ratio(d.ggr, d.turnover);
        return {
          gamingDay,
          turnover: d.turnover.toString(),
          payouts: d.payouts.toString(),
          ggr: d.ggr.toString(),
          hold,
          plot: { turnover: minorForPlot(d.turnover), payouts: minorForPlot(d.payouts), ggr: minorForPlot(d.ggr), holdPercent: holdForPlot(hold) },
        };
      });
    out.set(currency, points);
  }
  return out;
}

/** The grouping dimensions of the report, in the API's order, with the row field each fills. */
export const DIMENSIONS = [
  { key: 'table', field: 'tableId', label: 'Table' },
  { key: 'shoe', field: 'shoeId', label: 'Shoe' },
  { key: 'dealer', field: 'dealerId', label: 'Dealer' },
  { key: 'day', field: 'gamingDay', label: 'Gaming day' },
  { key: 'currency', field: 'currency', label: 'Currency' },
] as const;

export type Dimension = (typeof DIMENSIONS)[number]['key'];

/** The report's filters as the page keeps them in its URL (`?groupBy=table,currency&tableId=…`). */
export interface ReportQuery {
  readonly groupBy: readonly Dimension[];
  readonly tableId?: string;
  readonly shoeId?: string;
  readonly dealerId?: string;
  readonly currency?: string;
  readonly fromDay?: string;
  readonly toDay?: string;
}

const FILTER_KEYS = ['tableId', 'shoeId', 'dealerId', 'currency', 'fromDay', 'toDay'] as const;

/**
 * Reads the report's query from a URL query string: unknown dimensions are dropped, `currency` is
 * always among the groups (totals never add currencies), the dimensions keep the API's order, and
 * empty filters are left out. Default `groupBy=table,currency` (as the API's).
 */
export function parseReportQuery(search: string | URLSearchParams): ReportQuery {
  const p = typeof search === 'string' ? new URLSearchParams(search) : search;
  const asked = (p.get('groupBy') ?? 'table,currency').split(',').map((s) => s.trim());
  const groupBy = DIMENSIONS.map((d) => d.key).filter((k) => k === 'currency' || asked.includes(k));
  const q: Record<string, unknown> = { groupBy };
  for (const k of FILTER_KEYS) {
    const v = p.get(k)?.trim();
    if (v) q[k] = v;
  }
  return q as unknown as ReportQuery;
}

/**
 * The query string of a report query, stable (keys in a fixed order, empty ones left out), for the
 * page's URL and for the API call: `groupBy=table,currency&tableId=T-1`.
 */
export function reportQueryString(q: ReportQuery, extra: Readonly<Record<string, string>> = {}): string {
  const p = new URLSearchParams();
  p.set(
    'groupBy',
    DIMENSIONS.map((d) => d.key)
      .filter((k) => k === 'currency' || q.groupBy.includes(k))
      .join(','),
  );
  for (const k of FILTER_KEYS) {
    const v = q[k];
    if (v) p.set(k, v);
  }
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p.toString();
}
