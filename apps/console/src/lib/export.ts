/**
 * Exports of the reconciliation report (apps/console/README.md "Reconciliation"):
 *
 * - **CSV** is the API's own (`GET /reports/reconciliation?format=csv`): the page fetches it with
 *   the bearer token and hands the bytes to {@link downloadBlob}; the console never writes a CSV of
 *   its own, so the file is exactly what the API answers.
 * - **XLSX** is written here with exceljs from the same JSON rows the page shows
 *   ({@link reconciliationWorkbook}).
 *
 * **Amounts in the XLSX** (the choice, docs/reports.md §8): every amount and count cell holds the
 * **integer number of minor units** (`"2500"` EUR → the number 2500, a column headed "… (minor
 * units)"), as a number cell formatted `0`, converted from the API's decimal string by `BigInt` →
 * `Number`. A column is one type from top to bottom, rows and totals alike ({@link integerColumn}):
 * numbers when every value of it has at most 15 digits (what a spreadsheet shows and keeps exactly:
 * Excel shows 15 significant digits of a number), otherwise **every** cell of it is the exact
 * decimal text. Never a column of numbers with a few text cells, which a spreadsheet's `SUM` would
 * silently leave out. No amount is ever divided, multiplied or summed as a float: the totals rows
 * are BigInt sums ({@link totalsByCurrency}) written the same way. `hold` (GGR / turnover, a ratio,
 * not money) is always the API's exact decimal **text** with its 6 decimals (`"-0.095130"`). So a
 * sheet read back gives the API's figures digit for digit, and the integers add up in a spreadsheet.
 *
 * Pure module (no DOM, no React): the download helper takes the document it clicks in. Unit-tested in
 * test/console/export.unit.spec.ts (the workbook is written and read back with exceljs).
 */
import ExcelJS from 'exceljs';
import { AMOUNT_COLUMNS, COUNT_COLUMNS, DIMENSIONS, totalsByCurrency, type ReportQuery, type ReportRowLike } from './report';

const INTEGER = /^-?\d+$/;
/** The most digits of an integer a spreadsheet cell shows and keeps exactly (Excel shows 15 significant digits). */
export const SPREADSHEET_DIGITS = 15;
const MAX = 10n ** BigInt(SPREADSHEET_DIGITS) - 1n;

/**
 * The cells of one integer column (an amount in minor units, or a count), top to bottom: all
 * numbers when every value is within ±(10^15 − 1), else every value as its exact decimal text (one
 * value too long for a spreadsheet number turns the whole column into text, never one cell of it).
 * A missing value (null, undefined) is an empty cell.
 * @throws Error when a value is not an integer string
 */
export function integerColumn(values: readonly unknown[]): (number | string | null)[] {
  const ints = values.map((v) => {
    if (v === null || v === undefined) return null;
    const s = String(v).trim();
    if (!INTEGER.test(s)) throw new Error(`not an integer of minor units: ${JSON.stringify(v)}`);
    return BigInt(s);
  });
  const asNumbers = ints.every((b) => b === null || (b <= MAX && b >= -MAX));
  return ints.map((b) => (b === null ? null : asNumbers ? Number(b) : b.toString()));
}

/** Human headings of the report's columns (amounts say their unit). */
export const COLUMN_HEADINGS: Readonly<Record<string, string>> = {
  tableId: 'Table',
  shoeId: 'Shoe',
  dealerId: 'Dealer',
  gamingDay: 'Gaming day',
  currency: 'Currency',
  turnover: 'Turnover (minor units)',
  payouts: 'Payouts (minor units)',
  ggr: 'GGR (minor units)',
  hold: 'Hold (GGR / turnover)',
  voidedStakes: 'Voided stakes (minor units)',
  correctionPayoutDelta: 'Correction payout delta (minor units)',
  betsSettled: 'Bets settled',
  betsRefunded: 'Bets refunded',
  betsResettled: 'Bets resettled',
  roundsResulted: 'Rounds resulted',
  roundsVoided: 'Rounds voided',
  corrections: 'Corrections',
};

/** The columns of an exported row, in order: the grouping columns asked for, then the figures. */
export function exportColumns(groupBy: ReportQuery['groupBy']): string[] {
  return [...DIMENSIONS.filter((d) => groupBy.includes(d.key)).map((d) => d.field), 'turnover', 'payouts', 'ggr', 'hold', 'voidedStakes', 'correctionPayoutDelta', ...COUNT_COLUMNS];
}

const NUMERIC = new Set<string>([...AMOUNT_COLUMNS, ...COUNT_COLUMNS]);

/**
 * The XLSX workbook of a report: sheet "Reconciliation" (a header row, one row per report row, then
 * one "Total <currency>" row per currency) and sheet "About" (the filters, the time it was written,
 * the unit). Amount and count columns per the module's rule ({@link integerColumn}); `hold` as text.
 * @param rows the rows exactly as `GET /reports/reconciliation` answered them
 * @param generatedAt ISO-8601 time written into "About"
 */
