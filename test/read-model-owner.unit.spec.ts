import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { READ_MODEL_TABLE_NAMES } from '@ledger/read-model';

/**
 * House rule of docs/architecture.md §1 and §7: the read model owns its tables. No production SQL in
 * `apps/` names a table of the projections' schema (`READ_MODEL_TABLE_NAMES` of `@ledger/read-model`:
 * the read models' and the projection engine's); the apps read them through the `ReadModel`. And no
 * production code of the API (`apps/ledger/`) calls `.query(` itself: SQL on the ledger's own tables
 * goes through the typed helpers (`apps/ledger/src/kernel/sql.ts`), migrations aside.
 *
 * What counts as SQL naming a table, precisely: inside a string or template literal (comments and
 * code are not SQL text), a table name as a whole word
 *   - after `FROM`, `JOIN`, `INTO`, `UPDATE`, `TABLE` or `TRUNCATE` in capitals (the house's SQL
 *     style), qualified or not (`FROM bet_settlements`, `JOIN read.audit_events`); or
 *   - after a qualifier and a dot, anywhere: an interpolation (`${schema}.bet_settlements`), a quoted
 *     identifier (`"read".roads`) or a lower-case identifier (`read.checkpoints`).
 * Prose that mentions a table (`'read from projection_incidents'`, a comment) is not SQL, and neither
 * is a name qualified by `public` (the event store's schema, which the projections' never is: its
 * `public.outbox_leases` is the relay's, not the engine's).
 *
 * No file is exempt. (The gaming-day close's files were, while their SQL moved into the read model;
 * the allow-list went with the last of them.)
 */
const ROOT = path.resolve(__dirname, '..');

/** One finding: where, and what. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly what: string;
}

/** Whether a repository-relative path is production source of `apps/`: `.ts`/`.tsx`, not a spec, a declaration, a migration, a fixture or test support. */
export function isAppSource(rel: string): boolean {
  if (!/^apps\//.test(rel) || !/\.tsx?$/.test(rel) || /\.d\.ts$/.test(rel)) return false;
  if (/\.spec\.tsx?$/.test(rel) || /\.fixture\.tsx?$/.test(rel)) return false;
  return !rel.split('/').some((dir) => ['migrations', 'testing', 'fixtures', 'node_modules', 'dist'].includes(dir));
}

function appFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const rel = path.relative(ROOT, full).split(path.sep).join('/');
        if (isAppSource(rel)) out.push(rel);
      }
    }
  };
  if (existsSync(path.join(ROOT, 'apps'))) walk(path.join(ROOT, 'apps'));
  return out.sort();
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/**
 * The text of a source as only its string and template literals: every other character (code,
 * comments, an interpolation's expression) blanked, line breaks kept, so offsets and lines are the
 * source's. An interpolation stays visible by its `${` and `}`.
 */
export function literalText(fileName: string, text: string): string {
  const out = text.replace(/[^\n]/g, ' ').split('');
  const keep = (node: ts.Node, sf: ts.SourceFile) => {
    for (let i = node.getStart(sf); i < node.getEnd(); i++) out[i] = text[i];
  };
  const sf = parse(fileName, text);
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) keep(node, sf);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out.join('');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where the SQL text of a source names one of `tables` (the rule of this file's comment). */
export function sqlNamingTables(fileName: string, text: string, tables: readonly string[]): Finding[] {
  const names = tables.map(escape).join('|');
  // a qualifier: an interpolation, a quoted or a plain identifier, never `public` (the event store's schema)
  const notPublic = `(?!"?public"?\\s*\\.)`;
  const qualifier = `(?:\\$\\{[^}\\n]*\\}|${notPublic}"[A-Za-z_][A-Za-z0-9_$]*"|\\b${notPublic}[A-Za-z_][A-Za-z0-9_]*)\\s*\\.\\s*`;
  const afterKeyword = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|TRUNCATE)\\s+(?:ONLY\\s+)?(?:${qualifier})?"?(${names})"?(?![A-Za-z0-9_])`, 'g');
  const qualified = new RegExp(`(?:\\}|${notPublic}"[A-Za-z_][A-Za-z0-9_$]*"|\\b${notPublic}[a-z_][a-z0-9_]*)\\s*\\.\\s*"?(${names})"?(?![A-Za-z0-9_])`, 'g');
  const sql = literalText(fileName, text);
  const found = new Map<number, Finding>();
  for (const re of [afterKeyword, qualified]) {
    for (const m of sql.matchAll(re)) {
      const at = (m.index ?? 0) + m[0].lastIndexOf(m[1]);
      const line = sql.slice(0, at).split('\n').length;
      if (!found.has(at)) found.set(at, { file: fileName, line, what: `SQL names the read model's table ${m[1]}` });
    }
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, f]) => f);
}

