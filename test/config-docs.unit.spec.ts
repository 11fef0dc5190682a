import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { collectVarDocs, END_MARKER, renderConfigTable, START_MARKER, withConfigTable } from '../scripts/gen-config-docs';

/**
 * The configuration table (docs/configuration.md) is generated from the schemas of `@ledger/config`
 * (docs/architecture.md §5): this spec fails when it is out of date, or when a schema's docstring
 * does not document a variable's default exactly as the schema sets it.
 */
describe('the configuration table of docs/configuration.md', () => {
  const rows = collectVarDocs();

  it('is up to date (regenerate: npx tsx scripts/gen-config-docs.ts)', () => {
    const readme = readFileSync(resolve(__dirname, '../docs/configuration.md'), 'utf8');
    expect(readme).toContain(START_MARKER);
    expect(readme).toContain(END_MARKER);
    expect(withConfigTable(readme, renderConfigTable(rows))).toBe(readme);
  });

  it('documents every variable, and its @default is the schema default', () => {
    expect(rows.length).toBeGreaterThan(30);
    for (const r of rows) {
      expect({ name: r.name, documented: r.meaning.length > 10 }).toEqual({ name: r.name, documented: true });
      expect({ name: r.name, default: r.documentedDefault }).toEqual({ name: r.name, default: r.actualDefault });
    }
  });

  it('names the process of every variable and the variables the processes need', () => {
    const byName = new Map(rows.map((r) => [r.name, r]));
    expect(byName.get('RELAY_POLL_INTERVAL_MS')?.usedBy).toEqual(['relay']);
    expect(byName.get('DATABASE_URL')?.usedBy).toEqual(expect.arrayContaining(['API', 'relay', 'projector']));
    expect(byName.get('JWT_SECRET')?.usedBy).toEqual(['API', '`npm run token`']);
    expect(byName.get('JWT_SECRET')?.documentedDefault).toBeNull();
  });
});
