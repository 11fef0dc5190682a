/**
 * Rewrites the old citations in comments (and test names) so that they cite the product's own
 * documents in `docs/` instead of notes outside the repository:
 *
 *   domain-rules.md §2                 → docs/domain-rules.md §2
 *   architecture.md guarantee 7        → docs/guarantees.md §7   (lists and ranges too: 1–5, 8 and 9)
 *   guarantee 7 (bare)                 → docs/guarantees.md §7
 *   style.md point 5                   → docs/architecture.md §3 (see STYLE_POINT_SECTION)
 *   ../shared/docs/domain-rules.md     → docs/domain-rules.md    (architecture.md → docs/guarantees.md)
 *   docs/architecture.md §Layers       → docs/architecture.md §1 (named sections → numbers)
 *
 * plus a fixed list of context-dependent rewrites (PHRASES): the citations of issue numbers, of
 * the third-party data's README outside the repository, and the management-decision citations
 * that moved from §5 to §6 of docs/domain-rules.md. Each phrase is matched on its exact old text,
 * so it still applies after the code around it has moved to other files.
 *
 * Usage (from the repository root):
 *   npx tsx scripts/convert-citations.ts              rewrite the files in place, print counts
 *   npx tsx scripts/convert-citations.ts --dry-run    print what would change, write nothing
 *   npx tsx scripts/convert-citations.ts --check      exit 1 if anything would change or an old
 *                                                     citation remains that no rule converts
 *   npx tsx scripts/convert-citations.ts --review <file>
 *                                                     write the list of citations of non-product
 *                                                     notes (file:line: text → proposal), nothing else
 *
 * Scanned: `apps libs test scripts bench` (`.ts .js .cjs .mjs .md .sh`) and the files
 * `.dependency-cruiser.cjs`, `jest.config.js`, `docs/asyncapi/asyncapi.yaml`. Not scanned: this
 * script and `test/docs/` (they spell the old forms on purpose), `node_modules`, `dist`.
 * Exit codes: 0 done, 1 `--check` found work, 2 usage error.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Directories scanned, relative to the repository root. */
export const SCAN_DIRS = ['apps', 'libs', 'test', 'scripts', 'bench'] as const;
/** Single files outside those directories that are scanned too. */
export const SCAN_FILES = ['.dependency-cruiser.cjs', 'jest.config.js', 'docs/asyncapi/asyncapi.yaml'] as const;
/** File name endings scanned. */
export const SCAN_EXTENSIONS = ['.ts', '.js', '.cjs', '.mjs', '.md', '.sh'] as const;
/** Paths (relative, `/`-separated) never rewritten: they spell the old forms on purpose. */
export const SKIP_PATHS = ['scripts/convert-citations.ts', 'test/docs/'] as const;

/**
 * `style.md point N` → the section that now holds that point. Points 7 (money) and 10 (the README)
 * have homes outside docs/architecture.md; point 8 (test tiers) has none and is left for review.
 */
export const STYLE_POINT_SECTION: Readonly<Record<number, string>> = {
  1: 'docs/architecture.md §1',
  2: 'docs/architecture.md §3',
  3: 'docs/architecture.md §9',
  4: 'docs/architecture.md §9',
  5: 'docs/architecture.md §3',
  6: 'docs/architecture.md §4',
  7: 'docs/domain-rules.md §4',
  9: 'docs/architecture.md §8',
  10: 'README.md',
};

/** Named sections of docs/architecture.md (as someone may have cited them) → their numbers. */
export const ARCHITECTURE_SECTION_NAMES: Readonly<Record<string, number>> = {
  layers: 1,
  'how-a-card-travels': 2,
  'write-side': 3,
  errors: 4,
  configuration: 5,
  'kafka-port': 6,
  'read-side': 7,
  logging: 8,
  events: 9,
  envelope: 9,
  security: 10,
};

/** One context-dependent rewrite: exact old text → new text. */
export interface Phrase {
  readonly from: string;
  readonly to: string;
  /** Why, for the review list. */
  readonly why: string;
}

const READ = 'docs/architecture.md §7';
const FAULT = 'docs/guarantees.md §13';
const HAND_HISTORY_FORMAT = 'format: `libs/hand-history/src/hand-history.ts`';

