/**
 * The staff statistics page (docs/reports.md §6) and evidence in recall (docs/reports.md §7): the
 * page's rows are the API's (`GET /statistics/staff`) per dealer, with each dealer's flag as the API
 * says; switching to shifts and pit managers through the filters gives a shareable address with the
 * API's rows; a round voided by a four-eyes decision with evidence shows that evidence on its recall
 * page. axe on the pages; screenshots `staff`, `staff-shifts`, `recall-evidence`.
 */
import type { APIRequestContext } from '@playwright/test';
import { dealRounds, expect, expectNoSeriousA11yViolations, screenshotPage, shoeOf, test } from './support/fixtures';

type StaffRow = { dealerId: string | null; tableId: string | null; shoeId: string | null; rounds: number; voids: number; refusals: number; flagged: boolean };

async function statistics(api: APIRequestContext, query: string): Promise<{ items: StaffRow[]; pitManagers: { managerId: string; decisionsRequested: number }[] }> {
  const r = await api.get(`/statistics/staff?${query}`);
  expect(r.status(), await r.text()).toBe(200);
  return r.json();
}

test('the staff statistics page shows the API rows and flags per dealer, shift and pit manager', async ({ page, signIn, apiAs }) => {
  test.setTimeout(120_000);
  await signIn(page, 'pit-manager', 'pm-1');
  // the API's answers as another caller: the statistics are a heavy read, one at a time per caller
  const api = await apiAs('auditor', 'auditor-staff');
  const byDealer = await statistics(api, 'groupBy=dealer');
  expect(byDealer.items.length).toBeGreaterThan(0);

  await page.getByRole('link', { name: 'Staff' }).click();
  await expect(page).toHaveURL(/\/console\/staff$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Staff statistics' })).toBeVisible();
  const table = page.getByTestId('staff');
  await expect(table.locator('tbody tr')).toHaveCount(byDealer.items.length);
  for (const d of byDealer.items) {
    const row = table.locator(`tbody tr[data-dealer="${d.dealerId}"]`);
    await expect(row.locator('[data-col="rounds"]')).toHaveText(String(d.rounds));
    await expect(row.locator('[data-col="voids"]')).toHaveText(String(d.voids));
    await expect(row.locator('[data-col="refusals"]')).toHaveText(String(d.refusals));
    await expect(row).toHaveAttribute('data-flagged', String(d.flagged));
    await expect(row.getByTestId('test-VOID_RATE')).toBeVisible();
  }
  const flagged = byDealer.items.filter((d) => d.flagged).map((d) => d.dealerId);
  await expect(page.getByTestId('flagged-summary')).toHaveText(flagged.length ? `Flagged: ${flagged.join(', ')}` : 'No dealer is flagged.');
  await expect(page.getByTestId('flag-rule')).toContainText('z ≥ 3 with at least 30 rounds');
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'staff');

  // per shift at the classic table: the address carries the filters
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('shift');
  await page.getByRole('combobox', { name: 'Table' }).selectOption('T-CLASSIC-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/console\/staff\?groupBy=shift&tableId=T-CLASSIC-01$/);
  const shifts = await statistics(api, 'groupBy=shift&tableId=T-CLASSIC-01');
  await expect(page.getByTestId('staff').locator('tbody tr')).toHaveCount(shifts.items.length);
  await expect(page.getByTestId('staff')).toContainText(shifts.items[0].shoeId!);
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Group by' })).toHaveValue('shift');
  await expect(page.getByTestId('staff').locator('tbody tr')).toHaveCount(shifts.items.length);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'staff-shifts');

  // pit managers
  await page.goto('/console/staff?groupBy=pitManager');
  const pms = await statistics(api, 'groupBy=pitManager');
  await expect(page.getByTestId('pit-managers').locator('tbody tr')).toHaveCount(pms.pitManagers.length);
  for (const m of pms.pitManagers) await expect(page.locator(`tr[data-manager="${m.managerId}"] td`).first()).toHaveText(String(m.decisionsRequested));
});

test('a void decided on video evidence shows the evidence on the round recall page', async ({ page, signIn, apiAs, stack }) => {
  test.setTimeout(120_000);
  const shoe = shoeOf(stack, 'T-CLASSIC-01');
  const [roundId] = await dealRounds('T-CLASSIC-01', 1);
  const s = `/shoes/${encodeURIComponent(shoe.shoeId)}`;
  const pm1 = await apiAs('pit-manager', 'pm-1');
  const pm2 = await apiAs('pit-manager', 'pm-2');
  const requested = await pm1.post(`${s}/rounds/${encodeURIComponent(roundId)}/void`, { data: { reason: 'browser test: card misread, video reviewed', evidence: { cameraId: 'CAM-07', timecode: '21:04:10:12' } } });
  expect(requested.status(), await requested.text()).toBe(202);
  const { decisionId } = (await requested.json()) as { decisionId: string };
  const approved = await pm2.post(`/decisions/${encodeURIComponent(decisionId)}/approve`, { data: { evidence: { segmentRef: 'vms://site-1/cam-07/clip-0042' } } });
  expect(approved.status(), await approved.text()).toBe(201);

  const { api } = await signIn(page, 'auditor', 'auditor-1');
  // the projection catches up: poll the recall until the void is there
  await expect.poll(async () => ((await (await api.get(`${s}/rounds/${encodeURIComponent(roundId)}/recall`)).json()) as { round: { status: string } }).round?.status, { timeout: 30_000 }).toBe('VOIDED');
  await page.goto(`/console${s}/rounds/${encodeURIComponent(roundId)}`);
  const decision = page.getByTestId('decision-evidence');
  await expect(decision).toContainText('CAM-07');
  await expect(decision).toContainText('21:04:10:12');
  await expect(decision).toContainText('vms://site-1/cam-07/clip-0042');
  // and on the RoundVoided event the decision carried out
  await expect(page.getByTestId('events').locator('tr[data-type="RoundVoided"]').getByTestId('evidence')).toContainText('CAM-07');
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'recall-evidence');
});
