/**
 * Signing in to the console per role (README "Tests", the browser tier), against the real
 * API serving the console at /console: each role gets the navigation its token allows (NAV of
 * apps/console/src/App.tsx: every role Tables and Topics; pit managers and auditors also Approvals, Significant events,
 * Reconciliation, Closes, Staff, Fairness, Wallet, Audit and Exports) and the "who" label the API's `GET /me` answers; a bad token shows the
 * API's error code and stays on the sign-in page; the sign-in page has no serious accessibility
 * violation.
 */
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, expectNoSeriousA11yViolations, mintConsoleToken, screenshotPage, test, type ConsoleRole } from './support/fixtures';

const EVERY_ROLE = ['Tables', 'Topics'];
const BACK_OFFICE = ['Tables', 'Approvals', 'Significant events', 'Reconciliation', 'Closes', 'Staff', 'Fairness', 'Wallet', 'Audit', 'Exports', 'Topics'];
const CASES: readonly { role: ConsoleRole; sub: string; tables?: string[]; nav: string[] }[] = [
  { role: 'table-device', sub: 'device-1', tables: ['T-CLASSIC-01'], nav: EVERY_ROLE },
  { role: 'betting-platform', sub: 'platform-1', nav: EVERY_ROLE },
  { role: 'pit-manager', sub: 'pm-1', nav: BACK_OFFICE },
  { role: 'auditor', sub: 'auditor-1', nav: BACK_OFFICE },
];

for (const c of CASES) {
  test(`${/^[aeiou]/.test(c.role) ? 'an' : 'a'} ${c.role} signs in and sees the navigation of the role`, async ({ page, signIn }) => {
    const { api } = await signIn(page, c.role, c.sub, c.tables);
    await expect(page).toHaveURL(/\/console\/tables$/);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link')).toHaveText(c.nav);
    // the label says who the API says the token belongs to
    const me = await api.get('/me');
    expect(me.status(), 'GET /me with the same token').toBe(200);
    const principal = (await me.json()) as { sub: string; role: string };
    expect(principal).toMatchObject({ sub: c.sub, role: c.role });
    await expect(page.getByTestId('who')).toHaveText(`${principal.sub} · ${principal.role}`);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });
}

test('a bad token shows the API error code and stays on the sign-in page', async ({ page, request, pageErrors }) => {
  // the console asks the API who the bad tokens are: refused on purpose
  pageErrors.allow(/\b401\b.*\/me\b/);
  // well-formed and signed, but not with the API's key; then not a token at all
  const forged = mintConsoleToken('pit-manager', 'pm-1').replace(/\.[^.]+$/, '.c2lnbmF0dXJlLW9mLWFub3RoZXIta2V5');
  for (const token of [forged, 'not-a-token']) {
    const answer = await request.get('/me', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status()).toBe(401);
    const code = ((await answer.json()) as { error: { code: string } }).error.code;
    expect(code).toMatch(/^AUTH\./);
    await page.goto('/console/sign-in');
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText(code);
    await expect(page).toHaveURL(/\/console\/sign-in$/);
    await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  }
});

test('the sign-in page has no serious accessibility violation', async ({ page }) => {
  await page.goto('/console/sign-in');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByLabel('Token')).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'sign-in');
});

test("the sign-in hint's command mints a token that signs in, as a newcomer would paste it into a shell", async ({ page }) => {
  await page.goto('/console/sign-in');
  const command = (await page.locator('code').filter({ hasText: 'npm run -s token' }).first().textContent())!.trim();
  // run as printed, from a shell whose environment does not already say development mode
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'LEDGER_ENV'));
  const token = execSync(command, { cwd: join(__dirname, '../..'), env, shell: '/bin/bash', encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/console\/tables$/);
});

test('the console has an icon: no request fails and nothing is logged as an error while a page loads', async ({ page }) => {
  const failed: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') failed.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.goto('/console/sign-in');
  await expect(page.getByLabel('Token')).toBeVisible();
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  expect(icon).toBe('/console/favicon.svg');
  expect((await page.request.get(icon!)).status()).toBe(200);
  await page.waitForLoadState('networkidle');
  expect(failed).toEqual([]);
});
