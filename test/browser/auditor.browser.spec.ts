/**
 * An auditor is offered no write action (the console's roles in the interface and browser scenarios): on
 * every page of the console — tables, a shoe, a voided round's recall, approvals (pending, with a
 * decision waiting, and decided), reconciliation, every audit tab, topics — no approve, reject,
 * request, void or correct control exists (buttons, links or forms), while the reads still work;
 * and the API refuses the auditor's approval anyway (403). axe on each page; screenshots
 * `auditor-<page>`.
 */
import type { Page } from '@playwright/test';
import { dealRounds, expect, expectNoSeriousA11yViolations, screenshotPage, shoeOf, test } from './support/fixtures';

/** Names of controls that would change the ledger. */
const WRITE = /\b(approve|reject|request|void|correct|confirm|deal|close shoe|open shoe|place bets?)\b/i;

/** Fails when the page offers any control whose accessible name looks like a write. */
async function expectNoWriteAction(page: Page, where: string): Promise<void> {
  // a string: the specs are compiled without the DOM's types (as support/screenshots.ts does)
  const names = (await page.evaluate(`(() => {
    const out = [];
    for (const el of Array.from(document.querySelectorAll('button, [role="button"], input[type="submit"], input[type="button"], a[href], form'))) {
      out.push(el.tagName.toLowerCase() + ': ' + (el.getAttribute('aria-label') || el.innerText || el.value || '').trim());
    }
    return out;
  })()`)) as string[];
  const writes = names.filter((n) => WRITE.test(n.replace(/^[a-z]+: /, '')) && !/^a: /.test(n));
  expect(writes, `write controls offered to an auditor on ${where}`).toEqual([]);
  await expect(page.locator('form[method="post" i]')).toHaveCount(0);
}

test('an auditor is offered no write action on any page', async ({ page, signIn, apiAs, stack }) => {
  // every page at two sizes with an axe scan each: 1.2 min alone on this machine, over 3 min in a CI run of the whole tier
  test.setTimeout(480_000);
  const shoe = shoeOf(stack, 'T-CLASSIC-01');
  // a decision waiting for approval, so the Approvals page has something an approver could act on
  const pm1 = await apiAs('pit-manager', 'pm-1');
  const [roundId] = await dealRounds('T-CLASSIC-01', 1);
  const requested = await pm1.post(`/shoes/${encodeURIComponent(shoe.shoeId)}/rounds/${encodeURIComponent(roundId)}/void`, { data: { reason: 'browser test: left pending for the auditor' } });
  expect(requested.status(), await requested.text()).toBe(202);
  const { decisionId } = (await requested.json()) as { decisionId: string };

  const { api } = await signIn(page, 'auditor', 'auditor-1');
  const visits: { path: string; name: string; ready: (p: Page) => Promise<void> }[] = [
    { path: '/console/tables', name: 'tables', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
    { path: `/console/shoes/${encodeURIComponent(shoe.shoeId)}`, name: 'shoe', ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible() },
    {
      path: `/console/shoes/${encodeURIComponent(stack.classic.shoeId)}/rounds/${encodeURIComponent(stack.classic.voidedRoundId)}`,
      name: 'recall',
      ready: async (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible(),
    },
    {
      path: '/console/approvals',
      name: 'approvals',
      ready: async (p) => {
        const card = p.getByTestId(`decision-${decisionId}`);
        await expect(card).toBeVisible();
        await expect(card.getByRole('button')).toHaveCount(0);
        await expect(p.getByText('sees the decisions read-only')).toBeVisible();
      },
    },
    { path: '/console/approvals?tab=decided', name: 'approvals-decided', ready: async (p) => expect(p.getByTestId('decisions')).toBeVisible() },
    { path: '/console/reconciliation', name: 'reconciliation', ready: async (p) => expect(p.getByTestId('report')).toBeVisible() },
    { path: '/console/staff', name: 'staff', ready: async (p) => expect(p.getByTestId('staff')).toBeVisible() },
    { path: '/console/audit?tab=events', name: 'audit-events', ready: async (p) => expect(p.getByTestId('audit-events')).toBeVisible() },
    { path: '/console/audit?tab=decisions', name: 'audit-decisions', ready: async (p) => expect(p.getByTestId('audit-decisions')).toBeVisible() },
    { path: '/console/audit?tab=access', name: 'audit-access', ready: async (p) => expect(p.getByTestId('audit-access')).toBeVisible() },
    { path: '/console/audit?tab=chain', name: 'audit-chain', ready: async (p) => expect(p.getByRole('button', { name: 'Verify chain' })).toBeVisible() },
    { path: '/console/topics', name: 'topics', ready: async (p) => expect(p.getByTestId('channel-ledgerEvents')).toContainText('baccarat.ledger.events.v1') },
  ];
  for (const v of visits) {
    await page.goto(v.path);
    await v.ready(page);
    await expectNoWriteAction(page, v.path);
    await expectNoSeriousA11yViolations(page);
    await screenshotPage(page, `auditor-${v.name}`);
  }

  // the reads work for the auditor: the chain verifies on demand
  await page.goto('/console/audit?tab=chain');
  await page.getByLabel('Shoe id').fill(shoe.shoeId);
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await expect(page.getByTestId('chain-result')).toContainText('Chain intact');

  // and the API refuses the auditor's approval anyway
  const refused = await api.post(`/decisions/${decisionId}/approve`, { data: {} });
  expect(refused.status()).toBe(403);

  // leave no decision pending for the other scenarios
  const pm2 = await apiAs('pit-manager', 'pm-2');
  expect((await pm2.post(`/decisions/${decisionId}/reject`, { data: { reason: 'browser test: cleanup after the auditor scenario' } })).status()).toBe(201);
});
