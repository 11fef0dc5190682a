/**
 * The Topics page renders the AsyncAPI document's Markdown (`GET /asyncapi`): the document's
 * description shows its headings as headings, its lists as lists, its tables as tables and its
 * inline code as code, and no Markdown syntax (`## `, `**`, a table's `|---|`) is left as text.
 * axe, no error logged.
 */
import { expect, expectNoSeriousA11yViolations, test } from './support/fixtures';

test("the Topics page renders the document's Markdown, not its source", async ({ page, signIn }) => {
  const { api } = await signIn(page, 'betting-platform', 'platform-1');
  const doc = (await (await api.get('/asyncapi')).json()) as { info: { description: string } };
  const headings = [...doc.info.description.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1].replace(/[`*]/g, '').trim()); // as read: without the inline code's backticks
  expect(headings.length).toBeGreaterThan(0);

  await page.goto('/console/topics');
  await page.getByText('About these topics').click();
  const about = page.locator('details').filter({ hasText: 'About these topics' });
  for (const h of headings) await expect(about.getByRole('heading', { name: h, exact: true })).toBeVisible();
  await expect(about.locator('li code').filter({ hasText: 'baccarat.ledger.events.v1' }).first()).toBeVisible();
  await expect(about.locator('table').first()).toBeVisible();
  const text = await page.locator('main').innerText();
  expect(text).not.toMatch(/^#{1,6} /m);
  expect(text).not.toContain('**');
  expect(text).not.toContain('|---');
  await expectNoSeriousA11yViolations(page);
});