/** Citations of issue numbers, each with its product section. */
export const ISSUE_PHRASES: readonly Phrase[] = [
  { from: '(issue #4 item 3)', to: `(${READ})`, why: 'the projector as its own process: the read side' },
  {
    from: '(issue #4 item 5: "every audit query is itself recorded")',
    to: '(docs/architecture.md §10: "every audit query is itself recorded")',
    why: 'the query log: the access log of the security section',
  },
  { from: 'back office (issue #4 item 5)', to: `back office (${READ})`, why: 'the query API: the read side' },
  { from: 'The read side (issue #4):', to: `The read side (${READ}):`, why: 'the read side' },
  { from: '(issue #4 item 4; published by', to: `(${READ}; published by`, why: 'analytics topics: the read side' },
  { from: '(issue #4 item 4; the same pattern', to: `(${READ}; the same pattern`, why: 'analytics topics: the read side' },
  { from: 'every projection table of issue #4 (items 1 and 6) and the', to: `every projection table (${READ}) and the`, why: 'the read model' },
  { from: '(issue #4 item 4, guarantee 7)', to: `(${READ}, docs/guarantees.md §7)`, why: 'rebuild: the read side and guarantee 7' },
  { from: '(issue #4 item 4)', to: `(${READ})`, why: 'analytics topics: the read side' },
  { from: '(issue #4 item 6)', to: `(${READ})`, why: 'roads: the read side' },
  { from: '— the read side (issue #4)', to: `— the read side (${READ})`, why: 'the read side' },
  { from: '(issue #3, domain-rules.md §5)', to: '(docs/domain-rules.md §5, §6; docs/architecture.md §9)', why: 'the event catalogue: house procedures, decisions, events' },
  { from: 'Issue #6 item 2, fault injection:', to: `Fault injection (${FAULT}):`, why: 'the fault run: adversaries and bad days' },
  { from: '(issue #6 item 2)', to: `(${FAULT})`, why: 'the fault run: adversaries and bad days' },
  { from: ', issue #6 item 3)', to: ')', why: 'the guarantee already cited says it' },
  { from: ', issue #3 item 7)', to: ')', why: 'the guarantee already cited says it' },
  {
    from: 'the generator covered what issue #6 item 3 lists',
    to: 'the generator covered every family of hostile input (docs/guarantees.md §11, §12)',
    why: 'hostile input: guarantees 11 and 12',
  },
  { from: 'Issue #3 acceptance: a whole 8-deck shoe', to: 'A whole 8-deck shoe (docs/guarantees.md §4, §5, §8)', why: 'outbox, per-table order, hash chain' },
  { from: 'Issue #4 acceptance: after a shoe', to: 'Recall and rebuild (docs/guarantees.md §7, §9): after a shoe', why: 'rebuild and attribution' },
  { from: '`npm run bench` (issue #6 item 1):', to: '`npm run bench` (README.md, "Benchmarks"):', why: 'benchmarks are described in the README' },
  { from: '## Targets (issue #6)', to: '## Targets', why: 'the targets are stated below the heading' },
];

/** Citations of the third-party data's README, which is outside the repository. */
export const OUTSIDE_PHRASES: readonly Phrase[] = [
  {
    from: 'hand history (`../shared/data/hand-histories/README.md`, either the',
    to: `hand history (outside the repository, ${HAND_HISTORY_FORMAT}; either the`,
    why: 'cites a README outside the repository',
  },
  {
    from: 'hand history (`../shared/data/hand-histories/README.md`: ranks only,',
    to: `hand history (outside the repository, ${HAND_HISTORY_FORMAT}; ranks only,`,
    why: 'cites a README outside the repository',
  },
  {
    from: ' * (`../shared/data/hand-histories/README.md`) through the rules engine',
    to: ' * (outside the repository; its format is below) through the rules engine',
    why: 'cites a README outside the repository',
  },
  {
    from: 'third-party hands (`../shared/data/hand-histories/README.md`),',
    to: 'third-party hands (outside the repository; format in `hand-history.ts`),',
    why: 'cites a README outside the repository',
  },
];

