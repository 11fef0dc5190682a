import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, ERROR_TABLE_END, ERROR_TABLE_START, spliceErrorTable } from '@ledger/errors';

/** The error section of docs/errors.md is generated from the error table (docs/architecture.md §4). */
describe('the error table of docs/errors.md', () => {
  const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'errors.md'), 'utf8');

  it('is up to date with ERROR_TABLE (else run `npx tsx scripts/gen-error-docs.ts`)', () => {
    expect(readme).toContain(ERROR_TABLE_START);
    expect(readme).toContain(ERROR_TABLE_END);
    expect(spliceErrorTable(readme) === readme ? 'up to date' : 'out of date: run `npx tsx scripts/gen-error-docs.ts`').toBe('up to date');
  });

  it('lists every code with its status', () => {
    const block = readme.slice(readme.indexOf(ERROR_TABLE_START), readme.indexOf(ERROR_TABLE_END));
    for (const code of ERROR_CODES) expect(block).toContain(`| \`${code}\` |`);
  });
});
