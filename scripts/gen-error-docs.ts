/**
 * Writes the error table (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4) into
 * docs/errors.md between `<!-- error-table:start -->` and `<!-- error-table:end -->`.
 *
 *   npx tsx scripts/gen-error-docs.ts           # rewrite docs/errors.md's error table
 *   npx tsx scripts/gen-error-docs.ts --check   # exit 1 if docs/errors.md is out of date
 *
 * A unit spec (`apps/ledger/src/common/error-docs.unit.spec.ts`) fails while docs/errors.md is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spliceErrorTable } from '@ledger/errors';

const readmePath = join(__dirname, '..', 'docs/errors.md');
const before = readFileSync(readmePath, 'utf8');
const after = spliceErrorTable(before);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('docs/errors.md: the error table is out of date; run `npx tsx scripts/gen-error-docs.ts`');
    process.exit(1);
  }
  console.log('docs/errors.md: the error table is up to date');
} else if (after !== before) {
  writeFileSync(readmePath, after);
  console.log('docs/errors.md: error table written');
} else {
  console.log('docs/errors.md: error table already up to date');
}