/** Citations of management decisions and voids, which moved from §5 to §6 of docs/domain-rules.md. */
export const MOVED_TO_6_PHRASES: readonly Phrase[] = [
  { from: 'never updates (§5)', to: 'never updates (§6)', why: 'management decisions are §6' },
  { from: 'a second one approves (§5)', to: 'a second one approves (§6)', why: 'management decisions are §6' },
  { from: '`VoidRound` (§5)', to: '`VoidRound` (§6)', why: 'management decisions are §6' },
  { from: '`VoidShoe` (§5)', to: '`VoidShoe` (§6)', why: 'management decisions are §6' },
  { from: 'Management decisions (§5, §5.4)', to: 'Management decisions (§6, §5.4)', why: 'management decisions are §6' },
  { from: '§5: a reason (3..500 characters)', to: '§6: a reason (3..500 characters)', why: 'management decisions are §6' },
  { from: '(§5 decisions)', to: '(§6)', why: 'management decisions are §6' },
  { from: 'management decision checks (§5)', to: 'management decision checks (§6)', why: 'management decisions are §6' },
  { from: 'management decisions (§5)', to: 'management decisions (§6)', why: 'management decisions are §6' },
  { from: 'domain-rules.md §5: reason, acting and approving managers', to: 'domain-rules.md §6: reason, acting and approving managers', why: 'management decisions are §6' },
  { from: 'voids and corrections (domain-rules.md §5)', to: 'voids and corrections (domain-rules.md §6)', why: 'management decisions are §6' },
  { from: 'they must differ (§5)', to: 'they must differ (§6)', why: 'management decisions are §6' },
  { from: '§5: a void returns every stake', to: '§6: a void returns every stake', why: 'voids are §6' },
  { from: 'domain-rules.md §5: voids and result edits', to: 'domain-rules.md §6: voids and result edits', why: 'voids and corrections are §6' },
  { from: 'state machine (domain-rules.md §2–§5)', to: 'state machine (domain-rules.md §2–§6)', why: 'the state machine also takes the decisions of §6' },
];

/**
 * Every context-dependent rewrite, applied before the general rules (so `from` is written in the
 * old forms). Where one `from` contains another, the longer comes first.
 */
export const PHRASES: readonly Phrase[] = [...ISSUE_PHRASES, ...OUTSIDE_PHRASES, ...MOVED_TO_6_PHRASES];

/** One rule's count of rewrites in a text. */
export type RuleCounts = Record<string, number>;

/** The result of converting one text. */
export interface Conversion {
  readonly text: string;
  /** rule name → number of rewrites. */
  readonly counts: RuleCounts;
}

const SEP = String.raw`\s*(?:,|and|or|to|–|—|-)\s*`;
const NUM_LIST = String.raw`\d+(?:${SEP}\d+)*`;

/** "1–5, 8 and 9" → "§1–§5, §8 and §9". */
function sectionList(list: string): string {
  return list.replace(/\d+/g, (n) => `§${n}`);
}

function bump(counts: RuleCounts, rule: string, by = 1): void {
  if (by > 0) counts[rule] = (counts[rule] ?? 0) + by;
}

/** `text.replace` with a count of the matches under `rule`; `fn` gets the match and its groups ('' when unmatched). */
function replaceCounting(text: string, re: RegExp, counts: RuleCounts, rule: string, fn: (match: string, ...groups: string[]) => string): string {
  return text.replace(re, (match: string, ...rest: unknown[]) => {
    bump(counts, rule);
    const groups = rest.slice(0, rest.findIndex((x) => typeof x === 'number')).map((g) => (typeof g === 'string' ? g : ''));
    return fn(match, ...groups);
  });
}

/**
 * Converts every old citation of one file's text.
 * @param text the file's content
 * @returns the converted text and the number of rewrites per rule (empty when nothing changed)
 */
