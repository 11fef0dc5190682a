/**
 * Four eyes in the console (the console's browser scenarios: a pit manager requests a void and a second one
 * approves it in the console, and the round's settlements change): pit manager pm-1 requests the
 * void of a freshly dealt, resulted round with bets on the round's recall page ("Request void"),
 * sees it on the Approvals page marked as their own and is offered no
 * approve/reject; pm-2 signs in, approves it there with a remark after the confirmation, the page
 * shows the API's answer; then `GET /settlements?roundId=` answers every bet REFUNDED and the
 * pending list no longer shows the decision. A second approval through the API is refused
 * (DECISION.ALREADY_DECIDED), and the page shows a refusal's code (MANAGEMENT.SAME_APPROVER when
 * pm-1 tries through the API). axe on the page; screenshots `approvals` and `approvals-own`.
 */
import { dealRounds, expect, expectNoSeriousA11yViolations, screenshotPage, shoeOf, test } from './support/fixtures';

interface Settlement {
  betId: string;
  status: string;
  stake: string;
  refundedStake: string | null;
}

test('pm-1 requests a void, sees it as their own, pm-2 approves it in the console and the bets are refunded', async ({ page, browser, signIn, apiAs, stack, pageErrors }) => {
  test.setTimeout(180_000);
  const shoe = shoeOf(stack, 'T-CLASSIC-01');
  const pm1 = await apiAs('pit-manager', 'pm-1');

  // a fresh resulted round with at least one bet: no other scenario touches it
  let roundId = '';
  let before: Settlement[] = [];
  for (let attempt = 0; attempt < 6 && !before.length; attempt++) {
    [roundId] = await dealRounds('T-CLASSIC-01', 1);
    before = ((await (await pm1.get(`/settlements?roundId=${encodeURIComponent(roundId)}`)).json()) as { items: Settlement[] }).items;
  }
  expect(before.length, 'a dealt round with bets').toBeGreaterThan(0);
  expect(before.every((s) => s.status !== 'REFUNDED')).toBe(true);

  // pm-1 requests the void in the console, on the round's recall page (the "Request void" form)
  await signIn(page, 'pit-manager', 'pm-1');
  await page.goto(`/console/shoes/${encodeURIComponent(shoe.shoeId)}/rounds/${encodeURIComponent(roundId)}`);
  await page.getByLabel('Reason for the void').fill('browser test: void requested by pm-1');
  await page.getByRole('button', { name: 'Request void' }).click();
  const answer = page.getByTestId('decision-answer');
  await expect(answer).toContainText('PENDING_APPROVAL');
  const decisionId = (await answer.locator('code').first().innerText()).trim();
  const asked = (await (await pm1.get(`/decisions/${decisionId}`)).json()) as { status: string; requestedBy: string; roundIds: string[] };
  expect(asked).toMatchObject({ status: 'PENDING_APPROVAL', requestedBy: 'pm-1', roundIds: [roundId] });

  // pm-1 sees the request as their own, with no action
  await page.goto('/console/approvals');
  const own = page.getByTestId(`decision-${decisionId}`);
  await expect(own).toBeVisible();
  await expect(own).toContainText('your request — another pit manager must approve');
  await expect(own).toContainText(roundId);
  await expect(own.getByRole('link', { name: roundId })).toHaveAttribute('href', `/console/shoes/${encodeURIComponent(shoe.shoeId)}/rounds/${encodeURIComponent(roundId)}`);
  await expect(own.getByRole('button')).toHaveCount(0);
  // the bets it would change, with their amounts
  const affected = own.getByRole('table');
  await expect(affected.locator('tbody tr')).toHaveCount(before.length);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'approvals-own');

  // the API refuses pm-1's own approval anyway
  const self = await pm1.post(`/decisions/${decisionId}/approve`, { data: {} });
  expect(self.status()).toBe(422);
  expect(((await self.json()) as { error: { code: string } }).error.code).toBe('MANAGEMENT.SAME_APPROVER');

  // pm-2, in a browser context of their own, approves it
  const context = await browser.newContext({ baseURL: stack.baseUrl });
  pageErrors.watch(context);
  const page2 = await context.newPage();
  const { api: pm2 } = await signIn(page2, 'pit-manager', 'pm-2');
  await page2.goto('/console/approvals');
  const card = page2.getByTestId(`decision-${decisionId}`);
  await expect(card).toBeVisible();
  await expect(card).not.toContainText('your request');
  await card.getByRole('button', { name: 'Approve…' }).click();
  await card.getByLabel('Remark (optional)').fill('checked on camera, approved by pm-2');
  await expectNoSeriousA11yViolations(page2);
  await screenshotPage(page2, 'approvals');
  await card.getByRole('button', { name: 'Confirm approval' }).click();
  const outcome = page2.getByTestId('outcome');
  await expect(outcome).toContainText(decisionId);
  await expect(outcome).toContainText('APPROVED');
  await expect(outcome).toContainText('RoundVoided');
  // the list refreshed: the decision is no longer pending
  await expect(page2.getByTestId(`decision-${decisionId}`)).toHaveCount(0);

  // the round's settlements changed: every bet refunded (the projector applies the events shortly after)
  await expect
    .poll(async () => ((await (await pm2.get(`/settlements?roundId=${encodeURIComponent(roundId)}`)).json()) as { items: Settlement[] }).items.map((s) => s.status), {
      timeout: 20_000,
    })
    .toEqual(before.map(() => 'REFUNDED'));
  const after = ((await (await pm2.get(`/settlements?roundId=${encodeURIComponent(roundId)}`)).json()) as { items: Settlement[] }).items;
  for (const s of after) expect(s.refundedStake, s.betId).toBe(before.find((b) => b.betId === s.betId)!.stake);

  const view = (await (await pm2.get(`/decisions/${decisionId}`)).json()) as { status: string; decidedBy: string; decisionReason: string };
  expect(view).toMatchObject({ status: 'APPROVED', decidedBy: 'pm-2', decisionReason: 'checked on camera, approved by pm-2' });
  const pending = (await (await pm2.get('/decisions?status=PENDING_APPROVAL')).json()) as { decisions: { decisionId: string }[] };
  expect(pending.decisions.map((d) => d.decisionId)).not.toContain(decisionId);

  // the decided tab shows it with both managers
  await page2.goto('/console/approvals?tab=decided&status=APPROVED');
  const decided = page2.getByTestId(`decision-${decisionId}`);
  await expect(decided).toContainText('APPROVED');
  await expect(decided).toContainText('pm-2');
  await expect(decided.getByRole('button')).toHaveCount(0);

  // a second approval is refused and the page would show the code: the API says so
  const again = await pm2.post(`/decisions/${decisionId}/approve`, { data: {} });
  expect(again.status()).toBe(422);
  expect(((await again.json()) as { error: { code: string } }).error.code).toBe('DECISION.ALREADY_DECIDED');
  await context.close();
});

