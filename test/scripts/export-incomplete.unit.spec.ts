/**
 * `npm run export` (scripts/export.ts) is whole or says why not (docs/reports.md §5, "The bundle"):
 * against an in-process stand-in of the API that cuts one export in the middle, answers fewer rows
 * than it announced, or refuses one, the command names the file and the reason, exits 1, writes no
 * manifest, keeps the bytes received as `<file>.partial`, and leaves `INCOMPLETE` saying what is
 * missing; the marker is there from the first file on (a killed run leaves it too), and gone once
 * a whole bundle's manifest is written. Before: `export: terminated`, no file named, no marker.
 *
 * The stand-in answers as the API of the signed bundles does: a `Ledger-Export-Receipt` header on
 * every export, and `GET /exports/manifest?receipts=…` the manifest signed (the real
 * {@link manifestBody} and {@link signManifest}, a key of its own) from what it recorded sending.
 * When the manifest it signs lists a file otherwise than the client received it, the export fails
 * the same way, naming that file.
 */
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { publicKeyId, publicKeyPem } from '@ledger/anchors';
import type { ExportKind } from '../../apps/ledger/src/exports/export-kinds';
import { manifestBody, signManifest, type ExportReceipt } from '../../apps/ledger/src/exports/export-manifest';
import { BundleFileError, INCOMPLETE_MARKER, writeBundle } from '../../scripts/export';

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '../..');
const FROM = '2026-12-01T06:00:00.000Z';
const TO = '2026-12-02T06:00:00.000Z';
const ROWS = 4;
/**
 * What the stand-in does with one file: answer it `whole`, `cut` the connection after 2 rows, answer 2
 * rows of the 4 announced (`short`), a JSONL body without its trailer line (`untrailed`), a 500
 * (`refused`); or answer it whole but sign a manifest that lists it otherwise: the SHA-256 of other
 * bytes (`signed-other-bytes`), or another row count (`signed-other-rows`).
 */
type Behaviour = 'whole' | 'cut' | 'short' | 'untrailed' | 'refused' | 'signed-other-bytes' | 'signed-other-rows';

const sha256 = (b: string) => createHash('sha256').update(b, 'utf8').digest('hex');

/**
 * The stand-in API: every export of 4 rows whole, but the files (`<kind>.<format>`) `plan` names;
 * `seen` records whether `INCOMPLETE` was in `out` when the events were asked for. Each export it
 * answers carries a `Ledger-Export-Receipt`, recorded once the body was sent to its end (as the API
 * records `export_receipts`); `GET /exports/manifest` signs the bundle those receipts make.
 */
