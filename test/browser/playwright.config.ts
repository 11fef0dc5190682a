/**
 * The browser tier (README "Tests"): Playwright (`@playwright/test`, which downloads nothing) driving
 * the system Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium; scripts/ensure-chromium.sh
 * installs it where it is missing) headless against the real API, relay and projector, which the
 * global setup (support/global-setup.ts) starts from `dist/` on a fresh database and seeds.
 *
 *   TEST_TIERS=browser npm test                                  # the tier alone, as CI runs it
 *   npx playwright test -c test/browser/playwright.config.ts [file|-g title]   # after npm run -s build
 *
 * Specs: `test/browser/*.browser.spec.ts` (jest.config.js matches only *.unit|int|e2e|data.spec.ts).
 * One worker (one API, one database), a generous timeout on this 2-core machine, traces and
 * screenshots of failures in `.stack/browser/test-results`, the JSON report in `.stack/browser/results.json`.
 */
import { defineConfig } from '@playwright/test';
import { resolve } from 'node:path';

const stackDir = resolve(__dirname, '../../.stack/browser');

export default defineConfig({
  testDir: __dirname,
  testMatch: '*.browser.spec.ts',
  globalSetup: resolve(__dirname, 'support/global-setup.ts'),
  outputDir: resolve(stackDir, 'test-results'),
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 60_000,
  globalTimeout: 20 * 60_000, // 22+ scenarios take ~2 min here; a loaded machine took over 10
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: resolve(stackDir, 'results.json') }]],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--disable-dev-shm-usage'],
    },
  },
});
