/**
 * CI's migration check (`npm run -s migration:check`, run by `.ci/run` before the tests): every
 * migration file of the repository (`**\/migrations/*.ts` under apps/ and libs/, specs excepted) is
 * read and refused if its `up` drops or retypes a ledger column or drops a ledger table
 * (scripts/migration-check/check.ts; docs/guarantees.md §1). Exit 0: none; 1: each violation printed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkMigrationSource, type MigrationViolation } from './migration-check/check';

/** The migration files under `roots` (directories named `migrations`, `.ts`, not specs), sorted. */
export function migrationFiles(root: string, dirs: readonly string[] = ['apps', 'libs']): string[] {
  const out: string[] = [];
  const walk = (d: string, inMigrations: boolean) => {
    for (const name of readdirSync(d)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p, name === 'migrations');
      else if (inMigrations && name.endsWith('.ts') && !name.endsWith('.spec.ts') && name !== 'index.ts') out.push(p);
    }
  };
  for (const d of dirs) walk(join(root, d), false);
  return out.sort();
}

if (require.main === module) {
  const root = join(__dirname, '..');
  const files = migrationFiles(root);
  const violations: MigrationViolation[] = files.flatMap((f) => checkMigrationSource(relative(root, f), readFileSync(f, 'utf8')));
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}: ${v.rule} on ledger table ${v.table}${v.column ? ` (column ${v.column})` : ''}\n`);
  process.stdout.write(`migrations checked: ${files.length} files, ${violations.length} violation(s)\n`);
  process.exit(violations.length === 0 ? 0 : 1);
}