export function reconciliationWorkbook(rows: readonly ReportRowLike[], query: ReportQuery, generatedAt: string): ExcelJS.Workbook {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Baccarat ledger console';
  wb.created = new Date(generatedAt);
  const sheet = wb.addWorksheet('Reconciliation', { views: [{ state: 'frozen', ySplit: 1 }] });
  const columns = exportColumns(query.groupBy);
  sheet.columns = columns.map((key) => ({ header: COLUMN_HEADINGS[key] ?? key, key, width: Math.max(12, (COLUMN_HEADINGS[key] ?? key).length + 2) }));
  sheet.getRow(1).font = { bold: true };
  // the report rows, then one totals row per currency, as plain records of the API's strings
  const records: Record<string, unknown>[] = rows.map((row) => ({ ...(row as unknown as Record<string, unknown>) }));
  for (const t of totalsByCurrency(rows)) {
    const line: Record<string, unknown> = { ...t };
    for (const k of columns) if (!NUMERIC.has(k) && k !== 'hold') line[k] = undefined;
    line[columns[0] !== 'currency' ? columns[0] : 'currency'] = `Total ${t.currency}`;
    if (columns[0] !== 'currency') line.currency = t.currency;
    records.push(line);
  }
  const cells = new Map(columns.map((k) => [k, NUMERIC.has(k) ? integerColumn(records.map((r) => r[k])) : records.map((r) => (r[k] === null || r[k] === undefined ? null : String(r[k])))]));
  records.forEach((_, i) => {
    const added = sheet.addRow(Object.fromEntries(columns.map((k) => [k, cells.get(k)![i]])));
    if (i >= rows.length) added.font = { bold: true };
  });
  for (const k of columns) if (NUMERIC.has(k) && cells.get(k)!.some((c) => typeof c === 'number')) sheet.getColumn(k).numFmt = '0';
  const about = wb.addWorksheet('About');
  about.columns = [
    { header: 'Field', key: 'k', width: 24 },
    { header: 'Value', key: 'v', width: 60 },
  ];
  about.addRow({ k: 'Report', v: 'GET /reports/reconciliation' });
  about.addRow({ k: 'groupBy', v: query.groupBy.join(',') });
  for (const k of ['tableId', 'shoeId', 'dealerId', 'currency', 'fromDay', 'toDay'] as const) if (query[k]) about.addRow({ k, v: query[k] });
  about.addRow({ k: 'Written at', v: generatedAt });
  about.addRow({ k: 'Amounts', v: 'integers of minor units of the row\u2019s currency (e.g. 2500 = 25.00 EUR); a column is all numbers, or all exact text when one of its values has more than 15 digits' });
  about.addRow({ k: 'Hold', v: 'GGR / turnover as the API\u2019s exact decimal text (6 decimals)' });
  return wb;
}

/** The bytes of a workbook as an XLSX file. */
export async function workbookBytes(wb: ExcelJS.Workbook): Promise<Uint8Array> {
  const buf = await wb.xlsx.writeBuffer();
  return new Uint8Array(buf as ArrayBuffer);
}

/** The MIME type of an XLSX file. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * A file name for an export of the report: `reconciliation_table-currency_2026-12-01_2026-12-02.csv`
 * (the groups and the days asked for; characters outside `[A-Za-z0-9._-]` replaced).
 */
export function exportFilename(query: ReportQuery, ext: 'csv' | 'xlsx'): string {
  const parts = ['reconciliation', query.groupBy.join('-')];
  for (const k of ['tableId', 'shoeId', 'dealerId', 'currency', 'fromDay', 'toDay'] as const) if (query[k]) parts.push(String(query[k]));
  return `${parts.join('_').replace(/[^A-Za-z0-9._-]/g, '-')}.${ext}`;
}

/** What {@link downloadBlob} needs of a document (the browser's `document`; a fake in unit tests). */
export interface DownloadDocument {
  createElement(tag: 'a'): { href: string; download: string; rel: string; click(): void; remove(): void };
  readonly body: { appendChild(node: never): unknown };
}

/** What {@link downloadBlob} needs of `URL` (object URLs). */
export interface ObjectUrls {
  createObjectURL(blob: Blob): string;
  revokeObjectURL(url: string): void;
}

/**
 * Saves bytes as a file in the browser: an object URL of the Blob on a temporary `<a download>`,
 * clicked, then removed and revoked.
 */
export function downloadBlob(blob: Blob, filename: string, doc: DownloadDocument, urls: ObjectUrls = URL): void {
  const href = urls.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = href;
  a.download = filename;
  a.rel = 'noopener';
  doc.body.appendChild(a as never);
  a.click();
  a.remove();
  setTimeout(() => urls.revokeObjectURL(href), 1_000);
}
