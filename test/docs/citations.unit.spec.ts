/**
 * Every citation resolves inside the repository (docs/architecture.md §1; the house rule that code
 * cites the product's own documents):
 *
 * - the product's documents `docs/domain-rules.md`, `docs/guarantees.md`, `docs/architecture.md`
 *   number their sections with headings `## §N Title` / `### §N.M Title`, contiguously, with the
 *   numbers others cite (domain rules §1–§7 with §3.1–§3.3 and §5.1–§5.5, guarantees §1–§13,
 *   architecture §1–§11);
 * - no file in `apps libs test scripts bench` (nor the root configs, the README, the docs) cites
 *   `shared/docs` or `style.md`; code cites no issue number, no unprefixed `domain-rules.md` /
 *   `architecture.md`, no bare "guarantee N";
 * - every `docs/<file>.md` cited, with a section or without, names a file that exists;
 * - every `docs/<file>.md §N` cited names a section that is a heading of that file;
 *   a bare `§N` (the code's shorthand for docs/domain-rules.md) is a section of docs/domain-rules.md,
 *   except inside one of the three documents, where it is a section of that document;
 * - every repository path the three documents name in backticks exists.
 *
 * The last block proves each check can fail. This spec spells the old forms on purpose and is not
 * scanned.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = ['domain-rules', 'guarantees', 'architecture', 'reports'] as const;
type DocName = (typeof DOCS)[number];

/** Directories whose files may cite, and the extensions read there. */
const CODE_DIRS = ['apps', 'libs', 'test', 'scripts', 'bench'];
const EXTENSIONS = ['.ts', '.js', '.cjs', '.mjs', '.md', '.sh'];
/** Files outside those directories that are read too. */
const OTHER_FILES = ['.dependency-cruiser.cjs', 'jest.config.js', 'README.md', 'docs/asyncapi/asyncapi.yaml', ...DOCS.map((d) => `docs/${d}.md`)];
/** Never read: they spell the old forms on purpose. */
const SKIPPED = (rel: string) => rel.startsWith('test/docs/');

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.stack')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (EXTENSIONS.some((e) => name.endsWith(e))) out.push(relative(ROOT, full).split('\\').join('/'));
  }
}

function scannedFiles(): { code: string[]; other: string[] } {
  const code: string[] = [];
  for (const d of CODE_DIRS) walk(join(ROOT, d), code);
  return { code: code.filter((f) => !SKIPPED(f)).sort(), other: OTHER_FILES.filter((f) => existsSync(join(ROOT, f))) };
}

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

/** Section numbers of a document: headings `#… §N Title` or `#… §N.M Title`. */
export function sectionsOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+§(\d+(?:\.\d+)*)\s/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

/** A citation found in a file: the document (null for a bare §) and the section cited. */
interface Cite {
  readonly file: string;
  readonly line: number;
  readonly doc: string | null;
  readonly section: string;
}

const SECTION = String.raw`§\d+(?:\.\d+)*`;
/** `docs/<name>.md` followed by one or more sections, separated by , and or – - (also across a comment line break). */
const CITATION = new RegExp(String.raw`docs/([a-z0-9-]+)\.md((?:(?:\s|\*|//|#)*(?:,|and|or|to|–|—|-)?(?:\s|\*|//|#)*${SECTION})+)`, 'g');

/** Every citation of a text: explicit ones of a docs file, and bare §N (domain rules). */
export function citationsIn(file: string, text: string): Cite[] {
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const out: Cite[] = [];
  const consumed: [number, number][] = [];
  for (const m of text.matchAll(CITATION)) {
    const start = m.index!;
    consumed.push([start, start + m[0].length]);
    const base = start + m[0].length - m[2].length;
    for (const s of m[2].matchAll(new RegExp(SECTION, 'g'))) {
      out.push({ file, line: lineOf(base + s.index!), doc: m[1], section: s[0].slice(1) });
    }
  }
  for (const s of text.matchAll(new RegExp(SECTION, 'g'))) {
    const i = s.index!;
    if (consumed.some(([a, b]) => i >= a && i < b)) continue;
    // another standard's section (RFC 8785 §3.2) is not ours
    if (/\b(?:RFC|ISO|IEC|ECMA-?)\s*\d+\s*$/.test(text.slice(Math.max(0, i - 16), i))) continue;
    out.push({ file, line: lineOf(i), doc: null, section: s[0].slice(1) });
  }
  return out;
}

