/**
 * Writes the significant-event catalogue (`SIGNIFICANT_EVENTS` in `@ledger/significant-events`) into
 * docs/significant-events.md between `<!-- significant-events:start -->` and
 * `<!-- significant-events:end -->`.
 *
 *   npx tsx scripts/gen-significant-event-docs.ts           # rewrite docs/significant-events.md's catalogue
 *   npx tsx scripts/gen-significant-event-docs.ts --check   # exit 1 if docs/significant-events.md is out of date
 *
 * A unit spec (`test/significant-events-docs.unit.spec.ts`) fails while docs/significant-events.md is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spliceSignificantEvents } from '@ledger/significant-events';

const docPath = join(__dirname, '..', 'docs/significant-events.md');
const before = readFileSync(docPath, 'utf8');
const after = spliceSignificantEvents(before);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('docs/significant-events.md: the catalogue is out of date; run `npx tsx scripts/gen-significant-event-docs.ts`');
    process.exit(1);
  }
  console.log('docs/significant-events.md: the catalogue is up to date');
} else if (after !== before) {
  writeFileSync(docPath, after);
  console.log('docs/significant-events.md: catalogue written');
} else {
  console.log('docs/significant-events.md: catalogue already up to date');
}
