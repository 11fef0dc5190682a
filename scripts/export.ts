/**
 * Writes an export bundle for a regulator (docs/reports.md §5):
 *   npm run -s export -- --from 2026-12-01T06:00:00Z --to 2026-12-02T06:00:00Z --out ./export-2026-12-01 [--format jsonl|csv]
 *
 * It calls the ledger API as any auditor would (no database credentials: what a regulator's IT is
 * given is an auditor token and the API's address; every call lands in the access log):
 * `GET /exports/anchors` first (the position the events export ends at), then `GET /exports/{events,
 * settlements,decisions,rejections,access-log}`, each streamed to its file while its SHA-256 is
 * computed, then `GET /exports/manifest` with the five receipts the exports answered: the API signs
 * the bundle's manifest (period, positions, each file's SHA-256, size and row count, the checkpoints'
 * digests) from what it recorded sending, with the report signing key. The script checks that the
 * signed manifest lists the files as received and writes it as `manifest.json` (with the checkpoints).
 * `node examples/verify-export/verify.mjs <out> --key <the operator's public key>` checks the bundle;
 * the key comes from the operator, never from the bundle (which carries none a verifier trusts).
 *
 * Options (defaults from the environment): `--api` (`LEDGER_API_URL`, default http://127.0.0.1:3000),
 * `--token` (`LEDGER_TOKEN`: an auditor or pit-manager bearer token, e.g. `npm run -s token -- --role
 * auditor --sub regulator-it`). The output folder must not exist or be empty. Exit 0 with a summary;
 * 1 when the API refuses (its error code printed), a file cannot be written, or the signed manifest
 * lists a file otherwise than it was received.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Command, InvalidArgumentError, Option } from 'commander';
import { EXPORT_KINDS, type ExportKind, type ExportPositions } from '../apps/ledger/src/exports/export-kinds';
import type { SignedManifest } from '../apps/ledger/src/exports/export-manifest';
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

/** One export as downloaded: what the client counted and hashed itself, and the receipt the API answered. */
interface Downloaded {
  readonly name: string;
  readonly kind: ExportKind;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly receipt: string;
  readonly positions: ExportPositions;
}

/** Streams one export into `o.file`, hashing it. @throws Error when the API refuses or answers no receipt */
async function download(o: { api: string; token: string; kind: ExportKind; query: URLSearchParams; file: string }): Promise<Downloaded> {
  const res = await get(`${o.api}/exports/${o.kind}?${o.query}`, o.token);
  if (!res.ok || !res.body) throw await apiError(res, `GET /exports/${o.kind}`);
  const receipt = res.headers.get('ledger-export-receipt');
  if (!receipt) throw new Error(`GET /exports/${o.kind}: no Ledger-Export-Receipt header (an API older than the signed bundles?)`);
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(o.file, { flags: 'wx' });
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
  const name = o.file.split(/[\\/]/).pop()!;
  return { name, kind: o.kind, rows: Number(res.headers.get('ledger-export-count')), bytes, sha256: hash.digest('hex'), receipt, positions };
}

/**
 * Whether the manifest the API signed lists exactly the files as received (a file cut in transit, or
 * an API that signed other bytes, makes a bundle no verifier would accept: better to say so now).
 * @throws Error naming the first file that differs
 */
function checkSigned(manifest: SignedManifest, files: readonly Downloaded[]): void {
  for (const f of files) {
    const signed = manifest.signed.files.find((x) => x.kind === f.kind);
    if (!signed || signed.name !== f.name || signed.sha256 !== f.sha256 || signed.bytes !== f.bytes || signed.rows !== f.rows || signed.receipt !== f.receipt) {
      throw new Error(`${f.name}: the manifest the API signed does not list the file as received (${f.bytes} bytes, sha256 ${f.sha256}); export again`);
    }
  }
}

/**
 * Writes the bundle: the five exports, then `manifest.json` as the API signed it. @returns the manifest
 * @throws Error naming the call the API refused, the file that could not be written, or a file the signed manifest lists otherwise
 */
export async function writeBundle(o: { api: string; token: string; from: string; to: string; out: string; format: 'jsonl' | 'csv' }): Promise<SignedManifest> {
  const out = resolve(o.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: give a new folder`);
  mkdirSync(out, { recursive: true });
  const api = o.api.replace(/\/$/, '');
  const period = new URLSearchParams({ from: o.from, to: o.to });
  const res = await get(`${api}/exports/anchors?${period}`, o.token);
  if (!res.ok) throw await apiError(res, 'GET /exports/anchors');
  const anchors = (await res.json()) as ExportAnchors;
  const files: Downloaded[] = [];
  for (const kind of EXPORT_KINDS) {
    const query = new URLSearchParams({ from: o.from, to: o.to, format: o.format });
    // the events end where the checkpoints read first say (a period still being recorded may have grown since)
    if (kind === 'events' && anchors.positions.through !== null) query.set('through', anchors.positions.through);
    files.push(await download({ api, token: o.token, kind, query, file: join(out, `${kind}.${o.format}`) }));
  }
  const signedRes = await get(`${api}/exports/manifest?${new URLSearchParams({ receipts: files.map((f) => f.receipt).join(',') })}`, o.token);
  if (!signedRes.ok) throw await apiError(signedRes, 'GET /exports/manifest');
  const manifest = (await signedRes.json()) as SignedManifest;
  checkSigned(manifest, files);
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
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
        process.stdout.write(`export of ${m.signed.ledgerId} ${o.from} .. ${o.to} written to ${resolve(o.out)}\n`);
        for (const f of m.signed.files) process.stdout.write(`  ${f.name}: ${f.rows} rows, ${f.bytes} bytes, sha256 ${f.sha256}\n`);
        process.stdout.write(`  manifest.json: signed by ${m.keyId}; ${m.anchors.length} signed checkpoints${m.signed.header.noActivity ? '; no activity in the period' : ''}\n`);
        process.stdout.write(`verify with the public key the operator published: node examples/verify-export/verify.mjs ${o.out} --key <operator-public.pem>\n`);
      } catch (err) {
        process.stderr.write(`export: ${(err as Error).message}\n`);
        process.exit(1);
      }
    });
  void program.parseAsync();
}
