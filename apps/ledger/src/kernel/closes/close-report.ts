import { createHash, sign, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { ReportHeader } from '../report-header';
import type { ReconciliationFigures } from '../as-of/reconciliation-sql';
import type { Adjustment } from './adjustments';
import type { EarlyCloseApproval, TableClockSkew } from '@ledger/events';
import type { TableDayFairness } from '@ledger/anchors';

/**
 * Layout version of the frozen gaming-day report (docs/reports.md §2): 2 since the report states the
 * largest device clock skew of the day per table (`clockSkew`), 3 since it states the fairness verdict
 * of the day per table (`fairness`, docs/fairness.md §8). A close keeps the layout it was signed
 * in: its stored bytes verify as they are, and its body is computed again in its own layout
 * ({@link CLOSE_REPORT_VERSIONS}).
 */
export const CLOSE_REPORT_VERSION = 3;

/** Every layout a stored close may have, newest first: 1 (no `clockSkew`), 2, 3 (with `fairness`). */
export const CLOSE_REPORT_VERSIONS: readonly number[] = [3, 2, 1];

/**
 * The layout of stored close bytes (their `header.reportVersion`), or null when the bytes are not a
 * report's JSON.
 */
export function closeReportVersionOf(bytes: string): number | null {
  try {
    const v = (JSON.parse(bytes) as { header?: { reportVersion?: unknown } }).header?.reportVersion;
    return typeof v === 'number' && Number.isInteger(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The signed body of a gaming-day close (docs/reports.md §2): everything in it is computed from the
 * events up to `throughPosition` (as known at that position, docs/reports.md §3), so the same events
 * always give the same body and the same canonical bytes, with the close's trigger and early-close
 * approval, which its event carries too. `header.generatedAt` is the `recordedAt`
 * of the last event covered (the moment the figures are as of), not the wall clock; the close's own
 * time (`closedAt`) and author stay outside, in the close record.
 */
export interface CloseReportBody {
  readonly header: ReportHeader;
  /** `YYYY-MM-DD`. */
  readonly gamingDay: string;
  /** The table set, sorted. */
  readonly tableIds: readonly string[];
  /** Every event at or below it is covered; none above. Decimal string. */
  readonly throughPosition: string;
  /** A pit manager's close or the sweeper's: signed, so that the close event cannot claim another. */
  readonly trigger: 'MANAGER' | 'AUTOMATIC';
  /** An early close's request and approval (four eyes), signed; null for a day that had ended. */
  readonly early: EarlyCloseApproval | null;
  /** The gaming-day rule the rounds were filed under. */
  readonly gamingDayRule: { readonly timeZone: string; readonly cutoffHour: number };
  /** Per table, dealer and currency. Amounts in minor units; `dropped` an exact fraction. */
  readonly rows: readonly ReconciliationFigures[];
  /** Per currency, over the whole table set. */
  readonly totals: readonly ReconciliationFigures[];
  /** Changes after the close of an earlier day that this day carries (docs/reports.md §2). */
  readonly adjustments: readonly Adjustment[];
  /**
   * Layout 2 on (absent in layout 1): per table of the set, sorted, the largest device clock skew of
   * the day, from the events (docs/architecture.md §9, "Time the ledger vouches for").
   */
  readonly clockSkew?: readonly TableClockSkew[];
  /**
   * Layout 3 on (absent before): per table of the set, sorted, the fairness verdict of its gaming day
   * from the verified events (`closeFairness` of `@ledger/anchors`, docs/fairness.md §8).
   */
  readonly fairness?: readonly TableDayFairness[];
}

/** The canonical bytes of a report body (RFC 8785 JSON Canonicalization Scheme, UTF-8): what is signed and stored. */
export function canonicalReportBytes(body: CloseReportBody): Buffer {
  const text = canonicalize(body);
  if (text === undefined) throw new Error('report body cannot be canonicalised');
  return Buffer.from(text, 'utf8');
}

/** Lower-case hex SHA-256 of the bytes. */
export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Ed25519 signature of the bytes, base64. */
export function signReport(bytes: Buffer, privateKey: KeyObject): string {
  return sign(null, bytes, privateKey).toString('base64');
}

/** Whether `signature` (base64) is an Ed25519 signature of `bytes` by `publicKey`. */
export function verifyReport(bytes: Buffer, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify(null, bytes, publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The CSV columns of a close's export, in order (one line per row, total and adjustment). */
export const CLOSE_CSV_COLUMNS = [
  'section',
  'gamingDay',
  'tableId',
  'dealerId',
  'currency',
  'turnover',
  'payouts',
  'ggr',
  'hold',
  'voidedStakes',
  'correctionPayoutDelta',
  'dropped',
  'betsSettled',
  'betsRefunded',
  'betsResettled',
  'roundsResulted',
  'roundsVoided',
  'corrections',
  'roundId',
  'closedDay',
  'kind',
  'eventId',
  'decisionId',
  'globalPosition',
  'deviceEvents',
  'deviceId',
  'skewMs',
  'statistic',
  'method',
  'pValue',
  'alert',
  'alertsRaised',
] as const;

/**
 * The lines of a close's CSV export (without the header): rows, totals, adjustments, then (layout 2
 * on) one `clockSkew` line per table — the largest skew's device, signed `skewMs` (occurredAt −
 * recordedAt), event and position — and (layout 3 on) one `fairness` line per table and statistic:
 * its test `method`, `pValue`, `alert`, with the table's day's `roundsResulted` and `alertsRaised`.
 */
export function closeCsvRecords(body: CloseReportBody): Record<string, unknown>[] {
  const base = { gamingDay: body.gamingDay };
  return [
    ...body.rows.map((r) => ({ section: 'row', ...base, ...r })),
    ...body.totals.map((r) => ({ section: 'total', ...base, ...r })),
    ...body.adjustments.map((a) => ({ section: 'adjustment', ...base, ...a, gamingDay: a.targetDay })),
    ...(body.clockSkew ?? []).map((c) => ({
      section: 'clockSkew',
      ...base,
      tableId: c.tableId,
      deviceEvents: c.deviceEvents,
      deviceId: c.largest?.deviceId ?? '',
      skewMs: c.largest?.skewMs ?? '',
      eventId: c.largest?.eventId ?? '',
      globalPosition: c.largest?.globalPosition ?? '',
    })),
    ...(body.fairness ?? []).flatMap((f) =>
      f.statistics.map((s) => ({ section: 'fairness', ...base, tableId: f.tableId, roundsResulted: f.rounds, statistic: s.statistic, method: s.method, pValue: s.pValue, alert: s.alert, alertsRaised: f.alertsRaised })),
    ),
  ];
}