function fakeApi(plan: Record<string, Behaviour>, out: () => string, seen: { markerDuringRun?: boolean }): Server {
  const signingKey = generateKeyPairSync('ed25519');
  const keyId = publicKeyId(signingKey.publicKey);
  const receipts = new Map<string, ExportReceipt>();
  const positions = { first: '1', periodLast: '4', through: '4' };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  };
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const format = (url.searchParams.get('format') ?? 'jsonl') as 'jsonl' | 'csv';
    const kind = url.pathname.replace('/exports/', '');
    if (kind === 'anchors') {
      json(res, 200, { header: {}, ledgerId: 'ledger-test', positions, publicKeys: [], anchors: [] });
      return;
    }
    if (kind === 'manifest') {
      const ids = (url.searchParams.get('receipts') ?? '').split(',');
      const unknown = ids.find((id) => !receipts.has(id));
      if (unknown !== undefined) {
        json(res, 404, { error: { code: 'EXPORT.RECEIPT_NOT_FOUND', message: `no export receipt ${unknown}` } });
        return;
      }
      const body = manifestBody({ receipts: ids.map((id) => receipts.get(id)!), ledgerId: 'ledger-test', anchors: [], keyId, now: new Date() });
      json(res, 200, signManifest({ body, privateKey: signingKey.privateKey, anchors: [], publicKeys: [{ keyId, pem: publicKeyPem(signingKey.publicKey) }] }));
      return;
    }
    if (kind === 'events') seen.markerDuringRun = existsSync(join(out(), INCOMPLETE_MARKER));
    const behaviour = plan[`${kind}.${format}`] ?? 'whole';
    if (behaviour === 'refused') {
      json(res, 500, { error: { code: 'INTERNAL.ERROR', message: 'the database is unreachable' } });
      return;
    }
    const header = { title: kind, report: `export.${kind}`, reportVersion: 1, period: { from: FROM, to: TO }, filters: { format }, software: { name: 'baccarat-round-ledger', version: '0' }, generatedAt: FROM, noActivity: false };
    const receipt = randomUUID();
    res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    res.setHeader('ledger-report-header', JSON.stringify(header));
    res.setHeader('ledger-export-count', String(ROWS));
    res.setHeader('ledger-export-positions', JSON.stringify(positions));
    res.setHeader('ledger-export-receipt', receipt);
    const sent = behaviour === 'cut' || behaviour === 'short' ? 2 : ROWS;
    const rows = Array.from({ length: sent }, (_, i) => (format === 'csv' ? `${i + 1},"a, ""quoted""\nline"\n` : `${JSON.stringify({ id: String(i + 1), globalPosition: String(i + 1) })}\n`));
    const head = format === 'csv' ? 'id,text\n' : `${JSON.stringify({ header, positions: null })}\n`;
    const trailer = format === 'csv' || behaviour === 'untrailed' ? '' : `${JSON.stringify({ trailer: { rows: sent } })}\n`;
    if (behaviour === 'cut') {
      // the first rows reach the client, then the connection is closed under it (as the API does when a batch fails)
      res.write(head + rows.join(''), () => res.socket?.destroy());
      return;
    }
    const body = head + rows.join('') + trailer;
    // what the API records of an export it sent whole; the two `signed-other-*` files are recorded otherwise than sent
    receipts.set(receipt, {
      id: receipt,
      kind: kind as ExportKind,
      format,
      period: { from: FROM, to: TO },
      positions,
      header,
      rows: behaviour === 'signed-other-rows' ? sent + 1 : sent,
      bytes: Buffer.byteLength(body),
      sha256: behaviour === 'signed-other-bytes' ? sha256(body.replace('1', '7')) : sha256(body),
    });
    res.end(body);
  });
}

