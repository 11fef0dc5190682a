/**
 * A session that ends by itself is said, not dropped silently: at the token's expiry (`exp`, the
 * `expiresAt` of `GET /me`) the console goes to the sign-in page, which says "Your session expired:
 * sign in again." and keeps where the user was; an expired token left in the tab (a reload) is
 * refused by the API with 401 AUTH.* and the page says the same; a token the API refuses mid-session
 * for another reason is named with the API's code. axe on the sign-in page with the notice.
 */
import { tokensLib } from './support/ledger-dist';
import { expect, expectNoSeriousA11yViolations, signInWithToken, test } from './support/fixtures';

const EXPIRED = 'Your session expired: sign in again.';

/** A real token of the development secret that expires after `ttlSeconds` (negative: expired already). */
function shortToken(ttlSeconds: number): string {
  const { mintToken, hs256Key, jwtSecret } = tokensLib();
  return mintToken({ sub: 'pm-1', role: 'pit-manager' }, hs256Key(jwtSecret({ LEDGER_ENV: 'development' })), { ttlSeconds });
}

test('at the token expiry the console says the session expired and the API refuses the token', async ({ page, request }) => {
  test.setTimeout(120_000);
  const token = shortToken(8);
  await signInWithToken(page, token);
  await page.goto('/console/reconciliation');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/console\/sign-in$/, { timeout: 20_000 });
  await expect(page.getByTestId('session-ended')).toHaveText(EXPIRED);
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  // the API agrees: the token is refused with an AUTH code
  await expect
    .poll(
      async () => {
        const r = await request.get('/me', { headers: { authorization: `Bearer ${token}` } });
        return r.status() === 401 ? ((await r.json()) as { error: { code: string } }).error.code : `HTTP ${r.status()}`;
      },
      { timeout: 60_000 }, // the API's clock tolerance (30 s by default) after exp
    )
    .toMatch(/^AUTH\./);
  await expectNoSeriousA11yViolations(page);
  // signing in again goes back where the user was, and the notice is gone
  await page.getByLabel('Token').fill(shortToken(3600));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/console\/reconciliation$/);
  await expect(page.getByTestId('session-ended')).toHaveCount(0);
});

test('an expired token left in the tab: the API answers 401 AUTH.* and the sign-in page says the session expired', async ({ page, request, pageErrors }) => {
  // the console asks the API who the expired token is: refused on purpose
  pageErrors.allow(/\b401\b.*\/me\b/);
  test.setTimeout(60_000);
  // expired two minutes ago: past the API's clock tolerance (JWT_CLOCK_TOLERANCE_SECONDS, default 30)
  const token = shortToken(-120);
  const answer = await request.get('/me', { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status()).toBe(401);
  expect(((await answer.json()) as { error: { code: string } }).error.code).toMatch(/^AUTH\./);
  await page.addInitScript((t) => sessionStorage.setItem('ledger-console-token', t), token);
  await page.goto('/console/tables');
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await expect(page.getByTestId('session-ended')).toHaveText(EXPIRED);
});

test("a token the API refuses mid-session is named with the API's code", async ({ page, pageErrors }) => {
  // the reports answered 401 by the route below, on purpose
  pageErrors.allow(/\b401\b.*\/reports\/reconciliation\b/);
  await signInWithToken(page, shortToken(3600));
  await page.route('**/reports/reconciliation**', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: { code: 'AUTH.UNAUTHENTICATED', message: 'invalid token: revoked' } }) }));
  await page.goto('/console/reconciliation');
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await expect(page.getByTestId('session-ended')).toHaveText('The API no longer accepts your token (AUTH.UNAUTHENTICATED): sign in again.');
});
