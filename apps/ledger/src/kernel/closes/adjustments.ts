import type { ReconciliationFigures } from '../as-of/reconciliation-sql';
import { droppedDifference } from '../as-of/dropped-total';

/**
 * A change, after its day was closed, to a round of a closed gaming day (docs/reports.md §2): the
 * frozen report keeps the figures it had; the change is carried as an adjustment by the next open
 * day ({@link targetDay}). Amounts are the change of the round's figures (new − old, minor units),
 * `dropped` the change of its dropped-fraction total.
 */
export interface Adjustment {
  readonly roundId: string;
  readonly shoeId: string;
  readonly tableId: string;
  readonly dealerId: string;
  readonly currency: string;
  /** The closed gaming day the round belongs to, and the close that froze it. */
  readonly closedDay: string;
  readonly closeId: string;
  /** The gaming day whose report carries the adjustment. */
  readonly targetDay: string;
  /** What changed: a result correction, a void, a late result, or settlements alone. */
  readonly kind: 'CORRECTED' | 'VOIDED' | 'RESULTED' | 'SETTLEMENT';
  /** The event that made the change (the compensating ResultCorrected / RoundVoided, or the first settlement event). */
  readonly eventId: string;
  readonly globalPosition: string;
  readonly recordedAt: string;
  /** The four-eyes decision behind it (`decisionId` of its request), when management's. */
  readonly decisionId: string | null;
  readonly reason: string | null;
  readonly actingManagerId: string | null;
  readonly approverId: string | null;
  /** The event it compensates (a correction's or void's `compensates`). */
  readonly compensates: string | null;
  readonly turnover: string;
  readonly payouts: string;
  readonly ggr: string;
  readonly voidedStakes: string;
  readonly correctionPayoutDelta: string;
  readonly dropped: string;
  readonly betsSettled: string;
  readonly betsRefunded: string;
  readonly betsResettled: string;
  readonly roundsResulted: string;
  readonly roundsVoided: string;
  readonly corrections: string;
}

/** The integer fields of a reconciliation row an adjustment carries the change of. */
export const ADJUSTED_SUMS = ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta', 'betsSettled', 'betsRefunded', 'betsResettled', 'roundsResulted', 'roundsVoided', 'corrections'] as const;

/** A round's figures of one currency, zero when it had none. */
export function zeroFigures(): Record<(typeof ADJUSTED_SUMS)[number] | 'dropped', string> {
  const z = Object.fromEntries(ADJUSTED_SUMS.map((k) => [k, '0'])) as Record<(typeof ADJUSTED_SUMS)[number], string>;
  return { ...z, dropped: '0' };
}

/**
 * `after − before` of a round's figures, per currency (both from the as-of reconciliation grouped by
 * currency); a currency in only one side counts zero in the other.
 * @returns by currency: the changed sums as decimal strings and the dropped change as a reduced fraction
 */
export function figureDeltas(before: readonly ReconciliationFigures[], after: readonly ReconciliationFigures[]): Map<string, ReturnType<typeof zeroFigures>> {
  const out = new Map<string, ReturnType<typeof zeroFigures>>();
  const currencies = new Set([...before, ...after].map((r) => r.currency as string));
  for (const c of [...currencies].sort()) {
    const b = before.find((r) => r.currency === c) ?? { ...zeroFigures(), currency: c };
    const a = after.find((r) => r.currency === c) ?? { ...zeroFigures(), currency: c };
    const d = zeroFigures();
    for (const k of ADJUSTED_SUMS) d[k] = (BigInt(a[k] as string) - BigInt(b[k] as string)).toString();
    d.dropped = droppedDifference(a.dropped as string, b.dropped as string);
    out.set(c, d);
  }
  return out;
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/**
 * Which gaming day carries a change (docs/reports.md §2): the gaming day the change was recorded on
 * (`recordedDay`, the ledger's clock), or, when that day was already closed for the table before the
 * change (a close covering a lower global position), the first later day that was not.
 * @param closedThrough the `throughPosition` of the close of (day, table), undefined when not closed
 */
export function targetDay(recordedDay: string, tableId: string, position: bigint, closedThrough: (day: string, tableId: string) => bigint | undefined): string {
  let day = recordedDay;
  for (let i = 0; i < 36_600; i++) {
    const through = closedThrough(day, tableId);
    if (through === undefined || through >= position) return day;
    day = nextDay(day);
  }
  throw new Error(`no open gaming day after ${recordedDay} for table ${tableId}`);
}
