import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import { ERROR_CODES, isErrorCode } from '@ledger/errors';
import { isSignificantEventCode, SIGNIFICANT_EVENT_CODES } from '@ledger/significant-events';

const ROOT = join(__dirname, '..', '..', '..', '..');
/** `AREA.REASON` at the start of a string literal, alone or before `:` (e.g. `EVENT.UNKNOWN_TYPE: …`). */
const CODE_AT_START = /^([A-Z][A-Z0-9_]*\.[A-Z][A-Z0-9_]*)(?=$|:)/;
/** Production sources: every `.ts` under apps/ and libs/ but specs, test fixtures and build output. */
const SKIP = /(\.spec\.ts$|\.d\.ts$|\/testing\/|\/node_modules\/|\/dist\/)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' || d.name === 'dist' ? [] : sources(p);
    return p.endsWith('.ts') && !SKIP.test(p) ? [p] : [];
  });
}

/** Every code-looking string literal of every production source (comments are not read), with where it is. */
function codesInUse(): Array<{ code: string; at: string }> {
  const found: Array<{ code: string; at: string }> = [];
  for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n)) {
        const m = CODE_AT_START.exec(n.text);
        if (m) found.push({ code: m[1], at: `${relative(ROOT, file)}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}` });
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return found;
}

/** The code strings of apps/ and libs/ and the error table are the same set (docs/architecture.md §4). */
describe('error codes in use', () => {
  const inUse = codesInUse();

  it('finds the codes where they are thrown (the scan works)', () => {
    const codes = new Set(inUse.map((u) => u.code));
    for (const c of ['AUTH.UNAUTHENTICATED', 'SHOE.CLOSED', 'STREAM.VERSION_CONFLICT', 'CARD.MALFORMED', 'PROJECTION.STREAM_GAP', 'EVENT.NO_UPCASTER', 'INPUT.BAD_JSON']) {
      expect([c, codes.has(c)]).toEqual([c, true]);
    }
  });

  it('every code string in a production source of apps/ or libs/ is in the error table (or, in libs/significant-events, its catalogue)', () => {
    const known = (u: { code: string; at: string }) => isErrorCode(u.code) || (u.at.startsWith('libs/significant-events/') && isSignificantEventCode(u.code));
    expect(inUse.filter((u) => !known(u)).map((u) => `${u.code} at ${u.at}`)).toEqual([]);
  });

  it('no significant-event code is also an error code (one code, one meaning)', () => {
    expect(SIGNIFICANT_EVENT_CODES.filter((c) => isErrorCode(c))).toEqual([]);
  });

  it('every code of the table is used outside libs/errors (no stale line)', () => {
    const used = new Set(inUse.filter((u) => !u.at.startsWith('libs/errors/')).map((u) => u.code));
    expect(ERROR_CODES.filter((c) => c !== 'INTERNAL' && !used.has(c))).toEqual([]);
  });
});
