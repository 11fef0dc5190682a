/**
 * Writes the error table (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4) into
 * README.md between `<!-- error-table:start -->` and `<!-- error-table:end -->`.
 *
 *   npx tsx scripts/gen-error-docs.ts           # rewrite the README's error table
 *   npx tsx scripts/gen-error-docs.ts --check   # exit 1 if the README is out of date
 *
 * A unit spec (`apps/ledger/src/common/error-docs.unit.spec.ts`) fails while the README is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spliceErrorTable } from '@ledger/errors';

const readmePath = join(__dirname, '..', 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = spliceErrorTable(before);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('README.md: the error table is out of date; run `npx tsx scripts/gen-error-docs.ts`');
    process.exit(1);
  }
  console.log('README.md: the error table is up to date');
} else if (after !== before) {
  writeFileSync(readmePath, after);
  console.log('README.md: error table written');
} else {
  console.log('README.md: error table already up to date');
}
