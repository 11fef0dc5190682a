/**
 * The wallet page (docs/reports.md §4): a pit manager uploads a small wallet file built from the
 * seeded classic shoe's settlements — one bet as the ledger has it, one bet off by one minor unit,
 * one bet the ledger never saw, one bet on another account — and sees the run: its totals are the API's, and the findings list
 * the amount that differs and the unknown bet with the money formatted from the exact strings
 * (formatMinor); a bet booked to another account is FIELDS_DIFFER with the ledger's and the wallet's
 * account side by side. A file with a decimal amount is refused with its line shown. axe on the page;
 * screenshot `wallet`. A file matched by a time period (`from`, `to` of the gaming day zone) is scoped by that period, as the API says.
 */
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';
import { formatMinor } from '../../apps/console/src/lib/money';
import { formatInstant } from '../../apps/console/src/lib/time';
import { isoToZoned } from '../../apps/console/src/lib/zoned';

interface Bet {
  betId: string;
  betTransactionId: string;
  roundId: string;
  accountId: string;
  stake: string;
  currency: string;
  placedAt: string;
}

test('uploads a wallet file and sees the summary and the findings', async ({ page, signIn, stack, pageErrors }) => {
  test.setTimeout(120_000);
  // the decimal amount uploaded at the end is refused on purpose
  pageErrors.allow(/\b4\d\d\b.*\/reconciliation\/wallet-files/);
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const list = await api.get(`/settlements?shoeId=${stack.classic.shoeId}&limit=10`);
  expect(list.status()).toBe(200);
  const bets = ((await list.json()) as { items: Bet[] }).items;
  expect(bets.length).toBeGreaterThanOrEqual(3);
  const [good, off, moved] = bets;
  const row = (b: Bet, txn: string, amount: string) => [txn, b.roundId, b.betId, b.accountId, 'bet', amount, b.currency, b.placedAt].join(',');
  const ghost = `${stack.classic.shoeId}-ghost`;
  const csv = [
    'transactionId,roundId,betId,accountId,type,amount,currency,time',
    row(good, good.betTransactionId, good.stake),
    row(off, off.betTransactionId, String(BigInt(off.stake) + 1n)),
    row({ ...good, betId: ghost }, `${ghost}:bet`, '1234'),
    row({ ...moved, accountId: 'acct-wallet-7' }, moved.betTransactionId, moved.stake),
  ].join('\n');

  await page.goto('/console/wallet');
  await expect(page.getByRole('heading', { name: 'Wallet matching' })).toBeVisible();
  await page.getByLabel('Wallet file (CSV or JSONL)').setInputFiles({ name: 'wallet.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Upload and match' }).click();
  await expect(page).toHaveURL(/\/console\/wallet\?run=/);
  const runId = new URL(page.url()).searchParams.get('run')!;
  const run = (await (await api.get(`/reconciliation/wallet-files/${runId}`)).json()) as { totals: Record<string, number>; createdAt: string };
  expect(run.totals).toMatchObject({ MATCHED: 1, AMOUNT_DIFFERS: 1, FIELDS_DIFFER: 1, MISSING_IN_LEDGER: 1, DUPLICATED: 0 });
  for (const [status, n] of Object.entries(run.totals)) await expect(page.getByTestId('wallet-totals').locator(`[data-col="${status}"]`)).toHaveText(String(n));

  const findings = page.getByTestId('wallet-findings');
  const differs = findings.locator(`tr[data-txn="${off.betTransactionId}"]`);
  await expect(differs).toHaveAttribute('data-status', 'AMOUNT_DIFFERS');
  await expect(differs.locator('[data-col="ledger"]')).toHaveText(formatMinor(off.stake, off.currency, true));
  await expect(differs.locator('[data-col="wallet"]')).toHaveText(formatMinor(BigInt(off.stake) + 1n, off.currency, true));
  const unknown = findings.locator(`tr[data-txn="${ghost}:bet"]`);
  await expect(unknown).toHaveAttribute('data-status', 'MISSING_IN_LEDGER');
  await expect(unknown.locator('[data-col="wallet"]')).toHaveText(formatMinor('1234', good.currency, true));
  // a field that differs: the ledger's value and the wallet's, side by side
  const fields = findings.locator(`tr[data-txn="${moved.betTransactionId}"]`);
  await expect(fields).toHaveAttribute('data-status', 'FIELDS_DIFFER');
  await expect(fields.locator('li[data-field="accountId"]')).toHaveText(`Account: ledger ${moved.accountId}, wallet acct-wallet-7`);
  await expect(fields.locator('[data-col="wallet-value"]')).toHaveText('acct-wallet-7');
  await expect(differs.locator('li[data-field="amount"]')).toHaveText('Amount');
  // the bet that matched is no finding
  await expect(findings.locator(`tr[data-txn="${good.betTransactionId}"]`)).toHaveCount(0);
  await expect(page.getByTestId('wallet-summary').locator('tbody tr').first()).toBeVisible();
  await expect(page.getByTestId('wallet-runs').getByRole('link').first()).toBeVisible();
  // the runs list says when in the console's one format (the gaming day's zone), not the API's ISO string
  const { timeZone } = ((await (await api.get('/me')).json()) as { gamingDay: { timeZone: string } }).gamingDay;
  const created = formatInstant(run.createdAt, timeZone);
  expect(created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
  await expect(page.getByTestId('wallet-runs').locator(`a[href="/console/wallet?run=${runId}"]`)).toHaveText(created);
  for (const t of await page.getByTestId('wallet-runs').getByRole('link').allTextContents()) expect(t).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'wallet');

  // a decimal amount: refused with its line, nothing stored
  await page
    .getByLabel('Wallet file (CSV or JSONL)')
    .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(`transactionId,type,amount,currency,time\n${good.betTransactionId},bet,10.50,EUR,${good.placedAt}\n`) });
  await page.getByRole('button', { name: 'Upload and match' }).click();
  await expect(page.getByTestId('upload-error')).toContainText('WALLET.FILE_INVALID');
  await expect(page.getByTestId('upload-error')).toContainText('line 2');
});

