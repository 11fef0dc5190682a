/**
 * The exports for regulators (docs/reports.md §5) in the console: one export of a period, kind and
 * format downloads exactly what `GET /exports/{kind}` answers; the bundle downloads the five
 * exports and `manifest.json`, the page shows the manifest the API signed, whose files' SHA-256 are
 * those of the downloaded files, and the regulator's own verifier (`examples/verify-export/verify.mjs`
 * with the development key's public half) says `OK: the export verifies` of the downloaded folder;
 * the page prints the `npm run export` and `verify.mjs` commands for the period. axe, no error
 * logged; screenshot `exports`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Download } from '@playwright/test';
import { expect, expectNoSeriousA11yViolations, screenshotPage, test } from './support/fixtures';
import { isoToZoned } from '../../apps/console/src/lib/zoned';

const REPO = resolve(__dirname, '../..');

test('one export and the signed bundle download what the API answers, and the bundle verifies', async ({ page, signIn }) => {
  test.setTimeout(120_000);
  const { api } = await signIn(page, 'auditor', 'auditor-1');
  const me = (await (await api.get('/me')).json()) as { gamingDay: { timeZone: string } };
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Exports' }).click();
  await expect(page).toHaveURL(/\/console\/exports$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Exports for regulators');

  // a period covering the seeded rounds (whole minutes: what the inputs hold), exported once it has ended
  const to = new Date(Math.ceil((Date.now() + 1) / 60_000) * 60_000).toISOString();
  const from = new Date(Date.parse(to) - 3 * 3600_000).toISOString();
  await page.waitForTimeout(Math.max(0, Date.parse(to) - Date.now() + 1_000));
  await page.getByLabel('From', { exact: true }).fill(isoToZoned(from, me.gamingDay.timeZone));
  await page.getByLabel('To', { exact: true }).fill(isoToZoned(to, me.gamingDay.timeZone));
  await page.getByLabel('Kind').selectOption('settlements');
  await page.getByLabel('Format').selectOption('csv');
  const [one] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download this export' }).click()]);
  expect(one.suggestedFilename()).toBe('settlements.csv');
  const apiCsv = await api.get(`/exports/settlements?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&format=csv`);
  expect(apiCsv.status()).toBe(200);
  const csv = readFileSync((await one.path())!, 'utf8');
  expect(csv).toBe(await apiCsv.text());
  expect(csv.trim().split('\n').length - 1).toBe(Number(apiCsv.headers()['ledger-export-count']));

  // the bundle: five exports and the manifest, saved into one folder
  await page.getByLabel('Format').selectOption('jsonl');
  const downloads: Download[] = [];
  page.on('download', (d) => downloads.push(d));
  await page.getByRole('button', { name: /Download the bundle/ }).click();
  await expect(page.getByTestId('manifest')).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => downloads.length).toBe(6);
  const dir = mkdtempSync(join(tmpdir(), 'console-export-'));
  try {
    for (const d of downloads) await d.saveAs(join(dir, d.suggestedFilename()));
    expect(downloads.map((d) => d.suggestedFilename()).sort()).toEqual(['access-log.jsonl', 'decisions.jsonl', 'events.jsonl', 'manifest.json', 'rejections.jsonl', 'settlements.jsonl']);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { keyId: string; signed: { files: { name: string; rows: number; sha256: string }[] } };
    for (const f of manifest.signed.files) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(dir, f.name)))
          .digest('hex'),
        f.name,
      ).toBe(f.sha256);
      const row = page.getByTestId('manifest').locator(`tr[data-file="${f.name}"]`);
      await expect(row.locator('td').nth(1)).toHaveText(String(f.rows));
      await expect(row.locator('td').nth(3)).toHaveText(f.sha256);
    }
    await expect(page.getByTestId('manifest')).toContainText(manifest.keyId);
    expect(manifest.signed.files.find((f) => f.name === 'events.jsonl')!.rows, 'the seeded rounds are in the period').toBeGreaterThan(0);
    // the regulator's verifier, with the public half of the key the development API signs with
    // other scenarios of the tier deal rounds meanwhile: the newest events of the bundle may lie after
    // its last checkpoint (the relay signs one every few seconds), which the verifier states as the
    // NOT_ANCHORED limit when allowed; every other check stays mandatory
    const r = spawnSync(process.execPath, [join(REPO, 'examples/verify-export/verify.mjs'), dir, '--key', join(REPO, '.stack/anchors/anchor-public.pem'), '--allow-unanchored'], { encoding: 'utf8' });
    expect(r.stdout, r.stdout + r.stderr).toMatch(/^OK: the export verifies/m);
    expect(r.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  await expect(page.getByTestId('export-command')).toContainText(`npm run -s export -- --from ${from} --to ${to}`);
  await expect(page.getByTestId('verify-command')).toContainText('node examples/verify-export/verify.mjs');
  // the token command works as shown in the demo (outside development mode the secret is required)
  await expect(page.getByTestId('export-command')).toContainText('TOKEN=$(LEDGER_ENV=development npm run -s token -- --role auditor --sub regulator-it)');
  // and where the demo's key is: the anchor key the relay wrote, the one verify.mjs accepted above
  await expect(page.getByTestId('demo-key')).toContainText('--key .stack/anchors/anchor-public.pem');
  await expectNoSeriousA11yViolations(page);
  await screenshotPage(page, 'exports');
});
