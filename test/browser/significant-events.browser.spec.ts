/**
 * The significant-events page (docs/significant-events.md): the setup's correction on T-CLASSIC-01
 * (requested by pm-1, approved by pm-2) is raised by the API's monitor as `RESULT.CORRECTED`; the
 * page lists it as the API does; pm-1, who had a hand in it, is refused its acknowledgement with the
 * API's code (`MANAGEMENT.SAME_APPROVER`); pm-3 acknowledges it with a reason, and it leaves the
 * "not yet acknowledged" list for the "yes" one, acknowledged by pm-3. axe on the page; screenshot
 * `significant-events`.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';

type Item = { significantEventId: string; code: string; tableId: string | null; roundId: string | null; acknowledgedBy: string | null };

async function list(api: APIRequestContext, query: string): Promise<Item[]> {
  const r = await api.get(`/significant-events?${query}`);
  expect(r.status(), await r.text()).toBe(200);
  return ((await r.json()) as { items: Item[] }).items;
}

test('a correction is listed as the API raised it; the manager who requested it cannot acknowledge it, another can', async ({ page, signIn, apiAs, browser, stack, pageErrors }) => {
  test.setTimeout(120_000);
  const api = await apiAs('auditor', 'auditor-significant');
  // the monitor raises what the setup did shortly after it (a consumer of the ledger topic)
  let corrected: Item | undefined;
  await expect.poll(async () => (corrected = (await list(api, 'code=RESULT.CORRECTED&tableId=T-CLASSIC-01&acknowledged=false'))[0])?.significantEventId ?? null, { timeout: 30_000 }).not.toBeNull();
  const roundId = corrected!.roundId!;

  await signIn(page, 'pit-manager', 'pm-1');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Significant events' }).click();
  await expect(page).toHaveURL(/\/console\/significant-events$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Significant events' })).toBeVisible();
  const open = await list(api, 'acknowledged=false&limit=200');
  const table = page.getByTestId('significant-events');
  await expect(table.locator('tbody tr')).toHaveCount(open.length);
  const row = table.locator('tbody tr').filter({ hasText: 'RESULT.CORRECTED' }).filter({ hasText: roundId });
  await expect(row).toHaveCount(1);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'significant-events');

  // pm-1 requested the correction: the API refuses, the page says why
  pageErrors.allow(/\b422\b.*\/significant-events\/[^/\s]+\/acknowledgements\b/);
  await row.getByLabel('Reason').fill('checked the cards on camera');
  await row.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(row).toContainText('MANAGEMENT.SAME_APPROVER');
  expect((await list(api, 'code=RESULT.CORRECTED&acknowledged=true')).map((i) => i.significantEventId)).not.toContain(corrected!.significantEventId);

  // pm-3 had no hand in it: in a browser context of their own
  const context = await browser.newContext({ baseURL: stack.baseUrl });
  pageErrors.watch(context);
  const page3 = await context.newPage();
  await signIn(page3, 'pit-manager', 'pm-3');
  await page3.goto('/console/significant-events');
  const again = page3.getByTestId('significant-events').locator('tbody tr').filter({ hasText: 'RESULT.CORRECTED' }).filter({ hasText: roundId });
  await again.getByLabel('Reason').fill('checked the cards on camera');
  await again.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(again).toHaveCount(0);
  // the row leaves the open list as soon as the ledger holds the acknowledgement; the read model that
  // chooses the acknowledged pages follows within the projector's lag
  await expect.poll(async () => (await list(api, 'code=RESULT.CORRECTED&acknowledged=true')).find((i) => i.significantEventId === corrected!.significantEventId)?.acknowledgedBy).toBe('pm-3');
  await page3.getByRole('combobox', { name: 'Acknowledged' }).selectOption('true');
  await page3.getByRole('button', { name: 'Show' }).click();
  await expect(page3.getByTestId('significant-events').locator('tbody tr').filter({ hasText: roundId }).filter({ hasText: 'by pm-3' })).toHaveCount(1);
  await context.close();
});
