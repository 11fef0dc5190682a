/**
 * Round recall (`/console/shoes/:shoeId/rounds/:roundId`, apps/console/README.md "Pages"): the seeded
 * voided round shows its RESULTED and VOIDED revisions side by side with the approver and the
 * reason, the corrected one RESULTED and CORRECTED; every bet's settlement history; the decision
 * chain and the hash-chain status; a pit manager is offered the requests, an auditor is not.
 */
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';
import type { APIRequestContext, Page } from '@playwright/test';

interface Recall {
  round: { status: string; handNumber: number };
  revisions: { revision: number; kind: string; approverId: string | null; reason: string | null; actorId: string }[];
  bets: { betId: string; history: { seq: number; kind: string }[] }[];
  decisions: { decisionId: string; requestedBy: string; decidedBy: string | null }[];
  events: unknown[];
  chain: { ok: boolean };
  anchor: { status: string };
}

async function checkRecall(page: Page, api: APIRequestContext, shoeId: string, roundId: string, kinds: string[]): Promise<Recall> {
  const recall = (await (await api.get(`/shoes/${shoeId}/rounds/${roundId}/recall`)).json()) as Recall;
  await page.goto(`/console/shoes/${shoeId}/rounds/${roundId}`);
  await expect(page.getByRole('heading', { level: 1, name: new RegExp(`^Recall of hand ${recall.round.handNumber}`) })).toBeVisible();
  expect(recall.revisions.map((r) => r.kind)).toEqual(kinds);
  const columns = page.getByTestId('revisions').getByTestId('revision');
  await expect(columns).toHaveCount(kinds.length);
  for (const [i, r] of recall.revisions.entries()) {
    const col = columns.nth(i);
    await expect(col).toHaveAttribute('data-kind', r.kind);
    await expect(col.getByTestId('revision-approver')).toHaveText(r.approverId ?? '–');
    await expect(col.getByTestId('revision-reason')).toHaveText(r.reason ?? '–');
  }
  // side by side: the columns share a row at 1280 wide
  const boxes = await Promise.all(kinds.map((_, i) => columns.nth(i).boundingBox()));
  expect(new Set(boxes.map((b) => Math.round(b!.y))).size, 'revisions side by side').toBe(1);
  expect(recall.bets.length).toBeGreaterThan(0);
  await expect(page.getByTestId('bet')).toHaveCount(recall.bets.length);
  for (const b of recall.bets) await expect(page.locator(`[data-testid="bet"][data-bet-id="${b.betId}"] [data-testid="bet-history"] tbody tr`)).toHaveCount(b.history.length);
  await expect(page.getByTestId('events').locator('tbody tr')).toHaveCount(recall.events.length);
  for (const d of recall.decisions) await expect(page.getByTestId('decisions')).toContainText(d.decisionId);
  await expect(page.getByTestId('chain')).toHaveAttribute('data-ok', String(recall.chain.ok));
  // the anchor status the API checked (the relay may sign a checkpoint between the two reads: never a mismatch)
  expect(['ANCHORED', 'NOT_YET_ANCHORED']).toContain(recall.anchor.status);
  expect(['ANCHORED', 'NOT_YET_ANCHORED']).toContain(await page.getByTestId('anchor').getAttribute('data-status'));
  return recall;
}

