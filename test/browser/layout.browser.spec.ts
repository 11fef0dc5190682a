/**
 * No page runs off the right edge at 1280 px (the console's narrowest desktop width): on every page of
 * the console (Tables, a shoe, a round's recall, Approvals, Reconciliation, Staff, Wallet, Audit,
 * Closes, a day's close, Exports, Topics) the document is no wider than the viewport, and the Reconciliation (by table and
 * currency, by table, day and currency) and Staff (dealers, shifts, pit managers) tables fit whole,
 * without scrolling sideways; no error logged.
 */
import type { Page } from '@playwright/test';
import { expect, test, type BrowserStack } from './support/fixtures';

/** A page is ready when its heading shows. */
const heading = async (p: Page) => expect(p.getByRole('heading', { level: 1 })).toBeVisible();

/**
 * Every page of the console (the seeded classic shoe and its voided round for the shoe and recall
 * pages, the first closed gaming day the API lists, if any, for a day's close) and, for
 * Reconciliation and Staff, whether their tables also fit without scrolling sideways (`fits`); a
 * report grouped by all five dimensions (18 columns) scrolls inside its region. A `live` page keeps
 * its stream of table events open (the network is never idle): it is measured once its data shows.
 */
const pagesOf = (stack: BrowserStack, closedDay: string | undefined): readonly { path: string; fits?: boolean; live?: boolean; ready: (page: Page) => Promise<void> }[] => [
  { path: '/console/tables', live: true, ready: async (p) => expect(p.getByTestId('shoe-link').first()).toBeVisible() },
  { path: `/console/shoes/${encodeURIComponent(stack.classic.shoeId)}`, live: true, ready: async (p) => expect(p.getByTestId('rounds').locator('tbody tr').first()).toBeVisible() },
  { path: `/console/shoes/${encodeURIComponent(stack.classic.shoeId)}/rounds/${encodeURIComponent(stack.classic.voidedRoundId)}`, ready: heading },
  { path: '/console/approvals', ready: heading },
  { path: '/console/reconciliation?groupBy=table%2Cshoe%2Cdealer%2Cday%2Ccurrency', ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/reconciliation?groupBy=table%2Cday%2Ccurrency', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/reconciliation', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/staff', fits: true, ready: async (p) => expect(p.locator('table.data tbody tr').first()).toBeVisible() },
  { path: '/console/staff?groupBy=shift', fits: true, ready: async (p) => expect(p.locator('table.data').first()).toBeVisible() },
  { path: '/console/staff?groupBy=pitManager', fits: true, ready: async (p) => expect(p.locator('table.data').first()).toBeVisible() },
  { path: '/console/closes', ready: heading },
  ...(closedDay ? [{ path: `/console/closes/${closedDay}`, ready: heading }] : []),
  { path: '/console/exports', ready: heading },
  { path: '/console/wallet', ready: heading },
  { path: '/console/audit', ready: heading },
  { path: '/console/topics', ready: heading },
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

test('no back-office page is wider than a 1280 px viewport', async ({ page, signIn, stack }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const closes = (await (await api.get('/gaming-days/closes')).json()) as { items: { gamingDay: string }[] };
  for (const p of pagesOf(stack, closes.items[0]?.gamingDay)) {
    await page.goto(p.path);
    await p.ready(page);
    if (!p.live) await page.waitForLoadState('networkidle');
    const o = await overflow(page);
    expect(o.scrollWidth, `${p.path} is ${o.scrollWidth} px wide: ${o.offenders.join(', ')}`).toBeLessThanOrEqual(1280);
    if (p.fits) expect.soft(o.tables, `${p.path}: tables wider than the page`).toEqual([]);
  }
});