test('a rejection needs a reason of 3–500 characters and shows the API answer', async ({ page, signIn, apiAs, stack }) => {
  test.setTimeout(120_000);
  const shoe = shoeOf(stack, 'T-CLASSIC-01');
  const pm1 = await apiAs('pit-manager', 'pm-1');
  const [roundId] = await dealRounds('T-CLASSIC-01', 1);
  const requested = await pm1.post(`/shoes/${encodeURIComponent(shoe.shoeId)}/rounds/${encodeURIComponent(roundId)}/void`, { data: { reason: 'browser test: to be rejected' } });
  expect(requested.status(), await requested.text()).toBe(202);
  const { decisionId } = (await requested.json()) as { decisionId: string };

  await signIn(page, 'pit-manager', 'pm-2');
  await page.goto('/console/approvals');
  const card = page.getByTestId(`decision-${decisionId}`);
  await card.getByRole('button', { name: 'Reject…' }).click();
  const reason = card.getByLabel('Reason for the rejection (required)');
  await reason.fill('no');
  await card.getByRole('button', { name: 'Confirm rejection' }).click();
  await expect(card).toContainText('3–500 characters (now 2)');
  await expect(page.getByTestId('outcome')).toHaveCount(0);
  await reason.fill('not needed: the round was dealt correctly');
  await card.getByRole('button', { name: 'Confirm rejection' }).click();
  await expect(page.getByTestId('outcome')).toContainText('REJECTED');
  await expect(page.getByTestId(`decision-${decisionId}`)).toHaveCount(0);
  const view = (await (await pm1.get(`/decisions/${decisionId}`)).json()) as { status: string; decidedBy: string };
  expect(view).toMatchObject({ status: 'REJECTED', decidedBy: 'pm-2' });
});

test("a decision decided meanwhile by another manager shows the API's error code and leaves the list", async ({ page, signIn, apiAs, stack, pageErrors }) => {
  test.setTimeout(120_000);
  // the approval of a decision already decided is refused on purpose
  pageErrors.allow(/\b422\b.*\/decisions\/[^/\s]+\/approve\b/);
  const shoe = shoeOf(stack, 'T-CLASSIC-01');
  const pm1 = await apiAs('pit-manager', 'pm-1');
  const [roundId] = await dealRounds('T-CLASSIC-01', 1);
  const requested = await pm1.post(`/shoes/${encodeURIComponent(shoe.shoeId)}/rounds/${encodeURIComponent(roundId)}/void`, { data: { reason: 'browser test: decided meanwhile' } });
  expect(requested.status(), await requested.text()).toBe(202);
  const { decisionId } = (await requested.json()) as { decisionId: string };

  await signIn(page, 'pit-manager', 'pm-2');
  await page.goto('/console/approvals');
  const card = page.getByTestId(`decision-${decisionId}`);
  await card.getByRole('button', { name: 'Approve…' }).click();
  // while pm-2 reads the confirmation, pm-3 rejects it
  const pm3 = await apiAs('pit-manager', 'pm-3');
  expect((await pm3.post(`/decisions/${decisionId}/reject`, { data: { reason: 'browser test: rejected first by pm-3' } })).status()).toBe(201);
  await card.getByRole('button', { name: 'Confirm approval' }).click();
  const outcome = page.getByTestId('outcome');
  await expect(outcome.getByRole('alert')).toContainText('DECISION.ALREADY_DECIDED');
  await expect(outcome).toContainText(decisionId);
  await expect(page.getByTestId(`decision-${decisionId}`)).toHaveCount(0);
});
