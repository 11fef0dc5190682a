/**
 * The malicious exporter (docs/reports.md §5): whoever carries an export bundle to
 * the regulator, or writes it, rewrites it and runs the standalone verifier
 * (`examples/verify-export/verify.mjs`, as a process, with the operator's public key) on the result.
 * The finding: a settled bet rewritten from LOSE to WIN with every later hash recomputed and the
 * positions nulled in the header line and the manifest verified "OK" (no signed head was checked); so
 * did a bundle without its events file whose settlements were all made WIN, and a forged events file
 * listed beside the genuine one (the verifier kept the last file of a kind). The manifest deciding
 * what was checked was unsigned.
 *
 * Now the API signs the manifest (period, positions, every file's SHA-256, size and row count, the
 * checkpoints' digests) with the report key from the receipts it recorded sending the exports, the
 * verifier checks that signature first and every check is mandatory; what a pass still cannot prove
 * is stated as a LIMIT line, never a plain OK. Every tampered copy below must be refused with a non-zero exit and its own
 * failure name; the genuine bundle is accepted. Two groups: an exporter without the key (it can only
 * fix up what is unsigned), and a manifest signed with the operator's key that lies all the same (a
 * signer that signs what it should not: the checks after the signature still refuse it).
 *
 * Real PostgreSQL and Kafka, the API, relay and projector in-process, a real anchor publisher; the
 * bundle is written by `npm run export` (scripts/export.ts, as a process) through the API.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AnchorPublisher, parseAnchor, readSigningKey, type SignedAnchor } from '@ledger/anchors';
import { defaultLogger } from '@ledger/event-store';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { copyBundle, core, fixEntry, loadManifest, loseToWin, NULL_POSITIONS, readJsonl, resign, saveManifest, settlementsAllWin, swapKey, syncAnchorDigests, writeJsonl } from '../support/bundle-tamper';

jest.setTimeout(300_000);

const ROOT = resolve(__dirname, '../..');
const VERIFY = join(ROOT, 'examples/verify-export/verify.mjs');
const tables: SimTable[] = JSON.parse(readFileSync(join(ROOT, 'config/tables.json'), 'utf8')).tables;
const table = tables.find((t) => t.tableId === 'T-CLASSIC-01') ?? tables[0];

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res) => child.on('exit', (code) => res({ code, stdout, stderr })));
}

/** The first failure's name the verifier printed (`FIRST FAILURE: CODE: …`), or null. */
const firstFailure = (out: string): string | null => /^FIRST FAILURE: ([A-Z_]+)/m.exec(out)?.[1] ?? null;

/** What a tamper does to a copy of the bundle; `args` replaces the verifier's key arguments. */
type Tamper = (dir: string) => void | { args: string[] };

