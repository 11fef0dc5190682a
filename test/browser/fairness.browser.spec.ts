/**
 * The fairness page (docs/fairness.md): an auditor picks a table and a gaming day; the page shows,
 * per scope (the table's day, each shoe, each dealer) and per statistic, the observed counts the API
 * answers (`GET /statistics/fairness`) against their exact expectations, with the verdict the API
 * gives; the address carries the filters. axe on the page; screenshot `fairness`.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';

type Report = {
  alert: boolean;
  scopes: { kind: string; rounds: number; statistics: { statistic: string; alert: boolean; categories: { category: string; observed: number }[] }[] }[];
};

async function fairness(api: APIRequestContext, query: string): Promise<Report> {
  const r = await api.get(`/statistics/fairness?${query}`);
  expect(r.status(), await r.text()).toBe(200);
  return r.json();
}

test('the fairness page shows the API’s observed counts and verdict for a table’s gaming day', async ({ page, signIn, apiAs }) => {
  test.setTimeout(120_000);
  await signIn(page, 'auditor', 'auditor-1');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fairness' }).click();
  await expect(page).toHaveURL(/\/console\/fairness$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Fairness statistics' })).toBeVisible();

  // the day the form offers is the current gaming day, when the setup dealt its shoes
  await page.getByRole('combobox', { name: 'Table' }).selectOption('T-CLASSIC-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/console\/fairness\?tableId=T-CLASSIC-01&gamingDay=\d{4}-\d{2}-\d{2}$/);
  const query = new URL(page.url()).search.slice(1);
  const report = await fairness(await apiAs('auditor', 'auditor-fairness'), query);
  const day = report.scopes[0];
  expect(day.rounds).toBeGreaterThan(0);

  await expect(page.getByTestId('fairness-verdict')).toHaveAttribute('data-alert', String(report.alert));
  await expect(page.getByRole('heading', { level: 2 })).toHaveCount(report.scopes.length);
  await expect(page.getByRole('heading', { level: 2 }).first()).toHaveText(`The table’s gaming day · ${day.rounds} rounds`);
  const daySection = page.getByRole('region', { name: 'The table’s gaming day' });
  for (const s of day.statistics) {
    const table = daySection.getByTestId(`statistic-${s.statistic}`);
    await expect(table).toHaveAttribute('data-alert', String(s.alert));
    await expect(table.locator('tbody tr')).toHaveCount(s.categories.length);
    for (const [i, c] of s.categories.entries()) {
      const row = table.locator('tbody tr').nth(i);
      await expect(row.locator('th')).toHaveText(c.category);
      await expect(row.locator('td').first()).toHaveText(String(c.observed));
    }
  }
  await page.reload();
  await expect(page.getByTestId('fairness-verdict')).toHaveAttribute('data-alert', String(report.alert));
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'fairness');
});
