/**
 * The reconciliation page (the console's browser scenarios: the reconciliation export downloads and its
 * totals equal the API's): the page's rows and per-currency totals are the API's; the filters live
 * in the URL; "Export CSV" downloads the API's own CSV (Playwright's download event) whose rows
 * summed per currency equal `GET /reports/reconciliation?groupBy=currency`; "Export XLSX"
 * downloads a workbook that exceljs opens, whose rows are the JSON rows digit for digit (integers of
 * minor units) and whose totals rows equal the API's. axe on the page; screenshot `reconciliation`.
 */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import type { APIRequestContext } from '@playwright/test';
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';
import { formatMinor } from '../../apps/console/src/lib/money';

type Row = Record<string, string | null | undefined>;
const AMOUNTS = ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta'] as const;
const COUNTS = ['betsSettled', 'betsRefunded', 'betsResettled', 'roundsResulted', 'roundsVoided', 'corrections'] as const;
const FIGURES = [...AMOUNTS, ...COUNTS];

async function report(api: APIRequestContext, query: string): Promise<Row[]> {
  const r = await api.get(`/reports/reconciliation?${query}`);
  expect(r.status(), await r.text()).toBe(200);
  return ((await r.json()) as { items: Row[] }).items;
}

/** Sums the figures of rows per currency with BigInt. */
function sumsByCurrency(rows: readonly Row[]): Map<string, Record<string, bigint>> {
  const out = new Map<string, Record<string, bigint>>();
  for (const r of rows) {
    const c = String(r.currency);
    const s = out.get(c) ?? Object.fromEntries(FIGURES.map((f) => [f, 0n]));
    for (const f of FIGURES) s[f] += BigInt(String(r[f]));
    out.set(c, s);
  }
  return out;
}

/** The API's own totals: the report grouped by currency alone. */
function apiTotals(rows: readonly Row[]): Map<string, Record<string, bigint>> {
  return new Map(rows.map((r) => [String(r.currency), Object.fromEntries(FIGURES.map((f) => [f, BigInt(String(r[f]))]))]));
}

/** A CSV of the API (no quoted commas in its ids and figures) as rows of its header's keys. */
function parseCsv(text: string): Row[] {
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], v.replace(/^"|"$/g, '')])));
}

