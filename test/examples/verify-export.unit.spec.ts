import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The standalone verifier of export bundles (examples/verify-export/verify.mjs, docs/reports.md §5)
 * carries its own RFC 8785 canonical JSON, event hash and RFC 6962 Merkle root: they must agree with
 * every stored answer of the FROZEN fixtures (libs/event-store/src/known-answers.json: events of every
 * type and the canonical JSON cases; libs/anchors/src/known-answers.json: Merkle roots), else a
 * regulator would reject genuine exports. The script is run by Node as it is shipped (an ES module,
 * no project code), its answers compared here.
 */
const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'examples/verify-export/verify.mjs');

interface EventFixture {
  envelope: Record<string, unknown> & { hash: string };
  canonicalHex: string;
  hash: string;
}
const events = JSON.parse(readFileSync(join(ROOT, 'libs/event-store/src/known-answers.json'), 'utf8')) as { events: EventFixture[]; canonical: { name: string; json: string; canonicalHex: string }[] };
const anchors = JSON.parse(readFileSync(join(ROOT, 'libs/anchors/src/known-answers.json'), 'utf8')) as { merkle: { leavesHex: string[]; root: string }[]; raw: { leavesHex: string[]; root: string }[] };

/** Runs `body` (ES module code with `v` = verify.mjs's exports and `input` = the JSON given) in a child Node; @returns what it prints as JSON. */
function inScript<T>(body: string, input: unknown): T {
  const code = `import * as v from ${JSON.stringify('file://' + SCRIPT)};\nconst input = JSON.parse(process.argv[1]);\n${body}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(input)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`node failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

describe('verify.mjs agrees with the known answers (docs/reports.md §5)', () => {
  it('uses nothing but Node built-ins', () => {
    const imports = [...readFileSync(SCRIPT, 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i.startsWith('node:'))).toEqual([]);
  });

  it('canonical bytes and hash of every stored event (every type, the three games)', () => {
    const got = inScript<{ canonicalHex: string; hash: string }[]>(
      `console.log(JSON.stringify(input.map((e) => ({ canonicalHex: Buffer.from(v.canonicalJson(v.hashedFields(e)), 'utf8').toString('hex'), hash: v.eventHash(e) }))));`,
      events.events.map((e) => e.envelope),
    );
    expect(got).toHaveLength(events.events.length);
    got.forEach((g, i) => {
      expect(g.canonicalHex).toBe(events.events[i].canonicalHex);
      expect(g.hash).toBe(events.events[i].hash);
      expect(g.hash).toBe(events.events[i].envelope.hash);
    });
  });

  it('every canonical JSON case (key order by UTF-16 units, unicode, escapes, numbers, literals)', () => {
    const got = inScript<string[]>(
      `console.log(JSON.stringify(input.map((j) => Buffer.from(v.canonicalJson(JSON.parse(j)), 'utf8').toString('hex'))));`,
      events.canonical.map((c) => c.json),
    );
    expect(got).toEqual(events.canonical.map((c) => c.canonicalHex));
  });

  it('every stored Merkle root (RFC 6962)', () => {
    const cases = [...anchors.merkle, ...anchors.raw];
    const got = inScript<string[]>(
      `console.log(JSON.stringify(input.map((l) => v.merkleRoot(l.map((h) => Buffer.from(h, 'hex'))))));`,
      cases.map((c) => c.leavesHex),
    );
    expect(got).toEqual(cases.map((c) => c.root));
  });

  it('a changed byte changes the hash (the check can fail)', () => {
    const e = { ...events.events[0].envelope, tableId: `${String(events.events[0].envelope.tableId)}x` };
    const [h] = inScript<string[]>(`console.log(JSON.stringify(input.map((e) => v.eventHash(e))));`, [e]);
    expect(h).not.toBe(events.events[0].hash);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
  });

  it('parses RFC 4180 CSV: quotes, doubled quotes, commas and newlines inside fields, CRLF', () => {
    const text = 'a,b,c\r\n"x,1","say ""hi""","line1\nline2"\n,,\n';
    const got = inScript<string[][]>(`console.log(JSON.stringify(v.parseCsv(input)));`, text);
    expect(got).toEqual([
      ['a', 'b', 'c'],
      ['x,1', 'say "hi"', 'line1\nline2'],
      ['', '', ''],
    ]);
  });

  it('refuses a bundle without a manifest with exit 2', () => {
    const r = spawnSync(process.execPath, [SCRIPT, join(ROOT, 'examples')], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no manifest\.json/);
  });
});