export function convertText(text: string): Conversion {
  const counts: RuleCounts = {};
  let t = text;

  for (const p of PHRASES) {
    const n = t.split(p.from).length - 1;
    if (n > 0) {
      t = t.split(p.from).join(p.to);
      bump(counts, 'phrase', n);
    }
  }

  // ../shared/docs/<file>.md → docs/<file>.md (the old architecture.md held the guarantees)
  t = replaceCounting(t, /(?:\.\.\/)*shared\/docs\/(domain-rules|architecture|style)\.md/g, counts, 'shared-docs-path', (_m, file) =>
    file === 'domain-rules' ? 'docs/domain-rules.md' : file === 'architecture' ? 'docs/guarantees.md' : 'docs/architecture.md',
  );

  // architecture.md guarantee(s) LIST → docs/guarantees.md §LIST (also across a comment line break)
  t = replaceCounting(
    t,
    new RegExp(String.raw`(?<![\w/.-])architecture\.md(\s*(?:\n[ \t]*(?:\*|//|#)?[ \t]*)?)guarantees? (${NUM_LIST})`, 'g'),
    counts,
    'architecture-guarantee',
    (_m, gap, list) => `docs/guarantees.md${gap}${sectionList(list)}`,
  );

  // style.md point(s) N → the section that now holds it
  t = replaceCounting(t, /(?<![\w/.-])style\.md points? (\d+)/g, counts, 'style-point', (m, n) => STYLE_POINT_SECTION[Number(n)] ?? m);

  // docs/architecture.md §Layers → docs/architecture.md §1
  t = replaceCounting(t, /docs\/architecture\.md §([A-Za-z][A-Za-z -]*[A-Za-z])/g, counts, 'architecture-named-section', (m, name) => {
    const n = ARCHITECTURE_SECTION_NAMES[name.toLowerCase().replace(/\s+/g, '-')];
    return n === undefined ? m : `docs/architecture.md §${n}`;
  });

  // domain-rules.md / domain-rules (no extension) → docs/domain-rules.md
  t = replaceCounting(t, /(?<![\w/.-])domain-rules(?:\.md)?(?![\w-])/g, counts, 'domain-rules', () => 'docs/domain-rules.md');

  // architecture.md that is not docs/architecture.md and not followed by a guarantee: left alone
  // (the old file had no numbered sections), reported by findLeftovers.

  // bare "guarantee(s) LIST" → docs/guarantees.md §LIST
  t = replaceCounting(t, new RegExp(String.raw`(?<![\w/.-])guarantees? (${NUM_LIST})(?!\w|\.\d)`, 'g'), counts, 'bare-guarantee', (_m, list) => `docs/guarantees.md ${sectionList(list)}`);
  return { text: t, counts };
}