test('the report, its totals, the URL filters, and the CSV and XLSX exports equal the API', async ({ page, signIn }) => {
  test.setTimeout(120_000);
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const query = 'groupBy=table%2Cday%2Ccurrency';
  const rows = await report(api, 'groupBy=table,day,currency');
  const totals = apiTotals(await report(api, 'groupBy=currency'));
  expect(rows.length).toBeGreaterThan(0);
  // the rows add up to the API's own totals (the figure the exports are checked against)
  expect(sumsByCurrency(rows)).toEqual(totals);

  await page.goto(`/console/reconciliation?${query}`);
  const table = page.getByTestId('report');
  await expect(table.locator('tbody tr')).toHaveCount(rows.length);
  for (const [currency, t] of totals) {
    const foot = page.getByTestId(`total-${currency}`);
    for (const f of AMOUNTS) await expect(foot.locator(`[data-col="${f}"]`)).toHaveText(formatMinor(t[f], currency));
  }
  await expect(page.getByTestId('chart')).toBeVisible();
  await expect(page.getByTestId('chart').locator('svg').first()).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'reconciliation');

  // CSV: the API's own export, downloaded as a file
  // the screen shows major units and the files hold minor units: both say so
  await expect(page.getByText(/amounts in minor units.*\(shown in major units\)/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Export CSV (minor units)', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Export XLSX (minor units)', exact: true })).toBeVisible();
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(csvDownload.suggestedFilename()).toMatch(/^reconciliation_table-day-currency.*\.csv$/);
  const csvRows = parseCsv(readFileSync(await csvDownload.path(), 'utf8'));
  expect(csvRows.length).toBe(rows.length);
  expect(sumsByCurrency(csvRows)).toEqual(totals);

  // XLSX: from the same JSON rows, amounts as exact integers of minor units
  const [xlsxDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
  expect(xlsxDownload.suggestedFilename()).toMatch(/^reconciliation_table-day-currency.*\.xlsx$/);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(readFileSync(await xlsxDownload.path()) as unknown as ExcelJS.Buffer);
  const sheet = wb.getWorksheet('Reconciliation');
  expect(sheet, 'sheet Reconciliation').toBeTruthy();
  const values = (n: number) => (sheet!.getRow(n).values as unknown[]).slice(1);
  const header = values(1) as string[];
  const col = (heading: RegExp) => header.findIndex((h) => heading.test(h));
  const idx = {
    table: col(/^Table$/),
    day: col(/^Gaming day$/),
    currency: col(/^Currency$/),
    turnover: col(/^Turnover/),
    payouts: col(/^Payouts/),
    ggr: col(/^GGR/),
    hold: col(/^Hold/),
    voidedStakes: col(/^Voided stakes/),
    correctionPayoutDelta: col(/^Correction payout delta/),
    betsSettled: col(/^Bets settled/),
  };
  for (const [k, i] of Object.entries(idx)) expect(i, `column ${k}`).toBeGreaterThanOrEqual(0);
  const dataRows: Row[] = [];
  const totalRows = new Map<string, Record<string, bigint>>();
  for (let n = 2; n <= sheet!.rowCount; n++) {
    const v = values(n);
    const figures = (f: keyof typeof idx) => {
      const cell = v[idx[f]];
      expect(typeof cell === 'number' ? Number.isInteger(cell) : /^-?\d+$/.test(String(cell)), `row ${n} ${f} is an integer: ${String(cell)}`).toBe(true);
      return String(cell);
    };
    const row: Row = { currency: String(v[idx.currency]) };
    for (const f of ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta', 'betsSettled'] as const) row[f] = figures(f);
    if (String(v[0]).startsWith('Total '))
      totalRows.set(
        String(row.currency),
        Object.fromEntries(
          Object.entries(row)
            .filter(([k]) => k !== 'currency')
            .map(([k, x]) => [k, BigInt(String(x))]),
        ),
      );
    else dataRows.push({ ...row, tableId: String(v[idx.table]), gamingDay: String(v[idx.day]), hold: v[idx.hold] === undefined ? null : String(v[idx.hold]) });
  }
  expect(dataRows.length).toBe(rows.length);
  for (let i = 0; i < rows.length; i++) {
    for (const f of ['tableId', 'gamingDay', 'currency', 'turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta', 'betsSettled', 'hold'] as const)
      expect(dataRows[i][f], `XLSX row ${i + 1} ${f}`).toBe(rows[i][f] ?? null);
  }
  expect([...totalRows.keys()].sort()).toEqual([...totals.keys()].sort());
  for (const [currency, t] of totalRows) for (const f of ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta', 'betsSettled'] as const) expect(t[f], `XLSX total ${currency} ${f}`).toBe(totals.get(currency)![f]);
});

test('the filters are in the URL: group by and a table filter give a shareable address with the API rows', async ({ page, signIn }) => {
  const { api } = await signIn(page, 'auditor', 'auditor-1');
  await page.goto('/console/reconciliation');
  await page.getByRole('checkbox', { name: 'Dealer' }).check();
  await page.getByRole('combobox', { name: 'Table' }).selectOption('T-TIGER-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/console\/reconciliation\?groupBy=table%2Cdealer%2Ccurrency&tableId=T-TIGER-01$/);
  const rows = await report(api, 'groupBy=table,dealer,currency&tableId=T-TIGER-01');
  await expect(page.getByTestId('report').locator('tbody tr')).toHaveCount(rows.length);
  // the same address in a fresh load shows the same
  await page.reload();
  await expect(page.getByRole('checkbox', { name: 'Dealer' })).toBeChecked();
  await expect(page.getByTestId('report').locator('tbody tr')).toHaveCount(rows.length);
  await expect(page.getByTestId('report')).toContainText('T-TIGER-01');
});
