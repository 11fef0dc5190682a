import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { canonicalJson } from '@ledger/event-store';

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
  it('uses nothing but Node built-ins and its own files beside it', () => {
    const dir = dirname(SCRIPT);
    const files = readdirSync(dir).filter((f) => f.endsWith('.mjs'));
    expect(files.sort()).toEqual(['bundle-format.mjs', 'ledger-checks.mjs', 'manifest-checks.mjs', 'verify.mjs']);
    for (const f of files) {
      const imports = [...readFileSync(join(dir, f), 'utf8').matchAll(/^(?:import|export) .* from '([^']+)';$/gm)].map((m) => m[1]);
      expect(imports.length).toBeGreaterThan(0);
      expect([f, imports.filter((i) => !i.startsWith('node:') && !files.some((x) => i === `./${x}`))]).toEqual([f, []]);
    }
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

  it('will not run without the operator key (exit 2, KEY_NOT_GIVEN); refuses a folder without a manifest (exit 1, MANIFEST_MISSING)', () => {
    const keyless = spawnSync(process.execPath, [SCRIPT, join(ROOT, 'examples')], { encoding: 'utf8' });
    expect(keyless.status).toBe(2);
    expect(keyless.stdout).toMatch(/^FIRST FAILURE: KEY_NOT_GIVEN: /m);
    const dir = mkdtempSync(join(tmpdir(), 'verify-export-'));
    try {
      const key = join(dir, 'operator.pem');
      writeFileSync(key, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
      const r = spawnSync(process.execPath, [SCRIPT, join(ROOT, 'examples'), '--key', key], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/^FIRST FAILURE: MANIFEST_MISSING: no manifest\.json/m);
      expect(r.stdout).not.toMatch(/^OK/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A bundle of an empty period, signed with `key` (as the API signs one): five JSONL files of no row,
 * their manifest; `change` edits the signed part before it is signed.
 */
function emptyBundle(dir: string, key: KeyObject, change: (signed: Record<string, any>) => void = () => {}): void {
  const period = { from: '2001-01-01T00:00:00Z', to: '2001-01-02T00:00:00Z' };
  const none = { first: null, periodLast: null, through: null };
  const files = ['events', 'settlements', 'decisions', 'rejections', 'access-log'].map((kind) => {
    const header = { title: kind, report: `export.${kind}`, reportVersion: 1, period, filters: { format: 'jsonl' }, software: { name: 'baccarat-round-ledger', version: '0' }, generatedAt: period.to, noActivity: true };
    const text = `${JSON.stringify({ header, positions: none })}\n${JSON.stringify({ trailer: { rows: 0 } })}\n`;
    writeFileSync(join(dir, `${kind}.jsonl`), text);
    return { name: `${kind}.jsonl`, kind, format: 'jsonl', rows: 0, bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex'), header, receipt: randomUUID() };
  });
  const keyId = `ed25519:${createHash('sha256')
    .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)}`;
  const signed: Record<string, any> = { format: 'baccarat-ledger-export/2', header: { report: 'export.bundle' }, ledgerId: 'l@1', period, positions: none, files, anchors: [], keyId, signedAt: period.to };
  change(signed);
  const signature = sign(null, Buffer.from(canonicalJson(signed), 'utf8'), key).toString('base64');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 'baccarat-ledger-export/2', signed, keyId, signature, anchors: [], publicKeys: [] }));
}

describe('verify.mjs on synthetic signed bundles (the checks after the signature do not trust it)', () => {
  let root: string;
  let key: KeyObject;
  let keyFile: string;
  const verify = (dir: string, keys = [keyFile]) => spawnSync(process.execPath, [SCRIPT, dir, ...keys.flatMap((k) => ['--key', k])], { encoding: 'utf8' });
  const first = (out: string) => /^FIRST FAILURE: ([A-Z_]+)/m.exec(out)?.[1] ?? null;
  const bundle = (name: string, change?: (signed: Record<string, any>) => void) => {
    const dir = join(root, name);
    mkdirSync(dir);
    emptyBundle(dir, key, change);
    return dir;
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'verify-export-synthetic-'));
    key = generateKeyPairSync('ed25519').privateKey;
    keyFile = join(root, 'operator.pem');
    writeFileSync(keyFile, createPublicKey(key).export({ type: 'spki', format: 'pem' }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('an empty period, nothing to prove beyond it: a plain OK, exit 0', () => {
    const r = verify(bundle('empty'));
    expect(r.stdout).toMatch(/^OK: the export verifies$/m);
    expect(r.stdout).not.toMatch(/^LIMIT /m);
    expect(r.status).toBe(0);
  });

  it('another key than the one given: MANIFEST_KEY_UNTRUSTED; a sixth kind of file: FILE_KIND_UNKNOWN; positions with no event: MANIFEST_INCONSISTENT', () => {
    const other = join(root, 'other.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    expect(first(verify(bundle('other-key'), [other]).stdout)).toBe('MANIFEST_KEY_UNTRUSTED');
    const sixth = bundle('sixth', (s) => s.files.push({ ...s.files[0], name: 'bets.jsonl', kind: 'bets' }));
    writeFileSync(join(sixth, 'bets.jsonl'), readFileSync(join(sixth, 'events.jsonl')));
    const r = verify(sixth);
    expect([r.status, first(r.stdout)]).toEqual([1, 'FILE_KIND_UNKNOWN']);
    const positioned = verify(bundle('positioned', (s) => (s.positions = { first: '1', periodLast: '1', through: '1' })));
    expect([positioned.status, first(positioned.stdout)]).toEqual([1, 'MANIFEST_INCONSISTENT']);
  });

  it('the README names every failure and limit the scripts can report', () => {
    const dir = dirname(SCRIPT);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    const codes = new Set([...sources.matchAll(/(?:fail|limit|Failure|UsageError)\('([A-Z_]+)'/g)].map((m) => m[1]));
    expect(codes.size).toBeGreaterThan(40);
    expect([...codes].filter((c) => !readme.includes(`\`${c}\``))).toEqual([]);
  });
});
