/**
 * The gaming-day closes (docs/reports.md §2) in the console: the header names today's gaming day as
 * the rule `GET /me` answers cuts it; `/closes` lists every close `GET /gaming-days/closes` answers,
 * each with the signature status the API reports; a day's page shows its frozen report (the rule,
 * the SHA-256, the totals, the adjustments carried) as `GET /gaming-days/{day}/close` answers it,
 * and its downloads are the API's exact signed bytes (`format=raw`, whose SHA-256 is the close's)
 * and its CSV; the per-table device clock skew (signed ms) and fairness verdict (each statistic's
 * test, p-value, verdict; layout 3) are the report's. axe on both pages, no error logged; screenshots `closes`, `close-day`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { APIRequestContext } from '@playwright/test';
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';
import { gamingDayOf, type GamingDayRule } from '../../apps/console/src/lib/zoned';
import { formatInstant } from '../../apps/console/src/lib/time';

interface Close {
  closeId: string;
  closedAt: string;
  gamingDay: string;
  tableIds: string[];
  keyId: string;
  sha256: string;
  bytes: string;
  report: {
    gamingDayRule: GamingDayRule;
    totals: unknown[];
    adjustments: { eventId: string }[];
    clockSkew?: { tableId: string; largest: { skewMs: number } | null }[];
    fairness?: { tableId: string; statistics: { statistic: string; pValue: string; alert: boolean }[] }[];
  };
}

/** The gaming day before today's, closed by a pit manager unless it already is (the sweeper may have closed it). */
async function closeYesterday(pm: APIRequestContext, rule: GamingDayRule): Promise<string> {
  const today = gamingDayOf(Date.now(), rule);
  const day = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = await pm.post(`/gaming-days/${day}/close`, { data: {} });
    if (r.status() === 201) return day;
    const code = ((await r.json()) as { error: { code: string } }).error.code;
    if (code === 'GAMING_DAY.ALREADY_CLOSED') return day;
    expect(code, `closing ${day}: ${r.status()}`).toBe('ASOF.NOT_PROJECTED');
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error(`gaming day ${day} could not be closed`);
}

test("today's gaming day in the header, the closes list and a day's signed report equal the API", async ({ page, signIn, apiAs }) => {
  test.setTimeout(120_000);
  const pm = await apiAs('pit-manager', 'pm-1');
  const me = (await (await pm.get('/me')).json()) as { gamingDay: GamingDayRule };
  const day = await closeYesterday(pm, me.gamingDay);

  const { api } = await signIn(page, 'auditor', 'auditor-1');
  await expect(page.getByTestId('gaming-day')).toContainText(`Gaming day ${gamingDayOf(Date.now(), me.gamingDay)}`);
  await expect(page.getByTestId('gaming-day')).toContainText(me.gamingDay.timeZone);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Closes' }).click();
  await expect(page).toHaveURL(/\/console\/closes$/);
  const list = (await (await api.get('/gaming-days/closes')).json()) as { items: Close[]; refused: unknown[] };
  expect(list.items.length).toBeGreaterThan(0);
  const rows = page.getByTestId('closes').locator('tbody tr');
  await expect(rows).toHaveCount(list.items.length);
  await expect(page.getByTestId('closes').locator('tbody tr td:first-child')).toHaveText(list.items.map((c) => c.gamingDay));
  // one date format: a time is its gaming day's date format (YYYY-MM-DD) with the time and zone
  const closedAt = list.items.map((c) => formatInstant(c.closedAt, me.gamingDay.timeZone));
  for (const t of closedAt) expect(t).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
  await expect(page.getByTestId('closes').locator('tbody tr td:nth-child(4)')).toHaveText(closedAt);
  await expect(page.getByTestId('signature-status')).toHaveText(list.items.map((c) => `signature verified by the API (${c.keyId})`));
  await expect(page.getByTestId('refused')).toHaveCount(list.refused.length === 0 ? 0 : 1);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'closes');

  await page.getByRole('link', { name: day, exact: true }).first().click();
  await expect(page).toHaveURL(new RegExp(`/console/closes/${day}$`));
  const answer = (await (await api.get(`/gaming-days/${day}/close`)).json()) as { closes: Close[] };
  const sections = page.getByTestId('close');
  await expect(sections).toHaveCount(answer.closes.length);
  const close = answer.closes[0];
  const section = sections.first();
  await expect(section.getByTestId('sha256')).toHaveText(close.sha256);
  await expect(section.getByTestId('close-rule')).toContainText(close.report.gamingDayRule.timeZone);
  await expect(section.getByTestId('signature-status')).toHaveText(`signature verified by the API (${close.keyId})`);
  if (close.report.adjustments.length === 0) await expect(section.getByText('This close carries no adjustment.')).toBeVisible();
  else await expect(section.getByTestId('adjustments').locator('tbody tr')).toHaveCount(close.report.adjustments.length);

  // per table: the largest device clock skew (signed ms) and the fairness verdict, as the report states them
  if (close.report.clockSkew) await expect(section.getByTestId('close-clock-skew').locator('tbody tr')).toHaveCount(close.report.clockSkew.length);
  else await expect(section.getByText(/before closes stated the clock skew/)).toBeVisible();
  if (close.report.fairness) {
    const lines = close.report.fairness.flatMap((f) => (f.statistics.length === 0 ? [{ tableId: f.tableId, statistic: '–', pValue: '–', alert: false }] : f.statistics.map((st) => ({ tableId: f.tableId, ...st }))));
    const fairness = section.getByTestId('close-fairness').locator('tbody tr');
    await expect(fairness).toHaveCount(lines.length);
    await expect(fairness.locator('td:nth-child(3)')).toHaveText(lines.map((l) => l.statistic));
    await expect(fairness.locator('td:nth-child(5)')).toHaveText(lines.map((l) => l.pValue));
    await expect(fairness.locator('td:nth-child(7)')).toHaveText(lines.map((l) => (l.alert ? 'ALERT' : 'within bounds')));
  } else await expect(section.getByText(/before closes stated the fairness verdict/)).toBeVisible();

  // the raw download: the exact signed bytes, whose SHA-256 is the close's
  const [raw] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download the signed bytes' }).click()]);
  const bytes = readFileSync((await raw.path())!);
  expect(bytes.toString('utf8')).toBe(close.bytes);
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(close.sha256);
  const apiRaw = await api.get(`/gaming-days/${day}/close?format=raw&tableId=${encodeURIComponent(close.tableIds[0])}`);
  expect(apiRaw.headers()['x-report-sha256']).toBe(close.sha256);

  // the CSV download: the API's own
  const [csv] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: /Download CSV/ }).click()]);
  expect(readFileSync((await csv.path())!, 'utf8')).toBe(await (await api.get(`/gaming-days/${day}/close?format=csv`)).text());

  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'close-day');
});