/** Old citation forms that, when still present after conversion, need a person. */
export const LEFTOVER_PATTERNS: readonly { readonly name: string; readonly re: RegExp }[] = [
  { name: 'shared/docs', re: /shared\/docs/ },
  { name: 'style.md', re: /(?<![\w-])style\.md/ },
  { name: 'issue number', re: /\b[Ii]ssue #?\d+/ },
  { name: 'outside README', re: /\.\.\/shared\/[^\s`'")]*README\.md/ },
  { name: 'old architecture.md', re: /(?<![\w/.-])architecture\.md/ },
  { name: 'old domain-rules.md', re: /(?<![\w/.-])domain-rules(?:\.md)?(?![\w-])/ },
  { name: 'bare guarantee', re: /(?<![\w/.-])guarantees? \d/ },
];

/** Lines of `text` that still hold an old citation form, 1-based. */
export function findLeftovers(text: string): { line: number; text: string; pattern: string }[] {
  const out: { line: number; text: string; pattern: string }[] = [];
  text.split('\n').forEach((l, i) => {
    for (const p of LEFTOVER_PATTERNS) {
      if (p.re.test(l)) {
        out.push({ line: i + 1, text: l.trim(), pattern: p.name });
        break;
      }
    }
  });
  return out;
}

/** Whether a repository-relative path is skipped. */
export function isSkipped(rel: string): boolean {
  return SKIP_PATHS.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));
}

/**
 * Every scanned file under `root`, repository-relative with `/` separators, sorted.
 * @param root the repository root
 */
export function listScannedFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      if (name === 'node_modules' || name === 'dist' || name === '.git') continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (SCAN_EXTENSIONS.some((e) => name.endsWith(e))) {
        const rel = relative(root, full).split('\\').join('/');
        if (!isSkipped(rel)) out.push(rel);
      }
    }
  };
  for (const d of SCAN_DIRS) walk(join(root, d));
  for (const f of SCAN_FILES) {
    try {
      if (statSync(join(root, f)).isFile()) out.push(f);
    } catch {
      /* absent */
    }
  }
  return out.sort();
}

/** The lines a conversion changes, for review: 1-based line of the old text, old and new line. */
export function changedLines(before: string, after: string): { line: number; before: string; after: string }[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const out: { line: number; before: string; after: string }[] = [];
  // conversions never add or remove lines, so lines correspond one to one
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) out.push({ line: i + 1, before: a[i], after: b[i] });
  return out;
}

/**
 * Why a changed line is on the review list, or null: it cites a note that is not about the product
 * (an issue, the style notes, a README outside the repository), or a section that moved (§5 → §6).
 */
export function reviewCategory(before: string): string | null {
  if (/[Ii]ssue #?\d/.test(before)) return 'issue number';
  if (/style\.md/.test(before)) return 'style note';
  if (/\.\.\/shared\/data\/[^\s]*README/.test(before)) return 'README outside the repository';
  if (MOVED_TO_6_PHRASES.some((p) => before.includes(p.from))) return 'moved to §6 (management decisions)';
  if (/(?<![\d.])§5(?![.\d])/.test(before)) return 'check: §5 or §6?';
  return null;
}

function main(argv: string[]): number {
  const args = argv.slice(2);
  const dry = args.includes('--dry-run');
  const check = args.includes('--check');
  const reviewAt = args.indexOf('--review');
  const reviewFile = reviewAt >= 0 ? args[reviewAt + 1] : undefined;
  const unknown = args.filter((a, i) => !['--dry-run', '--check', '--review'].includes(a) && !(reviewAt >= 0 && i === reviewAt + 1));
  if (unknown.length > 0 || (reviewAt >= 0 && !reviewFile)) {
    process.stderr.write(`usage: convert-citations [--dry-run | --check | --review <file>]\nunknown: ${unknown.join(' ')}\n`);
    return 2;
  }
  const root = resolve(__dirname, '..');
  const totals: RuleCounts = {};
  let filesChanged = 0;
  const review: string[] = [];
  const leftovers: string[] = [];

  for (const rel of listScannedFiles(root)) {
    const full = join(root, rel);
    const before = readFileSync(full, 'utf8');
    const { text: after, counts } = convertText(before);
    for (const [k, v] of Object.entries(counts)) bump(totals, k, v);
    if (after !== before) {
      filesChanged++;
      for (const c of changedLines(before, after)) {
        const why = reviewFile ? reviewCategory(c.before) : null;
        if (why) review.push(`[${why}] ${rel}:${c.line}: ${c.before.trim()}\n    → ${c.after.trim()}`);
        if (dry) process.stdout.write(`${rel}:${c.line}\n  - ${c.before.trim()}\n  + ${c.after.trim()}\n`);
      }
      if (!dry && !check && !reviewFile) writeFileSync(full, after);
    }
    for (const l of findLeftovers(after)) leftovers.push(`${rel}:${l.line}: [${l.pattern}] ${l.text}`);
  }

  if (reviewFile) {
    writeFileSync(resolve(process.cwd(), reviewFile), review.join('\n') + '\n');
    process.stdout.write(`${review.length} lines written to ${reviewFile}\n`);
    return 0;
  }
  const summary = Object.entries(totals)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const total = Object.values(totals).reduce((a, b) => a + b, 0);
  process.stdout.write(`${dry || check ? 'would rewrite' : 'rewrote'} ${total} citations in ${filesChanged} files (${summary || 'none'})\n`);
  if (leftovers.length > 0) {
    process.stdout.write(`${leftovers.length} lines still cite something no rule converts (fix by hand):\n${leftovers.map((l) => `  ${l}`).join('\n')}\n`);
  }
  if (check && (total > 0 || leftovers.length > 0)) return 1;
  return 0;
}

if (require.main === module) process.exit(main(process.argv));
