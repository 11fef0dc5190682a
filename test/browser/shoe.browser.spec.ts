/**
 * Shoe page (`/console/shoes/:shoeId`, apps/console/README.md "Pages"): the five roads as SVG scoreboards, the
 * rounds with their cards drawn as cards, voided and corrected rounds marked, and the card
 * accounting, every figure compared with the API's answer (`/roads`, `/rounds`, `/state`).
 */
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';

interface Rounds {
  items: { roundId: string; handNumber: number; status: string; playerCards: string[] | null; bankerCards: string[] | null }[];
}

test('a pit manager sees the roads, the rounds card by card and the card accounting of GET /shoes/{id}/state', async ({ page, stack, signIn }) => {
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const shoeId = stack.classic.shoeId;
  await page.goto(`/console/shoes/${shoeId}`);
  await expect(page.getByRole('heading', { level: 1, name: `Shoe ${shoeId}` })).toBeVisible();

  const roads = await (await api.get(`/shoes/${shoeId}/roads`)).json();
  for (const name of [/^Bead plate/, /^Big road/, /^Big eye boy/, /^Small road/, /^Cockroach pig/]) await expect(page.getByRole('img', { name })).toBeVisible();
  await expect(page.locator('[data-testid="road-bead-plate"] g[data-result]')).toHaveCount(roads.beadPlate.length);
  const bigCells = (roads.bigRoad.columns as unknown[][]).reduce((n, c) => n + c.length, 0);
  await expect(page.locator('[data-testid="road-big-road"] g[data-result]')).toHaveCount(bigCells);
  const eyeEntries = (roads.bigEyeBoy.columns as unknown[][]).reduce((n, c) => n + c.length, 0);
  await expect(page.locator('[data-testid="road-bigEyeBoy"] [data-colour]')).toHaveCount(eyeEntries);

  const rounds = (await (await api.get(`/shoes/${shoeId}/rounds?limit=500`)).json()) as Rounds;
  const table = page.getByTestId('rounds');
  await expect(table.locator('tbody tr')).toHaveCount(rounds.items.length);
  const cards = rounds.items.reduce((n, r) => n + (r.playerCards?.length ?? 0) + (r.bankerCards?.length ?? 0), 0);
  expect(cards).toBeGreaterThan(0);
  await expect(table.locator('[data-card]')).toHaveCount(cards);
  const first = rounds.items.find((r) => r.playerCards?.length)!;
  const code = first.playerCards![0];
  await expect(table.locator(`tr[data-round-id="${first.roundId}"] [data-card="${code}"]`).first()).toHaveAttribute('aria-label', / of (spades|hearts|diamonds|clubs)$/);
  await expect(table.locator(`tr[data-round-id="${stack.classic.voidedRoundId}"]`)).toContainText('voided');
  await expect(table.locator(`tr[data-round-id="${stack.classic.correctedRoundId}"]`)).toContainText('corrected');

  const state = await (await api.get(`/shoes/${shoeId}/state`)).json();
  const acct = page.getByTestId('card-accounting');
  for (const [key, field] of [
    ['dealt', 'cardsDealt'],
    ['burned', 'cardsBurned'],
    ['unneeded', 'cardsUnneeded'],
    ['exposed', 'cardsExposed'],
    ['dropped', 'cardsDropped'],
    ['out', 'cardsOut'],
    ['remaining', 'cardsRemaining'],
  ] as const)
    await expect(acct.locator(`[data-count="${key}"]`), key).toHaveText(String(state[field]));
  for (const rank of ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K']) {
    const row = page.locator(`[data-testid="by-rank"] tr[data-rank="${rank}"]`);
    await expect(row.locator('[data-out]'), `out ${rank}`).toHaveText(String(state.cardsOutByRank[rank] ?? 0));
    await expect(row.locator('[data-remaining]'), `remaining ${rank}`).toHaveText(String(state.cardsRemainingByRank[rank] ?? 0));
  }

  await expectNoSeriousA11yViolations(page);
  await page.setViewportSize({ width: 768, height: 1024 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no horizontal page scroll at 768').toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshotPage(page, 'shoe');

  // keyboard: the voided round's recall link is reached and followed with the keyboard
  const link = table.locator(`tr[data-round-id="${stack.classic.voidedRoundId}"]`).getByRole('link', { name: /^Recall of hand/ });
  await link.focus();
  await expect(link).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/console/shoes/${shoeId}/rounds/${stack.classic.voidedRoundId}$`));
});

test('an unknown shoe shows the API’s error code, and an auditor sees the shoe page too', async ({ page, stack, signIn, pageErrors }) => {
  pageErrors.allow(/\b404\b.*\/shoes\/NO-SUCH-SHOE\//);
  await signIn(page, 'auditor', 'aud-1');
  await page.goto('/console/shoes/NO-SUCH-SHOE');
  await expect(page.getByRole('alert').first()).toContainText('SHOE.NOT_FOUND');
  await page.goto(`/console/shoes/${stack.classic.shoeId}`);
  await expect(page.getByRole('img', { name: /^Big road/ })).toBeVisible();
  await expect(page.getByTestId('rounds').locator('tbody tr').first()).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
