import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The size house rules of docs/architecture.md §1: no production source file in `apps/` or `libs/`
 * is longer than 500 lines, and no function, method, accessor, constructor or arrow function in it
 * is longer than 80 lines (measured with the TypeScript compiler, from the function's first token
 * to its last, nested functions included). Today's offenders are on a short, named allow-list, each
 * at its size today and with the reason it waits: an entry fails the spec when its offender grows
 * past the recorded size or comes under the limit (then the entry goes), so the list only shrinks.
 * Sizes are of the code as Prettier formats it (`npm run format:check` in `.ci/run`): they were
 * measured again once, in the commit that first applied the formatter.
 * The last block proves each rule bites, on generated sources.
 */
const ROOT = path.resolve(__dirname, '..');

/** The longest production source file, in lines. */
export const FILE_LINES_MAX = 500;
/** The longest production function, in lines. */
export const FUNCTION_LINES_MAX = 80;

/** One allow-listed offender: its size today (lines) and why it waits. */
export interface Allowance {
  readonly lines: number;
  readonly why: string;
}

/** Production files over {@link FILE_LINES_MAX} lines, until split (repository-relative path → allowance). */
export const LONG_FILES: Readonly<Record<string, Allowance>> = {};

/** Production functions over {@link FUNCTION_LINES_MAX} lines, until split (`path#qualified name` → allowance). */
export const LONG_FUNCTIONS: Readonly<Record<string, Allowance>> = {
  'libs/config/src/schemas/edge.ts#WithEdgeLimits': { lines: 100, why: 'a mixin class of decorated settings, until split by concern' },
  'libs/projections/src/applier.ts#ProjectionApplier.applyBatch': { lines: 195, why: 'the whole batch transaction (dedupe, gaps, apply, bookkeeping), until split' },
  'libs/projections/src/rebuild.ts#rebuildProjections': { lines: 119, why: "the rebuild's phases in one function, until split" },
  'libs/rules/src/par-sheet.ts#computeJoint': { lines: 135, why: "the exact enumeration's nested loops, until split" },
};

/** Generated files: written by a tool, never by hand (`npm run console:types`). */
const GENERATED = new Set(['apps/console/src/api/schema.d.ts']);

/**
 * Whether a repository-relative path is production source: a `.ts`/`.tsx` file under `apps/` or
 * `libs/` that is not a spec, a migration, a bench, a test fixture (`testing/`, `fixtures/`,
 * `*.fixture.ts`) or generated.
 */
export function isProductionSource(rel: string): boolean {
  if (!/^(apps|libs)\//.test(rel) || !/\.tsx?$/.test(rel)) return false;
  if (/\.spec\.tsx?$/.test(rel) || /\.fixture\.tsx?$/.test(rel) || GENERATED.has(rel)) return false;
  return !rel.split('/').some((dir) => ['migrations', 'testing', 'fixtures', 'bench', 'node_modules', 'dist'].includes(dir));
}

/** Every production source file of the repository, repository-relative with `/`, sorted. */
function productionFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const rel = path.relative(ROOT, full).split(path.sep).join('/');
        if (isProductionSource(rel)) out.push(rel);
      }
    }
  };
  for (const top of ['apps', 'libs']) if (existsSync(path.join(ROOT, top))) walk(path.join(ROOT, top));
  return out.sort();
}

/** Lines of a text as `wc -l` counts them (a final line without a line feed counts too). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/** A function of a source file and its length in lines. */
export interface FunctionSize {
  /** `Class.method`, `function`, `outer>inner`; an anonymous function is named after where it stands (`x>(arrow in useMemo)`). */
  readonly name: string;
  /** Where it starts, 1-based. */
  readonly line: number;
  /** Its length: the lines from its first token to its last, both counted. */
  readonly lines: number;
}

function propertyName(name: ts.PropertyName | ts.BindingName | undefined, sf: ts.SourceFile): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(sf);
}

/** The name a function has where it stands: declared, assigned, a property, or the call it is an argument of. */
function nameOf(fn: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  const own = fn.name ? propertyName(fn.name, sf) : undefined;
  if (ts.isGetAccessor(fn)) return `get ${own}`;
  if (ts.isSetAccessor(fn)) return `set ${own}`;
  if (own) return own;
  const p = fn.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p)) return propertyName(p.name, sf) ?? '(anonymous)';
  if (ts.isExportAssignment(p)) return 'default';
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
    const callee = p.expression;
    const called = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : 'call';
    return `(${ts.isArrowFunction(fn) ? 'arrow' : 'function'} in ${called})`;
  }
  if (ts.isJsxExpression(p)) {
    let el: ts.Node = p.parent;
    while (!ts.isJsxElement(el) && !ts.isJsxSelfClosingElement(el) && !ts.isSourceFile(el)) el = el.parent;
    const tag = ts.isJsxElement(el) ? el.openingElement.tagName.getText(sf) : ts.isJsxSelfClosingElement(el) ? el.tagName.getText(sf) : 'JSX';
    return `(${ts.isArrowFunction(fn) ? 'arrow' : 'function'} in <${tag}>)`;
  }
  return '(anonymous)';
}