test('matches a wallet file by a time period, in the gaming day zone, as the API scopes it', async ({ page, signIn, stack }) => {
  test.setTimeout(120_000);
  const { api } = await signIn(page, 'pit-manager', 'pm-1');
  const me = (await (await api.get('/me')).json()) as { gamingDay: { timeZone: string } };
  const bets = ((await (await api.get(`/settlements?shoeId=${stack.classic.shoeId}&limit=10`)).json()) as { items: Bet[] }).items;
  const b = bets[0];
  const csv = ['transactionId,roundId,betId,accountId,type,amount,currency,time', [b.betTransactionId, b.roundId, b.betId, b.accountId, 'bet', b.stake, b.currency, b.placedAt].join(',')].join('\n');
  // a period of whole minutes around the bet (what the inputs hold)
  const from = new Date(Math.floor(Date.parse(b.placedAt) / 60_000) * 60_000 - 60_000).toISOString();
  const to = new Date(Date.parse(from) + 3 * 60_000).toISOString();
  await page.goto('/console/wallet');
  await page.getByLabel('Wallet file (CSV or JSONL)').setInputFiles({ name: 'period.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByLabel('Or a time period from').fill(isoToZoned(from, me.gamingDay.timeZone));
  await page.getByLabel('to (exclusive)').fill(isoToZoned(to, me.gamingDay.timeZone));
  await page.getByRole('button', { name: 'Upload and match' }).click();
  await expect(page).toHaveURL(/\/console\/wallet\?run=/);
  const runId = new URL(page.url()).searchParams.get('run')!;
  const run = (await (await api.get(`/reconciliation/wallet-files/${runId}`)).json()) as { scope: { source: string; from: string; to: string }; totals: Record<string, number> };
  expect(run.scope.source).toBe('period');
  expect([Date.parse(run.scope.from), Date.parse(run.scope.to)]).toEqual([Date.parse(from), Date.parse(to)]);
  expect(run.totals.MATCHED).toBe(1);
  await expect(page.getByTestId('wallet-scope')).toContainText(`the period ${formatInstant(run.scope.from, me.gamingDay.timeZone)} to ${formatInstant(run.scope.to, me.gamingDay.timeZone)}`);
  for (const [status, n] of Object.entries(run.totals)) await expect(page.getByTestId('wallet-totals').locator(`[data-col="${status}"]`)).toHaveText(String(n));
  await expectNoSeriousA11yViolations(page);
});