describe('a malicious exporter: every tampered bundle is refused by name, the genuine one accepted (docs/reports.md §5)', () => {
  let h: LedgerHarness;
  let dir: string;
  let bundle: string;
  let publisher: AnchorPublisher;
  let anchorFile: string;
  let operatorKey: KeyObject;
  let attackerKey: KeyObject;
  let keyFile: string;
  let shoeStream: string;

  /** Runs a shoe through the API and waits until its last event is projected and under a signed checkpoint. */
  async function shoeSignedAndProjected(shoeId: string, seed: string): Promise<void> {
    await runShoeScript(generateShoeScript(table, seed, { shoeId, dealerId: 'dealer-3', accounts: 3, betChance: 0.9, maxRounds: 5 }), h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const last = stored[stored.length - 1];
    const deadline = Date.now() + 90_000;
    let signedThrough = 0n;
    for (;;) {
      const applied = (await h.client.get('auditor', 'aud-1', `/projections/applied/${last.eventId}`)).applied;
      if (signedThrough < BigInt(last.globalPosition)) {
        const a = await publisher.anchorNow();
        if (a) signedThrough = BigInt(a.checkpoint.globalPosition);
      }
      if (applied && signedThrough >= BigInt(last.globalPosition)) return;
      if (Date.now() > deadline) throw new Error('the shoe was not projected and anchored within 90 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-malicious-exporter-'));
    anchorFile = join(dir, 'anchors.jsonl');
    const pair = generateKeyPairSync('ed25519');
    operatorKey = pair.privateKey;
    attackerKey = generateKeyPairSync('ed25519').privateKey;
    writeFileSync(join(dir, 'operator-private.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    keyFile = join(dir, 'operator-public.pem');
    writeFileSync(keyFile, pair.publicKey.export({ type: 'spki', format: 'pem' }));
    // one key signs the checkpoints (the relay) and the reports and manifests (the API), as in production (README, REPORT_SIGNING_KEY_FILE)
    h = await startLedger({ env: { ANCHOR_FILE: anchorFile, ANCHOR_PUBLIC_KEY_FILE: keyFile, REPORT_SIGNING_KEY_FILE: join(dir, 'operator-private.pem'), EXPORT_BATCH_ROWS: '40' } });
    await h.startRelay();
    await h.startProjector();
    publisher = new AnchorPublisher({
      databaseUrl: TEST_SERVICE_DATABASE_URLS.relay,
      kafka: null,
      topic: 'unused',
      anchorFile,
      signingKey: readSigningKey(join(dir, 'operator-private.pem')),
      intervalMs: 3_600_000,
      logger: defaultLogger('anchors', 'silent'),
    });
    // a shoe before the period (so the bundle carries a checkpoint before it), then the period's shoe
    await shoeSignedAndProjected(runId('before'), 'malicious-exporter-0');
    const from = new Date().toISOString();
    const shoeId = runId('exported');
    shoeStream = `shoe-${shoeId}`;
    await shoeSignedAndProjected(shoeId, 'malicious-exporter-1');
    await h.client.get('auditor', 'aud-1', `/settlements?shoeId=${shoeId}`);
    const to = new Date(Date.now() + 1).toISOString();
    await new Promise((r) => setTimeout(r, 5));
    bundle = join(dir, 'genuine');
    const cli = await run(['--import', 'tsx', 'scripts/export.ts', '--from', from, '--to', to, '--out', bundle, '--api', h.baseUrl], { LEDGER_TOKEN: h.client.token('auditor', 'regulator-it') });
    if (cli.code !== 0) throw new Error(`npm run export failed: ${cli.stderr}${cli.stdout}`);
    // a checkpoint after the bundle's last one (for the substitution below)
    await shoeSignedAndProjected(runId('after'), 'malicious-exporter-2');
  });

  afterAll(async () => {
    await publisher?.stop();
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The events file of a copy rewritten: a lost bet of the exported shoe won, later hashes recomputed; @returns the file's new text */
  const forgeEvents = (copy: string, positions?: typeof NULL_POSITIONS): string => {
    const f = readJsonl(join(copy, 'events.jsonl'));
    loseToWin(f.rows, shoeStream);
    if (positions) f.head.positions = positions;
    return writeJsonl(join(copy, 'events.jsonl'), f);
  };
  const edit = (copy: string, change: (m: Record<string, any>) => void) => {
    const m = loadManifest(copy);
    change(m);
    saveManifest(copy, m);
  };
  const signed = (m: Record<string, any>) => resign(m, operatorKey);

  /** An exporter without the key: it fixes up everything unsigned. */
  const withoutTheKey: [string, string, Tamper][] = [
    ['a bet rewritten LOSE→WIN, later hashes recomputed, the manifest fixed up', 'MANIFEST_SIGNATURE_INVALID', (c) => edit(c, (m) => fixEntry(m, 'events.jsonl', forgeEvents(c)))],
    [
      'the same with the positions nulled in the header line and the manifest (the finding)',
      'MANIFEST_SIGNATURE_INVALID',
      (c) =>
        edit(c, (m) => {
          fixEntry(m, 'events.jsonl', forgeEvents(c, NULL_POSITIONS));
          core(m).positions = NULL_POSITIONS;
        }),
    ],
    ['the same, the manifest left as it was', 'FILE_HASH_MISMATCH', (c) => void forgeEvents(c, NULL_POSITIONS)],
    [
      'no events file, every settlement made WIN, the manifest fixed up (the finding)',
      'MANIFEST_SIGNATURE_INVALID',
      (c) =>
        edit(c, (m) => {
          unlinkSync(join(c, 'events.jsonl'));
          core(m).files = core(m).files.filter((f: { kind: string }) => f.kind !== 'events');
          const s = readJsonl(join(c, 'settlements.jsonl'));
          expect(settlementsAllWin(s.rows)).toBeGreaterThan(0);
          fixEntry(m, 'settlements.jsonl', writeJsonl(join(c, 'settlements.jsonl'), s));
        }),
    ],
    ['the events file dropped, the manifest left as it was', 'FILE_MISSING', (c) => unlinkSync(join(c, 'events.jsonl'))],
    [
      'a forged events file listed beside the genuine one under another name (the finding)',
      'MANIFEST_SIGNATURE_INVALID',
      (c) =>
        edit(c, (m) => {
          const genuine = readFileSync(join(c, 'events.jsonl'));
          const text = forgeEvents(c, NULL_POSITIONS);
          writeFileSync(join(c, 'events-2.jsonl'), text);
          writeFileSync(join(c, 'events.jsonl'), genuine);
          const entry = core(m).files.find((f: { kind: string }) => f.kind === 'events');
          core(m).files.push({ ...entry, name: 'events-2.jsonl' });
          fixEntry(m, 'events-2.jsonl', text);
          core(m).positions = NULL_POSITIONS;
        }),
    ],
    [
      'a forged events file left beside the genuine one, unlisted',
      'UNLISTED_FILE',
      (c) => {
        const genuine = readFileSync(join(c, 'events.jsonl'));
        writeFileSync(join(c, 'events-forged.jsonl'), forgeEvents(c));
        writeFileSync(join(c, 'events.jsonl'), genuine);
      },
    ],
    [
      'two events swapped, the manifest fixed up',
      'MANIFEST_SIGNATURE_INVALID',
      (c) =>
        edit(c, (m) => {
          const f = readJsonl(join(c, 'events.jsonl'));
          [f.rows[3], f.rows[4]] = [f.rows[4], f.rows[3]];
          fixEntry(m, 'events.jsonl', writeJsonl(join(c, 'events.jsonl'), f));
        }),
    ],
    [
      'the events file cut short with a new trailer, the manifest left as it was',
      'FILE_HASH_MISMATCH',
      (c) => {
        const f = readJsonl(join(c, 'events.jsonl'));
        writeJsonl(join(c, 'events.jsonl'), { ...f, rows: f.rows.slice(0, -5) });
      },
    ],
    [
      'the signature removed from the manifest',
      'MANIFEST_UNSIGNED',
      (c) =>
        edit(c, (m) => {
          delete m.signature;
        }),
    ],
    ['manifest.json removed', 'MANIFEST_MISSING', (c) => unlinkSync(join(c, 'manifest.json'))],
    [
      "swapped key: the forger's key signs the rewritten events' checkpoints and the manifest",
      'MANIFEST_KEY_UNTRUSTED',
      (c) =>
        edit(c, (m) => {
          fixEntry(m, 'events.jsonl', forgeEvents(c));
          swapKey(c, m, readJsonl(join(c, 'events.jsonl')).rows, attackerKey);
        }),
    ],
    [
      "swapped key, the verifier given no key (it would have trusted the bundle's own)",
      'KEY_NOT_GIVEN',
      (c) => {
        edit(c, (m) => {
          fixEntry(m, 'events.jsonl', forgeEvents(c));
          swapKey(c, m, readJsonl(join(c, 'events.jsonl')).rows, attackerKey);
        });
        return { args: [] };
      },
    ],
    [
      'substituted checkpoints: the last one replaced by a later genuine checkpoint of the same anchor file',
      'ANCHOR_SET_MISMATCH',
      (c) =>
        edit(c, (m) => {
          const all = readFileSync(anchorFile, 'utf8')
            .trimEnd()
            .split('\n')
            .map((l) => (parseAnchor(l) as { anchor: SignedAnchor }).anchor);
          const last = m.anchors[m.anchors.length - 1] as SignedAnchor;
          const later = all.find((a) => a.checkpoint.seq === last.checkpoint.seq + 1);
          expect(later).toBeDefined();
          m.anchors[m.anchors.length - 1] = later;
        }),
    ],
  ];

  /** A manifest signed with the operator's key that lies all the same. */
  const signedButWrong: [string, string, Tamper][] = [
    ['a bet rewritten LOSE→WIN, later hashes recomputed, signed: the checkpoints refuse it', 'HEAD_MISMATCH', (c) => edit(c, (m) => (fixEntry(m, 'events.jsonl', forgeEvents(c)), signed(m)))],
    [
      'positions null while the events file has rows, signed',
      'POSITIONS_MISSING',
      (c) =>
        edit(c, (m) => {
          fixEntry(m, 'events.jsonl', forgeEvents(c, NULL_POSITIONS));
          core(m).positions = NULL_POSITIONS;
          signed(m);
        }),
    ],
    [
      'the events file left out, signed',
      'FILE_KIND_MISSING',
      (c) =>
        edit(c, (m) => {
          unlinkSync(join(c, 'events.jsonl'));
          core(m).files = core(m).files.filter((f: { kind: string }) => f.kind !== 'events');
          signed(m);
        }),
    ],
    [
      'the events kind listed twice (a forged copy under another name), signed',
      'FILE_KIND_DUPLICATE',
      (c) =>
        edit(c, (m) => {
          const genuine = readFileSync(join(c, 'events.jsonl'));
          const text = forgeEvents(c);
          writeFileSync(join(c, 'events-2.jsonl'), text);
          writeFileSync(join(c, 'events.jsonl'), genuine);
          const entry = core(m).files.find((f: { kind: string }) => f.kind === 'events');
          core(m).files.push({ ...entry, name: 'events-2.jsonl' });
          fixEntry(m, 'events-2.jsonl', text);
          signed(m);
        }),
    ],
    [
      "a file's header (line and manifest) of another period, signed",
      'MANIFEST_INCONSISTENT',
      (c) =>
        edit(c, (m) => {
          const f = readJsonl(join(c, 'settlements.jsonl'));
          const period = { from: '2020-01-01T00:00:00.000Z', to: '2020-01-02T00:00:00.000Z' };
          f.head.header = { ...f.head.header, period };
          const entry = core(m).files.find((x: { kind: string }) => x.kind === 'settlements');
          entry.header = { ...entry.header, period };
          fixEntry(m, 'settlements.jsonl', writeJsonl(join(c, 'settlements.jsonl'), f));
          signed(m);
        }),
    ],
    [
      "the events of the shoe's last versions cut from the file, signed: a signed head the export lacks",
      'ANCHORED_VERSION_MISSING',
      (c) =>
        edit(c, (m) => {
          const f = readJsonl(join(c, 'events.jsonl'));
          const last = f.rows.map((e) => e.streamId).lastIndexOf(shoeStream);
          fixEntry(m, 'events.jsonl', writeJsonl(join(c, 'events.jsonl'), { ...f, rows: f.rows.filter((_, j) => j !== last) }));
          signed(m);
        }),
    ],
    [
      'the checkpoint covering the period left out, signed',
      'NOT_ANCHORED',
      (c) =>
        edit(c, (m) => {
          m.anchors = m.anchors.slice(0, -1);
          syncAnchorDigests(m);
          signed(m);
        }),
    ],
    [
      'every settlement row made WIN (its event still LOSE), signed',
      'ROW_MISMATCH',
      (c) =>
        edit(c, (m) => {
          const s = readJsonl(join(c, 'settlements.jsonl'));
          expect(settlementsAllWin(s.rows)).toBeGreaterThan(0);
          fixEntry(m, 'settlements.jsonl', writeJsonl(join(c, 'settlements.jsonl'), s));
          signed(m);
        }),
    ],
    [
      'a settlement row left out, signed',
      'ROW_MISSING',
      (c) =>
        edit(c, (m) => {
          const s = readJsonl(join(c, 'settlements.jsonl'));
          fixEntry(m, 'settlements.jsonl', writeJsonl(join(c, 'settlements.jsonl'), { ...s, rows: s.rows.slice(1) }));
          signed(m);
        }),
    ],
    [
      'two events swapped, signed',
      'EVENT_ORDER',
      (c) =>
        edit(c, (m) => {
          const f = readJsonl(join(c, 'events.jsonl'));
          [f.rows[3], f.rows[4]] = [f.rows[4], f.rows[3]];
          fixEntry(m, 'events.jsonl', writeJsonl(join(c, 'events.jsonl'), f));
          signed(m);
        }),
    ],
  ];

  it('the genuine bundle is accepted with the operator key: exit 0', async () => {
    const r = await run([VERIFY, bundle, '--key', keyFile]);
    expect(r.stderr).toBe('');
    expect(firstFailure(r.stdout)).toBeNull();
    expect(r.stdout).toMatch(/^OK: the export verifies/m);
    expect(r.code).toBe(0);
  });

  it('events under no signed checkpoint pass with --allow-unanchored only as a stated limit, never a plain OK', async () => {
    const copy = copyBundle(bundle, 'unanchored-allowed');
    edit(copy, (m) => {
      m.anchors = m.anchors.slice(0, -1);
      syncAnchorDigests(m);
      signed(m);
    });
    const r = await run([VERIFY, copy, '--key', keyFile, '--allow-unanchored']);
    expect(r.stdout).toMatch(/^LIMIT NOT_ANCHORED: \d+ exported events lie under no signed checkpoint/m);
    expect(r.stdout).toMatch(/^OK: the export verifies, within \d stated limit\(s\): .*NOT_ANCHORED/m);
    expect(r.code).toBe(0);
  });

  it("a stream's first events left out and positions.first raised, signed: never a plain OK, the STREAMS_BEGIN_BEFORE limit says what rests on the signature", async () => {
    const copy = copyBundle(bundle, 'stream-start-dropped');
    edit(copy, (m) => {
      const f = readJsonl(join(copy, 'events.jsonl'));
      const dropped = f.rows.filter((e) => e.streamId === shoeStream && e.streamVersion <= 3);
      f.rows = f.rows.filter((e) => !dropped.includes(e));
      const first = String(f.rows[0].globalPosition);
      f.head.positions = { ...f.head.positions, first };
      fixEntry(m, 'events.jsonl', writeJsonl(join(copy, 'events.jsonl'), f));
      core(m).positions = { ...core(m).positions, first };
      for (const kind of ['settlements', 'decisions']) {
        const g = readJsonl(join(copy, `${kind}.jsonl`));
        if (g.head.positions) g.head.positions = { ...g.head.positions, first };
        fixEntry(m, `${kind}.jsonl`, writeJsonl(join(copy, `${kind}.jsonl`), g));
      }
      signed(m);
    });
    const r = await run([VERIFY, copy, '--key', keyFile]);
    expect(r.stdout).toMatch(new RegExp(`^LIMIT STREAMS_BEGIN_BEFORE: 1 stream\\(s\\) begin before the export \\(first: ${shoeStream} at version 4\\)`, 'm'));
    expect(r.stdout).not.toMatch(/^OK: the export verifies$/m);
  });

  describe.each([
    ['an exporter without the key', withoutTheKey],
    ["a manifest signed with the operator's key that lies", signedButWrong],
  ])('%s', (_group, cases) => {
    it.each(cases)('%s: refused as %s', async (name, code, tamper) => {
      const copy = copyBundle(bundle, name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
      const args = tamper(copy)?.args ?? ['--key', keyFile];
      const r = await run([VERIFY, copy, ...args]);
      expect({ exit: r.code === 0 ? 0 : 'non-zero', first: firstFailure(r.stdout) }).toEqual({ exit: 'non-zero', first: code });
      expect(r.stdout).not.toMatch(/^OK/m);
    });
  });
});
