/**
 * Tables page (`/console/tables`, apps/console/README.md "Pages"): every table with its variant, open shoe, hand
 * number, cards left, last results and the bead plate and big road in miniature, compared with the
 * API's own answer (`GET /tables/overview`); live: a round dealt through the API while the page is
 * open appears without a reload, through `GET /live/tables` (no polling loop).
 */
import { dealRounds, expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';

interface Overview {
  tables: { tableId: string; name: string; variant: string; shoe: { shoeId: string; handNumber: number; cardsRemaining: number } | null; lastResults: { handNumber: number }[]; beadPlate: unknown[] }[];
}

test('a pit manager sees every table with its shoe, results and roads, updated live when a round is dealt', async ({ page, signIn }) => {
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const overviewCalls: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/tables/overview') overviewCalls.push(r.url());
  });
  await page.goto('/console/tables');
  await expect(page.getByRole('heading', { level: 1, name: 'Tables' })).toBeVisible();
  const overview = (await (await api.get('/tables/overview')).json()) as Overview;
  expect(overview.tables.length).toBeGreaterThan(0);
  await expect(page.getByTestId('table-card')).toHaveCount(overview.tables.length);
  for (const t of overview.tables) {
    const card = page.locator(`[data-testid="table-card"][data-table-id="${t.tableId}"]`);
    await expect(card.getByRole('heading', { name: t.name })).toBeVisible();
    await expect(card).toContainText(t.variant);
    expect(t.shoe, `${t.tableId} has a seeded shoe`).not.toBeNull();
    await expect(card.getByTestId('shoe-link')).toHaveText(t.shoe!.shoeId);
    await expect(card.getByTestId('hand-number')).toHaveText(String(t.shoe!.handNumber));
    await expect(card.getByTestId('cards-left')).toHaveText(String(t.shoe!.cardsRemaining));
    await expect(card.getByTestId('last-results').locator('li')).toHaveCount(t.lastResults.length);
    await expect(card.getByRole('img', { name: /^Bead plate/ })).toBeVisible();
    await expect(card.getByRole('img', { name: /^Big road/ })).toBeVisible();
    await expect(card.locator('[data-testid="road-bead-plate"] g[data-result]')).toHaveCount(t.beadPlate.length);
  }
  await expect(page.getByTestId('live')).toHaveAttribute('data-state', 'connected');

  // no polling: left alone, the page does not read the overview again
  const callsBefore = overviewCalls.length;
  await page.waitForTimeout(2_500);
  expect(overviewCalls.length, 'no request of GET /tables/overview without a live event').toBe(callsBefore);

  // a round dealt through the API while the page is open
  const target = overview.tables.find((t) => t.tableId === 'T-TIGER-01') ?? overview.tables[0];
  const card = page.locator(`[data-testid="table-card"][data-table-id="${target.tableId}"]`);
  const before = target.shoe!.handNumber;
  const beadsBefore = target.beadPlate.length;
  const [newRound] = await dealRounds(target.tableId, 1);
  expect(newRound).toBeTruthy();
  await expect(card.getByTestId('hand-number'), 'the hand number changes without a reload').toHaveText(String(before + 1));
  const after = ((await (await api.get('/tables/overview')).json()) as Overview).tables.find((t) => t.tableId === target.tableId)!;
  await expect(card.getByTestId('last-results').locator('li').last()).toHaveAttribute('aria-label', new RegExp(`^hand ${after.lastResults[0].handNumber}:`));
  await expect(card.locator('[data-testid="road-bead-plate"] g[data-result]')).toHaveCount(after.beadPlate.length);
  expect(after.beadPlate.length).toBeGreaterThanOrEqual(beadsBefore);
  await expect(card.getByTestId('cards-left')).toHaveText(String(after.shoe!.cardsRemaining));
  expect(overviewCalls.length, 'the live event made the page read the overview again').toBeGreaterThan(callsBefore);

  await expectNoSeriousA11yViolations(page);
  await page.setViewportSize({ width: 768, height: 1024 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no horizontal page scroll at 768').toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshotPage(page, 'tables');
});

test('a table device sees the tables’ configuration only: no roads, and why', async ({ page, signIn }) => {
  const { api } = await signIn(page, 'table-device', 'device-1', ['T-CLASSIC-01']);
  await page.goto('/console/tables');
  const config = (await (await api.get('/tables')).json()) as { tables: { tableId: string; name: string }[] };
  await expect(page.getByTestId('table-card')).toHaveCount(config.tables.length);
  await expect(page.getByText(/need an audit role/)).toBeVisible();
  await expect(page.getByRole('img', { name: /^Big road/ })).toHaveCount(0);
  await expect(page.getByTestId('live')).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'tables-device');
});
