/**
 * The README's pictures of the console: `docs/images/console-tables.png` (the Tables page) and
 * `docs/images/console-recall.png` (the recall of a voided round), at 1280×800, full page.
 *
 *   npm run -s build && npx tsx scripts/console-screenshots.ts [--round voided|corrected] [--out docs/images]
 *
 * Starts what the browser tier starts (test/browser/support/global-setup.ts: PostgreSQL and Kafka,
 * the fresh `ledger_browser` database or `BROWSER_DB_NAME`, the real API, relay and projector from
 * `dist/`, the same seeded shoes), signs in to the console as pit manager pm-1 in the system Chromium
 * (`CHROMIUM_PATH`, default /usr/bin/chromium; scripts/ensure-chromium.sh), waits until each page
 * shows the seeded data and no loading state, shoots it, and stops the services. Exit 1, writing
 * nothing, when a page does not show its data within 30 s.
 */
import { chromium, type Page } from '@playwright/test';
import { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import globalSetup from '../test/browser/support/global-setup';
import { readStack } from '../test/browser/support/stack-file';
import { mintConsoleToken, signInWithToken } from '../test/browser/support/tokens';

const opts = new Command('console-screenshots')
  .option('--round <which>', 'which round of T-CLASSIC-01 the recall picture shows: voided or corrected', 'voided')
  .option('--out <dir>', 'folder of the pictures', 'docs/images')
  .parse()
  .opts<{ round: string; out: string }>();

/** Waits until `text` is on the page and no loading state ("Loading …") is left. */
async function settled(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout: 30_000 });
  const deadline = Date.now() + 30_000;
  while ((await page.getByText(/^Loading\b/).count()) > 0) {
    if (Date.now() > deadline) throw new Error(`${page.url()} still shows a loading state after 30 s`);
    await page.waitForTimeout(200);
  }
  await page.waitForTimeout(500); // charts and roads drawn after the data
}

async function main(): Promise<void> {
  if (opts.round !== 'voided' && opts.round !== 'corrected') throw new Error('--round must be voided or corrected');
  const stop = await globalSetup();
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true });
  try {
    const stack = readStack();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-GB', timezoneId: 'UTC' });
    await signInWithToken(page, mintConsoleToken('pit-manager', 'pm-1'), stack.baseUrl);
    const out = resolve(opts.out);
    mkdirSync(out, { recursive: true });

    await page.goto(`${stack.baseUrl}/console/tables`);
    await settled(page, stack.classic.tableId);
    const tablesPng = await page.screenshot({ fullPage: true, animations: 'disabled' });

    const roundId = opts.round === 'voided' ? stack.classic.voidedRoundId : stack.classic.correctedRoundId;
    await page.goto(`${stack.baseUrl}/console/shoes/${encodeURIComponent(stack.classic.shoeId)}/rounds/${encodeURIComponent(roundId)}`);
    await settled(page, roundId);
    const recallPng = await page.screenshot({ fullPage: true, animations: 'disabled' });

    // both pages showed their data: only now write the files
    const { writeFileSync } = await import('node:fs');
    writeFileSync(resolve(out, 'console-tables.png'), tablesPng);
    writeFileSync(resolve(out, 'console-recall.png'), recallPng);
    process.stdout.write(`wrote ${resolve(out, 'console-tables.png')} and ${resolve(out, 'console-recall.png')} (round ${roundId}, ${opts.round})\n`);
  } finally {
    await browser.close();
    await stop();
  }
}

main().catch((e) => {
  process.stderr.write(`console-screenshots: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