/** The named class, or the object literal assigned to a name, a function is a member of, if any. */
function ownerOf(fn: ts.FunctionLikeDeclaration): string | undefined {
  const p = fn.parent;
  const container = ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p) ? p.parent : p;
  if ((ts.isClassDeclaration(container) || ts.isClassExpression(container)) && container.name) return container.name.text;
  if (ts.isObjectLiteralExpression(container) && ts.isVariableDeclaration(container.parent) && ts.isIdentifier(container.parent.name)) return container.parent.name.text;
  return undefined;
}

/**
 * Every function of a TypeScript source with a body, and its length in lines (first token to last,
 * JSDoc and decorators aside; nested functions count in the outer one and on their own).
 * @param fileName decides the parse (`.tsx` parses JSX)
 */
export function functionSizes(fileName: string, text: string): FunctionSize[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: FunctionSize[] = [];
  const visit = (node: ts.Node, outer: string | undefined): void => {
    let here = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const owner = ownerOf(fn);
      const own = owner ? `${owner}.${nameOf(fn, sf)}` : nameOf(fn, sf);
      here = outer ? `${outer}>${own}` : own;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
      out.push({ name: here, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, here));
  };
  visit(sf, undefined);
  return out;
}

/**
 * What a measure breaks against a limit and its allow-list: an offender not on the list; an entry
 * whose offender grew past its recorded size; an entry whose offender is under the limit now (or
 * gone): remove it. An offender that shrank but is still over the limit passes (record the new
 * size when you like).
 * @param sizes what was measured: key → lines
 */
export function judge(sizes: ReadonlyMap<string, number>, max: number, allowed: Readonly<Record<string, Allowance>>): string[] {
  const problems: string[] = [];
  for (const [key, lines] of sizes) {
    if (lines <= max) continue;
    const a = allowed[key];
    if (!a) problems.push(`${key}: ${lines} lines, over the limit of ${max} (split it)`);
    else if (lines > a.lines) problems.push(`${key}: ${lines} lines, grew past its allowance of ${a.lines} (split it, don't raise the allowance)`);
  }
  for (const key of Object.keys(allowed)) {
    const lines = sizes.get(key);
    if (lines === undefined || lines <= max) problems.push(`${key}: ${lines ?? 'gone'}${lines === undefined ? '' : ' lines'}, no longer over ${max}: remove it from the allow-list`);
  }
  return problems;
}

/** Per-file function measures as `path#name` → lines (the longest, when a name repeats). */
function functionMeasures(files: readonly string[], read: (rel: string) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const rel of files) {
    for (const f of functionSizes(rel, read(rel))) {
      const key = `${rel}#${f.name}`;
      m.set(key, Math.max(m.get(key) ?? 0, f.lines));
    }
  }
  return m;
}

describe('house rules: file and function sizes (docs/architecture.md §1)', () => {
  const files = productionFiles();
  const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

  it('finds the production files, and leaves specs, migrations, fixtures and generated files out', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain('libs/rules/src/tableau.ts');
    expect(files).toContain('apps/console/src/main.tsx');
    expect(files.some((f) => /\.spec\.tsx?$|\/migrations\/|\/testing\/|schema\.d\.ts$/.test(f))).toBe(false);
  });

  it(`no production file is over ${FILE_LINES_MAX} lines, but the allow-listed ones, none past its recorded size`, () => {
    const sizes = new Map(files.map((f) => [f, lineCount(read(f))] as const));
    expect(judge(sizes, FILE_LINES_MAX, LONG_FILES)).toEqual([]);
  });

  it(`no production function is over ${FUNCTION_LINES_MAX} lines, but the allow-listed ones, none past its recorded size`, () => {
    expect(judge(functionMeasures(files, read), FUNCTION_LINES_MAX, LONG_FUNCTIONS)).toEqual([]);
  }, 60_000);

  it('every allow-list entry says why it waits', () => {
    for (const a of [...Object.values(LONG_FILES), ...Object.values(LONG_FUNCTIONS)]) expect(a.why).toMatch(/\S{3}/);
  });
});

