import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The repository root as seen from this directory: `apps/ledger/src/static` under the sources
 * (the API run in-process by jest or tsx), `dist/apps/ledger/src/static` once compiled.
 */
const UP = resolve(__dirname, '../../../..');

/**
 * The first of `candidates` (relative paths, tried from the compiled tree, then from the sources'
 * root, then from the working directory) that exists, or null.
 * @param marker a file that must exist in the directory (e.g. `index.html`)
 */
export function findDirectory(candidates: readonly string[], marker: string): string | null {
  const roots = [UP, resolve(UP, '..'), process.cwd()];
  for (const root of roots) {
    for (const c of candidates) {
      const dir = join(root, c);
      if (existsSync(join(dir, marker))) return dir;
    }
  }
  return null;
}