test('the voided round shows RESULTED and VOIDED side by side with approver and reason, and the bets refunded', async ({ page, stack, signIn }) => {
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const recall = await checkRecall(page, api, stack.classic.shoeId, stack.classic.voidedRoundId, ['RESULTED', 'VOIDED']);
  const voided = recall.revisions[1];
  expect(voided.approverId).toBe('pm-2');
  expect(voided.reason).toBeTruthy();
  expect(recall.bets.every((b) => b.history.some((h) => h.kind === 'REFUNDED'))).toBe(true);
  await expect(page.getByTestId('decisions')).toContainText(stack.classic.voidDecisionId);
  await expect(page.getByRole('button', { name: /^Request/ })).toHaveCount(0); // a voided round takes no further request
  await expectNoSeriousA11yViolations(page);
  await page.setViewportSize({ width: 768, height: 1024 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no horizontal page scroll at 768').toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshotPage(page, 'recall');
});

test('the corrected round shows RESULTED and CORRECTED; a pit manager is offered the requests', async ({ page, stack, signIn }) => {
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const recall = await checkRecall(page, api, stack.classic.shoeId, stack.classic.correctedRoundId, ['RESULTED', 'CORRECTED']);
  expect(recall.revisions[1].approverId).toBe('pm-2');
  expect(recall.bets.every((b) => b.history.some((h) => h.kind === 'RESETTLED'))).toBe(true);
  await expect(page.getByRole('button', { name: 'Request void' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Request result correction' })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'recall-corrected');
});

test('a pit manager’s refused request shows the API’s error code', async ({ page, stack, signIn, pageErrors }) => {
  // a card that does not exist: refused on purpose
  pageErrors.allow(/\b400\b.*\/rounds\/[^/\s]+\/result-corrections\b/);
  await signIn(page, 'pit-manager', 'pm-1');
  await page.goto(`/console/shoes/${stack.classic.shoeId}/rounds/${stack.classic.correctedRoundId}`);
  await page.getByTestId('card-1').fill('ZZ');
  await page.getByLabel('Reason for the correction').fill('typed a card that does not exist');
  await page.getByRole('button', { name: 'Request result correction' }).click();
  await expect(page.getByRole('alert')).toContainText(/[A-Z]+\.[A-Z_]+/);
});

test('an auditor sees the whole recall and is offered no request', async ({ page, stack, signIn }) => {
  const { api } = await signIn(page, 'auditor', 'aud-1');
  await checkRecall(page, api, stack.classic.shoeId, stack.classic.correctedRoundId, ['RESULTED', 'CORRECTED']);
  await expect(page.getByRole('button', { name: /^Request/ })).toHaveCount(0);
  await expect(page.getByRole('textbox')).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
});

test('a pit manager requests a void in the console and sees the 202 answer with the bets it would change', async ({ page, stack, signIn, apiAs }) => {
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const shoeId = stack.classic.shoeId;
  // a plain resulted round with bets
  let roundId: string | null = null;
  for (const r of stack.classic.resultedRoundIds) {
    const recall = (await (await api.get(`/shoes/${shoeId}/rounds/${r}/recall`)).json()) as Recall;
    if (recall.round.status === 'RESULTED' && recall.bets.length > 0) {
      roundId = r;
      break;
    }
  }
  expect(roundId, 'a seeded resulted round with bets').not.toBeNull();
  await page.goto(`/console/shoes/${shoeId}/rounds/${roundId}`);
  await page.getByLabel('Reason for the void').fill('browser test: request then reject');
  await page.getByRole('button', { name: 'Request void' }).click();
  const answer = page.getByTestId('decision-answer');
  await expect(answer).toContainText('PENDING_APPROVAL');
  const decisionId = (await answer.locator('code').first().textContent())!.trim();
  const view = await (await api.get(`/decisions/${decisionId}`)).json();
  expect(view.status).toBe('PENDING_APPROVAL');
  expect(view.affectedBets.length).toBeGreaterThan(0);
  await expect(answer.locator('tbody tr')).toHaveCount(view.affectedBets.length);
  await expect(answer).toContainText('REFUND');
  await expectNoSeriousA11yViolations(page);
  await answer.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('request-answer.png') });
  // leave no pending decision behind: a second manager rejects it, and the recall's decision chain says so
  const pm2 = await apiAs('pit-manager', 'pm-2');
  const rejected = await pm2.post(`/decisions/${decisionId}/reject`, { data: { reason: 'browser test cleanup' } });
  expect(rejected.status(), await rejected.text()).toBeLessThan(300);
  await page.reload();
  const row = page.getByTestId('decisions').locator('tr', { hasText: decisionId });
  await expect(row).toContainText('REJECTED');
  await expect(row).toContainText('pm-2');
  await expect(row).toContainText('browser test cleanup');
});

test('an unknown round shows the API’s error code under a heading', async ({ page, stack, signIn, pageErrors }) => {
  pageErrors.allow(/\b404\b.*\/rounds\/NO-SUCH-ROUND\//);
  await signIn(page, 'auditor', 'aud-1');
  await page.goto(`/console/shoes/${stack.classic.shoeId}/rounds/NO-SUCH-ROUND`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('NO-SUCH-ROUND');
  await expect(page.getByRole('alert')).toContainText('ROUND.NOT_FOUND');
  await expectNoSeriousA11yViolations(page);
});