/** Where a source calls `.query(` (a method named `query`, whatever the object), by line. */
export function queryCalls(fileName: string, text: string): Finding[] {
  const sf = parse(fileName, text);
  const out: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'query') {
      out.push({ file: fileName, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, what: `untyped ${node.expression.getText(sf).slice(0, 60)}( (use rows/first/exec of kernel/sql.ts, or the read model)` });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The findings outside the allow-list, as `file:line what`, and the allow-list entries without a finding. */
function judge(findings: readonly Finding[], allowed: ReadonlySet<string>): string[] {
  const problems = findings.filter((f) => !allowed.has(f.file)).map((f) => `${f.file}:${f.line} ${f.what}`);
  for (const file of allowed) if (!findings.some((f) => f.file === file)) problems.push(`${file}: no longer offends: remove it from the allow-list`);
  return problems;
}

describe('house rule: the read model owns its tables (docs/architecture.md §7)', () => {
  const files = appFiles();
  const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

  it("knows the projections' tables and finds the apps' production files", () => {
    expect(READ_MODEL_TABLE_NAMES).toEqual(
      expect.arrayContaining(['audit_events', 'shoe_state', 'hand_outcomes', 'hand_outcome_revisions', 'bet_settlements', 'bet_settlement_revisions', 'reconciliation', 'ledger_entries', 'roads']),
    );
    expect(READ_MODEL_TABLE_NAMES).toEqual(expect.arrayContaining(['checkpoints', 'applied_events', 'stream_heads', 'quarantine', 'projection_incidents', 'outbox_leases', 'analytics_outbox']));
    expect(files).toContain('apps/ledger/src/audit/audit.service.ts');
    expect(files).toContain('apps/projector/src/main.ts');
    expect(files.some((f) => /\.spec\.ts$|\/migrations\//.test(f))).toBe(false);
  });

  it("no production SQL in apps/ names a table of the projections' schema (but the allow-listed files)", () => {
    expect(
      judge(
        files.flatMap((f) => sqlNamingTables(f, read(f), READ_MODEL_TABLE_NAMES)),
        new Set(),
      ),
    ).toEqual([]);
  });

  it('no production code of the API (apps/ledger/) calls .query( itself (but the allow-listed files)', () => {
    expect(
      judge(
        files.filter((f) => f.startsWith('apps/ledger/')).flatMap((f) => queryCalls(f, read(f))),
        new Set(),
      ),
    ).toEqual([]);
  });
});

describe('house rule: the read-model rule bites', () => {
  const tables = ['bet_settlements', 'audit_events', 'checkpoints', 'roads'];
  const fixture = [
    'const a = `SELECT * FROM ${schema}.bet_settlements WHERE bet_id = $1`;', // 1: caught
    '// the projection bet_settlements holds every bet; SELECT * FROM read.bet_settlements', // 2: a comment, not SQL
    "const help = 'read from audit_events at scrape';", // 3: prose
    "const b = 'SELECT e.* FROM events e JOIN audit_events a ON a.event_id = e.event_id';", // 4: caught (JOIN)
    'const relations = [`${s}.checkpoints`];', // 5: caught (interpolation qualifier)
    'const c = \'SELECT * FROM "read".roads\';', // 6: caught
    "const d = 'INSERT INTO query_log (actor_id) VALUES ($1)';", // 7: not a read-model table
    "const e = 'read.roads_extra';", // 8: another word
    'const f = `UPDATE ${t.x}.bet_settlements SET x = 1`;', // 9: caught (once)
    '/** `FROM ${schema}.audit_events` in a doc comment */', // 10: a comment
    "const g = 'SELECT 1 FROM checkpoints';", // 11: caught (unqualified after FROM)
    "const h = ['public.roads', 'SELECT * FROM public.checkpoints', 'FROM \"public\".roads'];", // 12: the event store's schema
    '',
  ].join('\n');

  it('catches a table named after FROM/JOIN/INTO/UPDATE or after a qualifier and a dot, in string and template literals only, by line', () => {
    expect(sqlNamingTables('apps/x/src/fixture.ts', fixture, tables).map((f) => [f.line, f.what])).toEqual([
      [1, "SQL names the read model's table bet_settlements"],
      [4, "SQL names the read model's table audit_events"],
      [5, "SQL names the read model's table checkpoints"],
      [6, "SQL names the read model's table roads"],
      [9, "SQL names the read model's table bet_settlements"],
      [11, "SQL names the read model's table checkpoints"],
    ]);
  });

  it('catches a .query( call, not the word in a string or a comment', () => {
    const text = ["await ds.query('SELECT 1');", '// ds.query(x)', "const s = 'q.query(1)';", 'await this.heavy.query<number>(`SELECT 2`);', 'const f = ds.query;', ''].join('\n');
    expect(queryCalls('apps/x/src/fixture.ts', text).map((f) => f.line)).toEqual([1, 4]);
  });

  it('reports a finding outside the allow-list with file:line, and an allow-list entry that no longer offends', () => {
    const findings = sqlNamingTables('apps/x/src/a.ts', fixture, tables);
    expect(judge(findings, new Set(['apps/x/src/b.ts']))[0]).toBe("apps/x/src/a.ts:1 SQL names the read model's table bet_settlements");
    expect(judge(findings, new Set(['apps/x/src/a.ts', 'apps/x/src/b.ts']))).toEqual(['apps/x/src/b.ts: no longer offends: remove it from the allow-list']);
  });

  it('leaves specs, declarations, migrations and fixtures out of the production files', () => {
    expect(isAppSource('apps/ledger/src/audit/audit.service.ts')).toBe(true);
    expect(isAppSource('apps/console/src/main.tsx')).toBe(true);
    for (const rel of ['apps/ledger/src/x.unit.spec.ts', 'apps/ledger/src/persistence/migrations/1-x.ts', 'apps/console/src/api/schema.d.ts', 'libs/read-model/src/sql.ts', 'test/x.ts']) {
      expect(isAppSource(rel)).toBe(false);
    }
  });
});
