/**
 * The migration check of CI (`npm run -s migration:check`, called by `.ci/run` before the tests):
 * no migration may drop or retype a column of a ledger table, nor drop a ledger table — the ledger
 * is append-only and its records are never rewritten (docs/guarantees.md §1; a change of shape adds
 * a column or a new table instead). Only the `up` step is checked: a `down` undoes its own `up`.
 *
 * Patterns refused on a {@link LEDGER_TABLES} table (unqualified or `public.`):
 * - `ALTER TABLE t … DROP COLUMN c` (`drop-column`);
 * - `ALTER TABLE t … ALTER COLUMN c [SET DATA] TYPE …` (`retype-column`);
 * - `DROP TABLE t` (`drop-table`);
 * - a `DROP COLUMN c` followed in the same file by `ADD COLUMN c` on the same table (`drop-add-column`:
 *   a retype by DROP/ADD, reported besides the `drop-column`).
 * Tables of another schema (the read model's `${s}.x`, `"read".x`) are rebuildable and not checked.
 */

/**
 * The ledger's own tables (event store, rejection log, query log, references): their rows are the
 * record. Counters and caches that carry no record (the former `event_position`, `stream_snapshots`,
 * `outbox_leases`) are not among them.
 */
export const LEDGER_TABLES: ReadonlySet<string> = new Set(['events', 'streams', 'outbox', 'outbox_progress', 'position_gaps', 'idempotency_keys', 'rejections', 'ledger_references', 'query_log']);

/** One refused statement of a migration file. */
export interface MigrationViolation {
  readonly file: string;
  /** 1-based line of the statement in the file. */
  readonly line: number;
  readonly rule: 'drop-column' | 'retype-column' | 'drop-table' | 'drop-add-column';
  readonly table: string;
  /** The column, for the column rules. */
  readonly column?: string;
}

/** `text` with the body of every `down(…) { … }` method blanked out (newlines kept, so line numbers hold). */
export function withoutDownMethods(text: string): string {
  const re = /\b(?:public\s+)?async\s+down\s*\(/g;
  let out = text;
  let m: RegExpExecArray | null;
  while ((m = re.exec(out)) !== null) {
    const open = out.indexOf('{', m.index + m[0].length);
    if (open < 0) break;
    let depth = 0;
    let end = open;
    for (; end < out.length; end++) {
      if (out[end] === '{') depth++;
      else if (out[end] === '}' && --depth === 0) break;
    }
    out = out.slice(0, m.index) + out.slice(m.index, end + 1).replace(/[^\n]/g, ' ') + out.slice(end + 1);
  }
  return out;
}

const IDENT = String.raw`(?:"[^"]+"|\$\{[^}]+\}|[A-Za-z_][A-Za-z0-9_]*)`;
const QUALIFIED = String.raw`(${IDENT}(?:\s*\.\s*${IDENT})?)`;

/** The table a (possibly qualified) name denotes if it is a ledger table, else null. */
function ledgerTable(name: string): string | null {
  const parts = name.split('.').map((p) => p.trim());
  const bare = (p: string) => p.replace(/^"|"$/g, '').toLowerCase();
  if (parts.length === 2 && bare(parts[0]) !== 'public') return null;
  const t = bare(parts[parts.length - 1]);
  return LEDGER_TABLES.has(t) ? t : null;
}

/**
 * The violations of one migration file's text (see the module comment for the rules).
 * @param file the path reported; @param source the file's TypeScript source
 */
export function checkMigrationSource(file: string, source: string): MigrationViolation[] {
  const text = withoutDownMethods(source);
  const lineOf = (i: number) => text.slice(0, i).split('\n').length;
  const out: MigrationViolation[] = [];
  const dropped = new Map<string, number>();
  // a statement ends at `;` or at the backtick closing its SQL string
  const alter = new RegExp(String.raw`ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?${QUALIFIED}([^;\`]*)`, 'gi');
  for (const m of text.matchAll(alter)) {
    const table = ledgerTable(m[1]);
    if (!table) continue;
    const body = m[2];
    const at = m.index ?? 0;
    for (const d of body.matchAll(new RegExp(String.raw`DROP\s+(?:COLUMN\s+)?(?:IF\s+EXISTS\s+)?(${IDENT})`, 'gi'))) {
      const col = d[1].replace(/^"|"$/g, '').toLowerCase();
      if (/^(constraint|default|not|identity|expression)$/i.test(col)) continue;
      out.push({ file, line: lineOf(at + m[0].indexOf(body) + (d.index ?? 0)), rule: 'drop-column', table, column: col });
      dropped.set(`${table}.${col}`, at);
    }
    for (const r of body.matchAll(new RegExp(String.raw`ALTER\s+(?:COLUMN\s+)?(${IDENT})\s+(?:SET\s+DATA\s+)?TYPE\b`, 'gi'))) {
      out.push({ file, line: lineOf(at + m[0].indexOf(body) + (r.index ?? 0)), rule: 'retype-column', table, column: r[1].replace(/^"|"$/g, '').toLowerCase() });
    }
    for (const a of body.matchAll(new RegExp(String.raw`ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(${IDENT})`, 'gi'))) {
      const col = a[1].replace(/^"|"$/g, '').toLowerCase();
      const key = `${table}.${col}`;
      if (dropped.has(key)) out.push({ file, line: lineOf(at + m[0].indexOf(body) + (a.index ?? 0)), rule: 'drop-add-column', table, column: col });
    }
  }
  for (const m of text.matchAll(new RegExp(String.raw`DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?((?:${QUALIFIED.slice(1, -1)})(?:\s*,\s*${QUALIFIED.slice(1, -1)})*)`, 'gi'))) {
    for (const name of m[1].split(',')) {
      const table = ledgerTable(name.trim());
      if (table) out.push({ file, line: lineOf(m.index ?? 0), rule: 'drop-table', table });
    }
  }
  return out.sort((a, b) => a.line - b.line);
}