describe('npm run export: a bundle is whole or says why not', () => {
  let dir: string;
  let server: Server | null = null;
  let out = '';
  const seen: { markerDuringRun?: boolean } = {};

  const start = async (plan: Record<string, Behaviour>): Promise<string> => {
    server = fakeApi(plan, () => out, seen);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const failure = async (p: Promise<unknown>): Promise<BundleFileError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof BundleFileError) return err;
      throw err;
    }
    throw new Error('expected the export to fail');
  };
  const marker = () => readFileSync(join(out, INCOMPLETE_MARKER), 'utf8');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-export-incomplete-'));
    out = join(dir, 'bundle');
    delete seen.markerDuringRun;
  });
  afterEach(async () => {
    if (server) await new Promise((r) => server!.close(r));
    server = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a whole bundle: five files, the manifest, no INCOMPLETE (which was there while the files were written)', async () => {
    const api = await start({});
    for (const format of ['jsonl', 'csv'] as const) {
      out = join(dir, `whole-${format}`);
      const m = await writeBundle({ api, token: 't', from: FROM, to: TO, out, format });
      expect(m.signed.files.map((f) => [f.name, f.rows])).toEqual(['events', 'settlements', 'decisions', 'rejections', 'access-log'].map((k) => [`${k}.${format}`, ROWS]));
      expect(readdirSync(out).sort()).toEqual([...m.signed.files.map((f) => f.name), 'manifest.json'].sort());
      // manifest.json is the manifest the API signed, and it lists the files as they were written
      expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))).toEqual(m);
      for (const f of m.signed.files) expect([f.name, sha256(readFileSync(join(out, f.name), 'utf8'))]).toEqual([f.name, f.sha256]);
      expect(seen.markerDuringRun).toBe(true);
    }
  });

  it('the API cuts the access log in the middle: the file and the reason named, INCOMPLETE, the bytes kept as .partial, no manifest', async () => {
    const api = await start({ 'access-log.jsonl': 'cut' });
    const err = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'jsonl' }));
    expect(err.file).toBe('access-log.jsonl');
    expect(err.reason).toMatch(/^the API cut the response after \d+ bytes: terminated/);
    expect(err.reason).toMatch(/2 of the 4 rows announced were received \(correlation id export-[0-9a-f]{8}-access-log in the API's log\)/);
    expect(readdirSync(out).sort()).toEqual(['INCOMPLETE', 'access-log.jsonl.partial', 'decisions.jsonl', 'events.jsonl', 'rejections.jsonl', 'settlements.jsonl']);
    expect(marker()).toContain('INCOMPLETE: this export bundle is not whole');
    expect(marker()).toContain(`failed: access-log.jsonl\nreason: ${err.reason}\n`);
    expect(marker()).toContain('written whole: events.jsonl (4 rows), settlements.jsonl (4 rows), decisions.jsonl (4 rows), rejections.jsonl (4 rows)');
    expect(marker()).toContain('kept for diagnosis: access-log.jsonl.partial');
    expect(marker()).toContain('not written: manifest.json');
  });

  it('an answer that ends cleanly but short: fewer CSV rows than announced, a JSONL file without its trailer line', async () => {
    const api = await start({ 'decisions.csv': 'short', 'rejections.jsonl': 'untrailed' });
    const csv = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'csv' }));
    expect([csv.file, csv.reason]).toEqual(['decisions.csv', expect.stringMatching(/^the API announced 4 rows, the file holds 2 \(correlation id export-[0-9a-f]{8}-decisions/)]);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    expect(marker()).toContain('failed: decisions.csv');

    out = join(dir, 'jsonl');
    const jsonl = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'jsonl' }));
    expect([jsonl.file, jsonl.reason]).toEqual(['rejections.jsonl', expect.stringMatching(/^it has no trailer line \{"trailer":\{"rows":N\}\}; 4 of the 4 rows announced were received/)]);
    expect(marker()).toContain('kept for diagnosis: rejections.jsonl.partial');
  });

  it('the API refuses one export: its error code named, no partial file', async () => {
    const api = await start({ 'settlements.jsonl': 'refused' });
    const err = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'jsonl' }));
    expect([err.file, err.reason]).toEqual(['settlements.jsonl', 'GET /exports/settlements refused: HTTP 500 INTERNAL.ERROR: the database is unreachable']);
    expect(readdirSync(out).sort()).toEqual(['INCOMPLETE', 'events.jsonl']);
    expect(marker()).not.toContain('kept for diagnosis');
  });

  it('the manifest the API signs lists a file otherwise than received (other bytes, another row count): that file named, INCOMPLETE, no manifest', async () => {
    const api = await start({ 'rejections.jsonl': 'signed-other-bytes', 'settlements.csv': 'signed-other-rows' });
    const jsonl = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'jsonl' }));
    expect([jsonl.file, jsonl.reason]).toEqual(['rejections.jsonl', expect.stringMatching(/^the manifest the API signed does not list the file as received \(\d+ bytes, sha256 [0-9a-f]{64}\)$/)]);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(['INCOMPLETE', 'access-log.jsonl', 'decisions.jsonl', 'events.jsonl', 'rejections.jsonl.partial', 'settlements.jsonl']);
    expect(marker()).toContain('INCOMPLETE: this export bundle is not whole');
    expect(marker()).toContain(`failed: rejections.jsonl\nreason: ${jsonl.reason}\n`);
    expect(marker()).toContain('written whole: events.jsonl (4 rows), settlements.jsonl (4 rows), decisions.jsonl (4 rows), access-log.jsonl (4 rows)\n');
    expect(marker()).toContain('not written: manifest.json');

    out = join(dir, 'csv');
    const csv = await failure(writeBundle({ api, token: 't', from: FROM, to: TO, out, format: 'csv' }));
    expect([csv.file, csv.reason]).toEqual(['settlements.csv', expect.stringMatching(/^the manifest the API signed does not list the file as received/)]);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    expect(marker()).toContain('failed: settlements.csv');
  });

  it('the command: exit 1, the file and the reason on stderr, and where INCOMPLETE is', async () => {
    const api = await start({ 'access-log.jsonl': 'cut' });
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/export.ts', '--from', FROM, '--to', TO, '--out', out, '--api', api, '--token', 't'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(stderr).toContain(`export: INCOMPLETE bundle in ${out}: access-log.jsonl failed: the API cut the response after`);
    expect(stderr).toContain(`no manifest.json was written; ${join(out, INCOMPLETE_MARKER)} says what is missing`);
    expect(existsSync(join(out, INCOMPLETE_MARKER))).toBe(true);
  });
});