describe('house rules: the size rules bite', () => {
  const body = (n: number) => Array.from({ length: n }, (_x, i) => `  const v${i} = ${i};`).join('\n');
  const fixture = [
    '/** generated fixture */',
    `export function tooLong(): void {\n${body(FUNCTION_LINES_MAX - 1)}\n}`, // FUNCTION_LINES_MAX + 1 lines
    `export function justRight(): void {\n${body(FUNCTION_LINES_MAX - 2)}\n}`, // FUNCTION_LINES_MAX lines
    `export class Widget {\n  get size(): number {\n    return 1;\n  }\n  render(): void {\n    const f = () => {\n${body(FUNCTION_LINES_MAX)}\n    };\n    f();\n  }\n}`,
    `export const handler = async () => {\n${body(FUNCTION_LINES_MAX)}\n};`,
    `export const projection = {\n  apply(): void {\n${body(2)}\n  },\n};`,
    `[1].map((x) => {\n${body(FUNCTION_LINES_MAX)}\n  return x;\n});`,
    '',
  ].join('\n');

  it('functionSizes measures declarations, methods, accessors, arrows and anonymous callbacks, by name', () => {
    const sizes = functionSizes('apps/x/src/fixture.ts', fixture);
    const byName = Object.fromEntries(sizes.map((s) => [s.name, s.lines]));
    expect(byName).toEqual({
      tooLong: FUNCTION_LINES_MAX + 1,
      justRight: FUNCTION_LINES_MAX,
      'Widget.get size': 3,
      'Widget.render': FUNCTION_LINES_MAX + 5,
      'Widget.render>f': FUNCTION_LINES_MAX + 2,
      handler: FUNCTION_LINES_MAX + 2,
      'projection.apply': 4,
      '(arrow in map)': FUNCTION_LINES_MAX + 3,
    });
  });

  it('a JSX component is measured too', () => {
    const tsx = `export function Page() {\n  return (\n    <div>\n${Array.from({ length: FUNCTION_LINES_MAX }, () => '      <p>x</p>').join('\n')}\n    </div>\n  );\n}\n`;
    expect(functionSizes('apps/console/src/page.tsx', tsx)).toEqual([{ name: 'Page', line: 1, lines: FUNCTION_LINES_MAX + 6 }]);
    const renderProp = `export function Page() {\n  return <Query>{(r) => <p>{r}</p>}</Query>;\n}\n`;
    expect(functionSizes('apps/console/src/page.tsx', renderProp).map((f) => f.name)).toEqual(['Page', 'Page>(arrow in <Query>)']);
  });

  it('a function over the limit is reported; one at the limit is not', () => {
    const m = functionMeasures(['apps/x/src/fixture.ts'], () => fixture);
    expect(judge(m, FUNCTION_LINES_MAX, {})).toEqual([
      `apps/x/src/fixture.ts#tooLong: ${FUNCTION_LINES_MAX + 1} lines, over the limit of ${FUNCTION_LINES_MAX} (split it)`,
      `apps/x/src/fixture.ts#Widget.render: ${FUNCTION_LINES_MAX + 5} lines, over the limit of ${FUNCTION_LINES_MAX} (split it)`,
      `apps/x/src/fixture.ts#Widget.render>f: ${FUNCTION_LINES_MAX + 2} lines, over the limit of ${FUNCTION_LINES_MAX} (split it)`,
      `apps/x/src/fixture.ts#handler: ${FUNCTION_LINES_MAX + 2} lines, over the limit of ${FUNCTION_LINES_MAX} (split it)`,
      `apps/x/src/fixture.ts#(arrow in map): ${FUNCTION_LINES_MAX + 3} lines, over the limit of ${FUNCTION_LINES_MAX} (split it)`,
    ]);
  });

  it('a file over the limit is reported; one at the limit is not', () => {
    const lines = (n: number) => 'export const x = 1;\n'.repeat(n);
    expect(lineCount(lines(FILE_LINES_MAX))).toBe(FILE_LINES_MAX);
    const sizes = new Map([
      ['libs/x/src/long.ts', lineCount(lines(FILE_LINES_MAX + 1))],
      ['libs/x/src/fine.ts', lineCount(lines(FILE_LINES_MAX))],
    ]);
    expect(judge(sizes, FILE_LINES_MAX, {})).toEqual([`libs/x/src/long.ts: ${FILE_LINES_MAX + 1} lines, over the limit of ${FILE_LINES_MAX} (split it)`]);
  });

  it('an allow-listed offender passes at or under its size, fails when it grows, and its entry fails once it is under the limit or gone', () => {
    const until = 'until split';
    const allowed = { 'a.ts': { lines: 600, why: until }, 'b.ts': { lines: 700, why: until }, 'c.ts': { lines: 550, why: until }, 'd.ts': { lines: 510, why: until } };
    const sizes = new Map([
      ['a.ts', 590],
      ['b.ts', 701],
      ['c.ts', 500],
    ]);
    expect(judge(sizes, FILE_LINES_MAX, allowed)).toEqual([
      "b.ts: 701 lines, grew past its allowance of 700 (split it, don't raise the allowance)",
      'c.ts: 500 lines, no longer over 500: remove it from the allow-list',
      'd.ts: gone, no longer over 500: remove it from the allow-list',
    ]);
  });

  it('specs, migrations, fixtures, benches and generated files are not production source', () => {
    expect(isProductionSource('libs/rules/src/tableau.ts')).toBe(true);
    expect(isProductionSource('apps/console/src/pages/Shoes.tsx')).toBe(true);
    for (const rel of [
      'libs/rules/src/tableau.unit.spec.ts',
      'libs/event-store/src/migrations/1700000000000-Init.ts',
      'libs/projections/src/testing/kafka-kit.ts',
      'libs/projections/src/testing/small-shoe.fixture.ts',
      'libs/shoe/bench/busy-shoe.ts',
      'apps/console/src/api/schema.d.ts',
      'test/house-rules.unit.spec.ts',
      'scripts/verify.ts',
    ]) {
      expect(isProductionSource(rel)).toBe(false);
    }
  });
});
