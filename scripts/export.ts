/**
 * Writes an export bundle for a regulator (docs/reports.md §5):
 *   npm run -s export -- --from 2026-12-01T06:00:00Z --to 2026-12-02T06:00:00Z --out ./export-2026-12-01 [--format jsonl|csv]
 *
 * It calls the ledger API as any auditor would (no database credentials: what a regulator's IT is
 * given is an auditor token and the API's address; every call lands in the access log):
 * `GET /exports/anchors` first (the signed checkpoints and public key the events verify against,
 * and the position the events export ends at), then `GET /exports/{events,settlements,decisions,
 * rejections,access-log}`, each streamed to its file while its SHA-256 is computed, then writes
 * `manifest.json` (header, counts, SHA-256 and size of each file, the checkpoints, the public key)
 * and `anchor-public.pem`. `node examples/verify-export/verify.mjs <out>` checks the bundle.
 *
 * Options (defaults from the environment): `--api` (`LEDGER_API_URL`, default http://127.0.0.1:3000),
 * `--token` (`LEDGER_TOKEN`: an auditor or pit-manager bearer token, e.g. `npm run -s token -- --role
 * auditor --sub regulator-it`). The output folder must not exist or be empty. Exit 0 with a summary;
 * 1 when the API refuses (its error code printed) or a file cannot be written.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Command, InvalidArgumentError, Option } from 'commander';
import { EXPORT_KINDS, type ExportKind, type ExportPositions } from '../apps/ledger/src/exports/export-kinds';
import { buildManifest, type ManifestFile } from '../apps/ledger/src/exports/export-manifest';
import { reportHeader, type ReportHeader } from '../apps/ledger/src/kernel/report-header';
import type { ExportAnchors } from '../apps/ledger/src/exports/exports.service';

const isoTime = (v: string): string => {
  if (Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('expected an ISO-8601 time, e.g. 2026-12-01T06:00:00Z');
  return v;
};

/** An error answer of the API, as one line. */
async function apiError(res: Response, what: string): Promise<Error> {
  const text = await res.text().catch(() => '');
  let code = '';
  try {
    const b = JSON.parse(text) as { error?: { code?: string; message?: string } };
    code = `${b.error?.code}: ${b.error?.message}`;
  } catch {
    code = text.slice(0, 200);
  }
  return new Error(`${what}: HTTP ${res.status} ${code}`);
}

/**
 * GET with the token; a 429 (the API's heavy-read slot of this caller is still held by the previous
 * export, or the API is busy) is retried after its `Retry-After`, at most 20 times.
 */
async function get(url: string, token: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 429 || attempt >= 20) return res;
    await res.body?.cancel();
    const wait = Math.min(10, Math.max(0.2, Number(res.headers.get('retry-after')) || 1));
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
}

/** Streams one export into `file`; @returns its manifest entry. */
async function download(api: string, token: string, kind: ExportKind, q: URLSearchParams, format: 'jsonl' | 'csv', file: string): Promise<{ entry: ManifestFile; positions: ExportPositions }> {
  const url = `${api}/exports/${kind}?${q}`;
  const res = await get(url, token);
  if (!res.ok || !res.body) throw await apiError(res, `GET /exports/${kind}`);
  const header = JSON.parse(res.headers.get('ledger-report-header') ?? 'null') as ReportHeader;
  const rows = Number(res.headers.get('ledger-export-count'));
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(file, { flags: 'wx' });
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  await new Promise<void>((done, failed) => {
    body.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
      if (!out.write(chunk)) {
        body.pause();
        out.once('drain', () => body.resume());
      }
    });
    body.on('error', failed);
    out.on('error', failed);
    body.on('end', () => out.end(() => done()));
  });
  const positions = JSON.parse(res.headers.get('ledger-export-positions') ?? 'null') as ExportPositions;
  return { entry: { name: `${kind}.${format}`, kind, format, rows, bytes, sha256: hash.digest('hex'), header }, positions };
}

