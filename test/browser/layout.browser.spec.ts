/**
 * No page runs off the right edge at 1280 px (the console's narrowest desktop width): on each back-
 * office page the document is no wider than the viewport, and the Reconciliation (by table and
 * currency, by table, day and currency) and Staff (dealers, shifts, pit managers) tables fit whole,
 * without scrolling sideways; no error logged.
 */
import type { Page } from '@playwright/test';
import { expect, test, watchPageErrors } from './support/fixtures';

/**
 * The pages and, for Reconciliation and Staff, whether their tables also fit without scrolling
 * sideways (`fits`); a report grouped by all five dimensions (18 columns) scrolls inside its region.
 */
const PAGES: readonly { path: string; fits?: boolean; ready: (page: Page) => Promise<void> }[] = [
  { path: '/console/reconciliation?groupBy=table%2Cshoe%2Cdealer%2Cday%2Ccurrency', ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/reconciliation?groupBy=table%2Cday%2Ccurrency', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/reconciliation', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/staff', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/staff?groupBy=shift', fits: true, ready: async (p) => expect(p.locator('table.data').first()).toBeVisible() },
  { path: '/console/staff?groupBy=pitManager', fits: true, ready: async (p) => expect(p.locator('table.data').first()).toBeVisible() },
  { path: '/console/closes', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
  { path: '/console/exports', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
  { path: '/console/wallet', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
  { path: '/console/audit', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
];

/** The document's width and, when it is too wide, the elements whose right edge passes the viewport (for the failure message). */
async function overflow(page: Page): Promise<{ scrollWidth: number; offenders: string[]; tables: string[] }> {
  return page.evaluate(() => {
    const limit = document.documentElement.clientWidth;
    const offenders = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > limit + 0.5 && !e.closest('.scroll'))
      .slice(0, 8)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? '.' + String(e.className).replace(/\s+/g, '.') : ''} right=${Math.round(e.getBoundingClientRect().right)}`);
    // a table wider than its region scrolls sideways: its right-hand columns are off the screen too
    const tables = [...document.querySelectorAll('.scroll')].filter((r) => r.scrollWidth > r.clientWidth + 1).map((r) => `region "${r.getAttribute('aria-label')}" ${r.scrollWidth} px in ${r.clientWidth}`);
    return { scrollWidth: document.documentElement.scrollWidth, offenders: [...offenders, ...tables], tables };
  });
}

test('no back-office page is wider than a 1280 px viewport', async ({ page, signIn }) => {
  test.setTimeout(120_000);
  const errors = watchPageErrors(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, 'pit-manager', 'pm-1');
  for (const p of PAGES) {
    await page.goto(p.path);
    await p.ready(page);
    await page.waitForLoadState('networkidle');
    const o = await overflow(page);
    expect(o.scrollWidth, `${p.path} is ${o.scrollWidth} px wide: ${o.offenders.join(', ')}`).toBeLessThanOrEqual(1280);
    if (p.fits) expect.soft(o.tables, `${p.path}: tables wider than the page`).toEqual([]);
  }
  expect(errors).toEqual([]);
});
