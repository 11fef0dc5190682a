/**
 * What a browser scenario (`test/browser/*.browser.spec.ts`) imports instead of `@playwright/test`:
 *
 *   import { test, expect, expectNoSeriousA11yViolations, screenshotPage } from './support/fixtures';
 *   test('…', async ({ page, stack, signIn }) => {
 *     const { api } = await signIn(page, 'pit-manager', 'pm-1');
 *     await page.goto(`/console/shoes/${stack.classic.shoeId}`);
 *     const rounds = await (await api.get(`/shoes/${stack.classic.shoeId}/rounds`)).json();
 *     …compare the page with the API's answer…
 *     await expectNoSeriousA11yViolations(page);
 *     await screenshotPage(page, 'shoe');
 *   });
 *
 * Fixtures: `stack` (what the global setup started and seeded: ./stack-file.ts), `baseURL` (the
 * API of this run, which serves the console at /console), `signIn(page, role, sub, tables?)` and
 * `apiAs(role, sub, tables?)`, and, in every test without asking, `pageErrors`: a test fails when its
 * browser logged an error or a request failed (4xx/5xx, no answer) unless it declared that error with
 * `pageErrors.allow(/…/)`. Tokens are real: minted with `mintToken` of `@ledger/tokens` and the
 * development secret, as `npm run -s token` mints them (scripts/mint-token.ts).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, request, test as base, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import { mintConsoleToken, signInWithToken, type ConsoleRole } from './tokens';
import { readStack, type BrowserStack } from './stack-file';

export { expect } from '@playwright/test';
export { screenshotPage, VIEWPORTS } from './screenshots';
export { dealRounds } from './seed';
export { shoeOf, type BrowserStack } from './stack-file';
export { mintConsoleToken, ROLES, signInWithToken, type ConsoleRole } from './tokens';

/** What {@link Fixtures.signIn} resolves. */
export interface SignedIn {
  readonly token: string;
  /** An HTTP client of the API with the same token (disposed after the test). */
  readonly api: APIRequestContext;
}

/** The fixtures of the browser tier. */
export interface Fixtures {
  /**
   * Signs `page` in as `role`/`sub` the way a user does: mints a real token, opens
   * `/console/sign-in`, pastes it into the "Token" field, clicks "Sign in" and waits until the
   * console has left the sign-in page. Resolves the token and an `api` client for the same token.
   */
  signIn: (page: Page, role: ConsoleRole, sub: string, tables?: readonly string[]) => Promise<SignedIn>;
  /** An HTTP client of this run's API with a token for `role`/`sub`: what the API answers that role. Disposed after the test. */
  apiAs: (role: ConsoleRole, sub: string, tables?: readonly string[]) => Promise<APIRequestContext>;
  /**
   * Automatic, in every browser scenario: collects what the test's browser context logs as an error
   * (`console.error`, an uncaught exception, a request that failed or was answered 4xx/5xx) and fails
   * the test at its end if anything was collected. A scenario that provokes an error on purpose
   * declares it: `pageErrors.allow(/404 .*\/shoes\/SHOE-NOPE/)`; a page of another context
   * (`browser.newContext()`) is watched after `pageErrors.watch(context)`.
   */
  pageErrors: PageErrors;
}

/** What the automatic {@link Fixtures.pageErrors} fixture resolves. */
export interface PageErrors {
  /** The errors collected so far (`console: …`, `uncaught: …`, `failed: …`, `<status> <method> <url>`). */
  readonly errors: readonly string[];
  /** Errors matching one of `patterns` are expected by the scenario and do not fail it. */
  allow: (...patterns: RegExp[]) => void;
  /** Watches another browser context too (one the scenario made with `browser.newContext()`). */
  watch: (context: BrowserContext) => void;
}

/** Worker-scoped fixtures. */
export interface WorkerFixtures {
  /**
   * `.stack/browser/stack.json` as the worker started: the API's address, the seeded shoes, the voided
   * and corrected rounds. Rounds dealt later by `dealRounds` are in its answer and in `readStack()`.
   */
  stack: BrowserStack;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  stack: [async ({}, use) => use(readStack()), { scope: 'worker' }],
  baseURL: async ({ stack }, use) => use(stack.baseUrl),
  apiAs: async ({ stack }, use) => {
    const made: APIRequestContext[] = [];
    await use(async (role, sub, tables) => {
      const ctx = await request.newContext({ baseURL: stack.baseUrl, extraHTTPHeaders: { authorization: `Bearer ${mintConsoleToken(role, sub, tables)}` } });
      made.push(ctx);
      return ctx;
    });
    for (const c of made) await c.dispose();
  },
  pageErrors: [
    async ({ context }, use, testInfo) => {
      const errors: string[] = [];
      const allowed: RegExp[] = [];
      const watch = (c: BrowserContext) => watchContextErrors(c, errors);
      watch(context);
      await use({ errors, allow: (...patterns) => allowed.push(...patterns), watch });
      const unexpected = errors.filter((e) => !allowed.some((a) => a.test(e)));
      if (errors.length) await testInfo.attach('page errors', { body: errors.join('\n'), contentType: 'text/plain' });
      if (testInfo.status === testInfo.expectedStatus) expect(unexpected, 'errors logged or requests failed in the browser (pageErrors.allow(...) the expected ones)').toEqual([]);
    },
    { auto: true },
  ],
  signIn: async ({ apiAs }, use) => {
    await use(async (page, role, sub, tables) => {
      const token = mintConsoleToken(role, sub, tables);
      await signInWithToken(page, token);
      await expect(page, 'the console leaves the sign-in page once the API accepted the token').not.toHaveURL(/\/console\/sign-in/);
      return { token, api: await apiAs(role, sub, tables) };
    });
  },
});

/** Options of {@link expectNoSeriousA11yViolations}. */
export interface A11yOptions {
  /** CSS selectors left out of the check (a third-party widget the console does not control). */
  readonly exclude?: readonly string[];
}

/**
 * Runs axe-core (`@axe-core/playwright`, every rule of its default set) on the page as it is and
 * fails listing each violation of impact `serious` or `critical` (rule, impact, help, the first
 * nodes' selectors); `minor` and `moderate` ones are attached to the report but do not fail.
 */
export async function expectNoSeriousA11yViolations(page: Page, options: A11yOptions = {}): Promise<void> {
  let builder = new AxeBuilder({ page });
  for (const s of options.exclude ?? []) builder = builder.exclude(s);
  const results = await builder.analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const described = (vs: typeof results.violations) =>
    vs
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n    ${v.nodes
            .slice(0, 5)
            .map((n) => n.target.join(' '))
            .join('\n    ')}`,
      )
      .join('\n');
  const info = test.info();
  if (results.violations.length) await info.attach(`axe ${new URL(page.url()).pathname}`, { body: described(results.violations), contentType: 'text/plain' });
  expect(serious, `serious or critical accessibility violations on ${page.url()}:\n${described(serious)}`).toEqual([]);
}

/**
 * Collects into `errors` what the pages of `context` log as an error (`console.error` with the
 * resource it names, an uncaught exception), the requests that failed (no answer) and those answered
 * with a status of 400 or more (`<status> <method> <url>`).
 */
export function watchContextErrors(context: BrowserContext, errors: string[]): void {
  context.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}${m.location().url ? ` (${m.location().url})` : ''}`);
  });
  context.on('weberror', (e) => errors.push(`uncaught: ${e.error().message}`));
  context.on('requestfailed', (r) => {
    // a navigation or a fetch the page itself abandoned (a route left, a download) is no failure
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') errors.push(`failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText ?? ''}`);
  });
  context.on('response', (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
}
