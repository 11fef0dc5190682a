/**
 * Writes the configuration table of docs/configuration.md from the schemas of `@ledger/config`
 * (docs/architecture.md §5): one row per variable with the processes that read it, its default (the
 * `@default` tag of its docstring; a default derived from other variables, such as
 * `RELAY_DATABASE_URL`'s from `DATABASE_URL`, is said in words), the form it must have (the schema's decorator) and its meaning
 * (the docstring), between the markers `<!-- config-table:start -->` and `<!-- config-table:end -->`.
 *
 *   npx tsx scripts/gen-config-docs.ts           # rewrites docs/configuration.md when it is out of date
 *   npx tsx scripts/gen-config-docs.ts --check   # exit 1 when docs/configuration.md is out of date
 *
 * `test/config-docs.unit.spec.ts` fails when docs/configuration.md is out of date, and when a docstring's
 * `@default` disagrees with the schema's actual default.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { CONFIG_SCHEMAS, envVarsOf } from '@ledger/config';

const ROOT = resolve(__dirname, '..');
const SCHEMA_DIR = join(ROOT, 'libs/config/src/schemas');
export const START_MARKER = '<!-- config-table:start -->';
export const END_MARKER = '<!-- config-table:end -->';

/** What the table says about one variable. */
export interface VarDoc {
  readonly name: string;
  /** Processes reading it, in {@link CONFIG_SCHEMAS} order. */
  readonly usedBy: string[];
  /** The schema's decorator's form. */
  readonly expected: string;
  /** The docstring's text (without tags); empty when there is none. */
  readonly meaning: string;
  /** The docstring's `@default`, or null. */
  readonly documentedDefault: string | null;
  /**
   * The property initializer's value, as the table would print it, or, for a default derived from
   * other variables, how it is derived (markdown); null when it has none.
   */
  readonly actualDefault: string | null;
  /** The default is derived from other variables (printed as prose, not as a literal value). */
  readonly derived: boolean;
}

/** Docstrings of the schema properties: variable name → text and `@default`. */
export function readDocstrings(dir = SCHEMA_DIR): Map<string, { meaning: string; documentedDefault: string | null }> {
  const docs = new Map<string, { meaning: string; documentedDefault: string | null }>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyDeclaration(node) && ts.isIdentifier(node.name) && /^[A-Z][A-Z0-9_]*$/.test(node.name.text)) {
        const jsDoc = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).at(-1);
        const meaning = ts.getTextOfJSDocComment(jsDoc?.comment)?.replace(/\s+/g, ' ').trim() ?? '';
        const tag = jsDoc?.tags?.find((t) => t.tagName.text === 'default');
        const documentedDefault = tag ? (ts.getTextOfJSDocComment(tag.comment)?.trim() ?? '') : null;
        docs.set(node.name.text, { meaning, documentedDefault });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return docs;
}

/** A default as the table prints it: lists comma-separated, the rest as text. */
export function formatDefault(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** Every variable of every schema, in the order the schemas declare them. */
export function collectVarDocs(): VarDoc[] {
  const docstrings = readDocstrings();
  const rows = new Map<string, VarDoc>();
  for (const { schema, usedBy } of CONFIG_SCHEMAS) {
    const instance = new (schema as new () => Record<string, unknown>)();
    for (const v of envVarsOf(schema)) {
      const row = rows.get(v.name);
      if (row) {
        row.usedBy.push(usedBy);
        continue;
      }
      const doc = docstrings.get(v.name);
      rows.set(v.name, {
        name: v.name,
        usedBy: [usedBy],
        expected: v.expected,
        meaning: doc?.meaning ?? '',
        documentedDefault: doc?.documentedDefault ?? null,
        actualDefault: v.derived ? v.derived.describe : formatDefault(instance[v.name]),
        derived: v.derived !== undefined,
      });
    }
  }
  return [...rows.values()];
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The markdown table. */
export function renderConfigTable(rows: readonly VarDoc[] = collectVarDocs()): string {
  const lines = ['| variable | used by | default | expected | meaning |', '|---|---|---|---|---|'];
  for (const r of rows) {
    const dflt = r.documentedDefault === null ? 'unset' : r.derived ? r.documentedDefault : `\`${r.documentedDefault}\``;
    lines.push(`| \`${r.name}\` | ${cell(r.usedBy.join(', '))} | ${cell(dflt)} | ${cell(r.expected)} | ${cell(r.meaning)} |`);
  }
  return lines.join('\n');
}

/**
 * `readme` with the text between the markers replaced by `table`.
 * @throws Error when the markers are missing
 */
export function withConfigTable(readme: string, table: string): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md has no ${START_MARKER} … ${END_MARKER} block`);
  return `${readme.slice(0, start + START_MARKER.length)}\n${table}\n${readme.slice(end)}`;
}

if (require.main === module) {
  const path = join(ROOT, 'docs/configuration.md');
  const readme = readFileSync(path, 'utf8');
  const next = withConfigTable(readme, renderConfigTable());
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      process.stderr.write('docs/configuration.md: the configuration table is out of date; run npx tsx scripts/gen-config-docs.ts\n');
      process.exit(1);
    }
  } else if (next !== readme) {
    writeFileSync(path, next);
    process.stdout.write('docs/configuration.md: configuration table updated\n');
  } else {
    process.stdout.write('docs/configuration.md: configuration table up to date\n');
  }
}
