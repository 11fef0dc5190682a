/**
 * Full-page screenshots of the console's pages, kept as the browser tier's artifacts in
 * `.stack/browser/screenshots/` (git-ignored) and attached to the test's report: one at a desktop
 * 1280×800 (`<name>.png`) and one at a 768-wide tablet (`<name>-768x1024.png`), the two sizes the
 * console must be readable at.
 *
 * Names: the page, lower-case with dashes (`tables`, `shoe`, `recall-voided`). `tables.png` and
 * `recall.png` are the README's images (scripts/console-screenshots.ts copies them to docs/images/).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, type Page } from '@playwright/test';
import { SCREENSHOTS_DIR } from './stack-file';

/** The two viewports every page is shot at; the first is the file without a suffix. */
export const VIEWPORTS = [
  { width: 1280, height: 800, suffix: '' },
  { width: 768, height: 1024, suffix: '-768x1024' },
] as const;

/**
 * Shoots `page` full-page at each of {@link VIEWPORTS} (the viewport is restored afterwards).
 * Wait for what the page must show before calling it (an `expect(...).toBeVisible()`): this does
 * not wait for data.
 * @param name file name without extension ([a-z0-9-]+)
 * @returns the files written
 */
export async function screenshotPage(page: Page, name: string): Promise<string[]> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`screenshot name must be lower-case letters, digits and dashes (got ${name})`);
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const before = page.viewportSize();
  const files: string[] = [];
  try {
    for (const v of VIEWPORTS) {
      await page.setViewportSize({ width: v.width, height: v.height });
      // let the layout settle at the new width (media queries, charts measuring their box)
      // (a string: this file is compiled without the DOM's types)
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      const file = join(SCREENSHOTS_DIR, `${name}${v.suffix}.png`);
      await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
      await test.info().attach(`${name} ${v.width}x${v.height}`, { path: file, contentType: 'image/png' });
      files.push(file);
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
  return files;
}