/** Citation forms that are not the product's: notes outside the repository, issue numbers, unprefixed documents. */
const OLD_FORMS: readonly { readonly name: string; readonly re: RegExp }[] = [
  { name: 'shared/docs', re: /shared\/docs/ },
  { name: 'style.md', re: /(?<![\w-])style\.md/ },
  { name: 'issue number', re: /\b[Ii]ssue #?\d+/ },
  { name: 'outside README', re: /\.\.\/shared\/[^\s`'")]*README\.md/ },
  { name: 'old architecture.md', re: /(?<![\w/.-])architecture\.md/ },
  { name: 'old domain-rules.md', re: /(?<![\w/.-])domain-rules(?:\.md)?(?![\w-])/ },
  { name: 'bare guarantee', re: /(?<![\w/.-])guarantees? \d/ },
];

/** Lines of `text` that hold an old citation form (the first form found on each), 1-based. */
export function findLeftovers(text: string): { line: number; text: string; pattern: string }[] {
  const out: { line: number; text: string; pattern: string }[] = [];
  text.split('\n').forEach((l, i) => {
    const p = OLD_FORMS.find((f) => f.re.test(l));
    if (p) out.push({ line: i + 1, text: l.trim(), pattern: p.name });
  });
  return out;
}

/** Every `docs/….md` a text names (with a section or without) that is not a file of the repository. */
export function missingDocs(file: string, text: string, exists: (rel: string) => boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md(?![\w-])/g)) {
    if (!exists(m[0])) out.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]} does not exist`);
  }
  return out;
}

/** Lines of code that still use a citation form that is not the product's. */
function oldForms(file: string, text: string): string[] {
  return findLeftovers(text).map((l) => `${file}:${l.line}: [${l.pattern}] ${l.text}`);
}

describe('the product documents (docs/)', () => {
  const expected: Record<DocName, string[]> = {
    'domain-rules': ['1', '2', '3', '3.1', '3.2', '3.3', '4', '5', '5.1', '5.2', '5.3', '5.4', '5.5', '6', '7'],
    guarantees: Array.from({ length: 13 }, (_x, i) => String(i + 1)),
    architecture: Array.from({ length: 11 }, (_x, i) => String(i + 1)),
    reports: ['1', '2', '3', '4', '4.1', '4.2', '4.3', '4.4', '4.5', '5', '6', '7', '8'],
  };

  it.each(DOCS)('docs/%s.md has exactly the numbered sections others cite, in order', (doc) => {
    const file = `docs/${doc}.md`;
    expect(existsSync(join(ROOT, file))).toBe(true);
    expect(sectionsOf(read(file))).toEqual(expected[doc]);
  });

  it('every repository path the documents name in backticks exists', () => {
    const missing: string[] = [];
    for (const doc of DOCS) {
      const text = read(`docs/${doc}.md`);
      for (const m of text.matchAll(/`((?:apps|libs|test|scripts|bench|config|docs|docker)\/[^`\s]*)`/g)) {
        const p = m[1].replace(/\/$/, '');
        if (/[*<>{}…]/.test(p)) continue; // a pattern, not a path
        if (!existsSync(join(ROOT, p))) missing.push(`docs/${doc}.md: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('citations in the repository', () => {
  const { code, other } = scannedFiles();
  const sections = new Map<string, Set<string>>();
  const sectionsFor = (doc: string): Set<string> | undefined => {
    if (!sections.has(doc)) {
      const f = `docs/${doc}.md`;
      if (!existsSync(join(ROOT, f))) return undefined;
      sections.set(doc, new Set(sectionsOf(read(f))));
    }
    return sections.get(doc);
  };

  it('finds the files it checks', () => {
    expect(code.length).toBeGreaterThan(100);
    expect(code).toContain('libs/rules/src/tableau.ts');
  });

  it('nothing cites shared/docs or style.md', () => {
    const bad: string[] = [];
    for (const f of [...code, ...other]) {
      read(f)
        .split('\n')
        .forEach((l, i) => {
          if (/shared\/docs|(?<![\w-])style\.md/.test(l)) bad.push(`${f}:${i + 1}: ${l.trim()}`);
        });
    }
    expect(bad).toEqual([]);
  });

  it('code cites no issue number, no unprefixed domain-rules.md or architecture.md, no bare "guarantee N"', () => {
    const bad = code.flatMap((f) => oldForms(f, read(f)));
    expect(bad).toEqual([]);
  });

  it('every docs/<file>.md named exists, with a section or without', () => {
    const bad = [...code, ...other].flatMap((f) => missingDocs(f, read(f), (rel) => existsSync(join(ROOT, rel))));
    expect(bad).toEqual([]);
  });

  it('every docs/<file>.md §N cited exists, and every bare §N is a section of docs/domain-rules.md (of its own document in docs/)', () => {
    const bad: string[] = [];
    for (const f of [...code, ...other]) {
      for (const c of citationsIn(f, read(f))) {
        const own = /^docs\/([a-z0-9-]+)\.md$/.exec(f)?.[1];
        const doc = c.doc ?? (own && (DOCS as readonly string[]).includes(own) ? own : 'domain-rules');
        const known = sectionsFor(doc);
        if (!known) bad.push(`${c.file}:${c.line}: docs/${doc}.md does not exist (cited §${c.section})`);
        else if (!known.has(c.section)) bad.push(`${c.file}:${c.line}: docs/${doc}.md has no §${c.section}${c.doc ? '' : ' (a bare §)'}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the checks can fail', () => {
  it('sectionsOf reads § headings only, outside code fences', () => {
    expect(sectionsOf('# Title\n## §1 One\n### §1.1 Sub\n```\n## §9 not a heading\n```\n## 2. Old style\n## §2 Two\n')).toEqual(['1', '1.1', '2']);
  });

  it('citationsIn finds lists, ranges, line breaks and bare §, and skips other standards', () => {
    const text = [' * (docs/guarantees.md §1–§5, §8 and §11) and docs/domain-rules.md §3.2', ' * exactly once (docs/guarantees.md', ' * §6): per call; bare §5.4; RFC 8785 §3.2 is not ours'].join('\n');
    expect(citationsIn('x.ts', text).map((c) => `${c.line}:${c.doc ?? '-'}:${c.section}`)).toEqual(['1:guarantees:1', '1:guarantees:5', '1:guarantees:8', '1:guarantees:11', '1:domain-rules:3.2', '3:guarantees:6', '3:-:5.4']);
  });

  it('findLeftovers names each old form', () => {
    const text = ['a (style.md point 5)', 'b (../shared/docs/domain-rules.md)', 'c (issue #4 item 4)', 'd (architecture.md guarantee 7)', 'e (guarantee 3)', 'f (docs/guarantees.md §3)'].join('\n');
    expect(findLeftovers(text).map((l) => `${l.line}:${l.pattern}`)).toEqual(['1:style.md', '2:shared/docs', '3:issue number', '4:old architecture.md', '5:bare guarantee']);
  });

  it('missingDocs names a cited document that does not exist, with a section or without', () => {
    const text = ['/** An event as stored (docs/events.md). */', ' * (docs/architecture.md §9, docs/nowhere.md §2)', ' * `docs/asyncapi/asyncapi.yaml`, docs/guarantees.md', ' * ../shared/docs/style.md'].join('\n');
    const exists = (rel: string) => ['docs/architecture.md', 'docs/guarantees.md'].includes(rel);
    expect(missingDocs('x.ts', text, exists)).toEqual(['x.ts:1: docs/events.md does not exist', 'x.ts:2: docs/nowhere.md does not exist']);
  });
});