/**
 * Writes the bundle. @returns the manifest written
 * @throws Error naming the call the API refused or the file that could not be written
 */
export async function writeBundle(o: { api: string; token: string; from: string; to: string; out: string; format: 'jsonl' | 'csv' }) {
  const out = resolve(o.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: give a new folder`);
  mkdirSync(out, { recursive: true });
  const api = o.api.replace(/\/$/, '');
  const period = new URLSearchParams({ from: o.from, to: o.to });
  const res = await get(`${api}/exports/anchors?${period}`, o.token);
  if (!res.ok) throw await apiError(res, 'GET /exports/anchors');
  const anchors = (await res.json()) as ExportAnchors;
  // the events file says where it really ends (a period still being recorded may have grown since the anchors were read)
  let positions: ExportPositions = anchors.positions;
  const files: ManifestFile[] = [];
  for (const kind of EXPORT_KINDS) {
    const q = new URLSearchParams({ from: o.from, to: o.to, format: o.format });
    if (kind === 'events' && anchors.positions.through !== null) q.set('through', anchors.positions.through);
    const got = await download(api, o.token, kind, q, o.format, join(out, `${kind}.${o.format}`));
    if (kind === 'events') positions = got.positions;
    files.push(got.entry);
  }
  const keyIds = new Set(anchors.anchors.map((a) => a.keyId));
  const key = anchors.publicKeys.find((k) => keyIds.has(k.keyId)) ?? anchors.publicKeys[0] ?? null;
  const header = reportHeader('Export bundle for a regulator', 'export.bundle', 1, { from: o.from, to: o.to }, { format: o.format }, false);
  const { noActivity: _n, ...bundleHeader } = header;
  const manifest = buildManifest({ header: bundleHeader, ledgerId: anchors.ledgerId, positions, files, anchors: anchors.anchors, publicKey: key });
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  if (key) writeFileSync(join(out, 'anchor-public.pem'), key.pem, { flag: 'wx' });
  return manifest;
}

if (require.main === module) {
  const program = new Command('export')
    .description('write an export bundle (events, settlements, decisions, rejections, access log, manifest.json) for a period')
    .requiredOption('--from <time>', 'start of the period, ISO-8601, inclusive', isoTime)
    .requiredOption('--to <time>', 'end of the period, ISO-8601, exclusive', isoTime)
    .requiredOption('--out <dir>', 'folder to write (new or empty)')
    .addOption(new Option('--format <format>', 'file format').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--api <url>', 'the ledger API (LEDGER_API_URL)', process.env.LEDGER_API_URL ?? 'http://127.0.0.1:3000')
    .option('--token <jwt>', 'an auditor bearer token (LEDGER_TOKEN)', process.env.LEDGER_TOKEN)
    .action(async (o: { from: string; to: string; out: string; format: 'jsonl' | 'csv'; api: string; token?: string }) => {
      if (!o.token) program.error('error: an auditor token is required (--token or LEDGER_TOKEN; npm run -s token -- --role auditor --sub <you>)');
      try {
        const m = await writeBundle({ ...o, token: o.token! });
        process.stdout.write(`export of ${m.ledgerId} ${o.from} .. ${o.to} written to ${resolve(o.out)}\n`);
        for (const f of m.files) process.stdout.write(`  ${f.name}: ${f.rows} rows, ${f.bytes} bytes, sha256 ${f.sha256}\n`);
        process.stdout.write(`  manifest.json: ${m.anchors.length} signed checkpoints, key ${m.publicKey?.keyId ?? '(none)'}${m.header.noActivity ? '; no activity in the period' : ''}\n`);
        process.stdout.write(`verify with: node examples/verify-export/verify.mjs ${o.out}\n`);
      } catch (err) {
        process.stderr.write(`export: ${(err as Error).message}\n`);
        process.exit(1);
      }
    });
  void program.parseAsync();
}
