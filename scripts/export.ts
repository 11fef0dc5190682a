/**
 * Writes an export bundle for a regulator (docs/reports.md §5):
 *   npm run -s export -- --from 2026-12-01T06:00:00Z --to 2026-12-02T06:00:00Z --out ./export-2026-12-01 [--format jsonl|csv]
 *
 * It calls the ledger API as any auditor would (no database credentials: what a regulator's IT is
 * given is an auditor token and the API's address; every call lands in the access log):
 * `GET /exports/anchors` first (the position the events export ends at), then `GET /exports/{events,
 * settlements,decisions,rejections,access-log}`, each streamed to its file while its SHA-256 is
 * computed and its rows counted against the count the API announced, then `GET /exports/manifest`
 * with the five receipts the exports answered: the API signs the bundle's manifest (period,
 * positions, each file's SHA-256, size and row count, the checkpoints' digests) from what it recorded
 * sending, with the report signing key. The script checks that the signed manifest lists the files as
 * received and writes it as `manifest.json` (with the checkpoints).
 * `node examples/verify-export/verify.mjs <out> --key <the operator's public key>` checks the bundle;
 * the key comes from the operator, never from the bundle (which carries none a verifier trusts).
 *
 * A bundle is whole or says it is not: the folder holds a file `INCOMPLETE` from the first byte
 * until `manifest.json` is written (so a killed run leaves it too). When a file fails — the API
 * refuses, cuts the response, or answers fewer rows than it announced, or a file cannot be written —
 * `INCOMPLETE` says which file and why, the bytes received are kept as `<file>.partial`, no manifest
 * is written, and the command exits 1 naming the file and the reason (with the request's correlation
 * id, under which the API logged why it cut the response).
 *
 * Options (defaults from the environment): `--api` (`LEDGER_API_URL`, default http://127.0.0.1:3000),
 * `--token` (`LEDGER_TOKEN`: an auditor or pit-manager bearer token, e.g. `npm run -s token -- --role
 * auditor --sub regulator-it`). The output folder must not exist or be empty. Exit 0 with a summary;
 * 1 with the reason otherwise.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parse as csvParser } from 'csv-parse';
import { EXPORT_KINDS, type ExportKind, type ExportPositions } from '../apps/ledger/src/exports/export-kinds';
import type { SignedManifest } from '../apps/ledger/src/exports/export-manifest';
import type { ExportAnchors } from '../apps/ledger/src/exports/exports.service';

/** The marker a bundle holds while it is not whole (written first, removed once `manifest.json` is). */
export const INCOMPLETE_MARKER = 'INCOMPLETE';

/** What {@link writeBundle} needs. */
export interface BundleOptions {
  readonly api: string;
  readonly token: string;
  readonly from: string;
  readonly to: string;
  readonly out: string;
  readonly format: 'jsonl' | 'csv';
}

/** A run of {@link writeBundle}: its options, the API without a trailing `/`, and the run's tag (the prefix of its correlation ids). */
interface RunOptions extends BundleOptions {
  readonly run: string;
}

/** One file of the bundle that could not be written whole: the file (or call) and why. */
export class BundleFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

const isoTime = (v: string): string => {
  if (Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('expected an ISO-8601 time, e.g. 2026-12-01T06:00:00Z');
  return v;
};

/** An error answer of the API, as one line: `HTTP <status> <code>: <message>`. */
async function apiError(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const b = JSON.parse(text) as { error?: { code?: string; message?: string } };
    return `HTTP ${res.status} ${b.error?.code}: ${b.error?.message}`;
  } catch {
    return `HTTP ${res.status} ${text.slice(0, 200)}`;
  }
}

/** A network error as one line: its message and its cause's (`terminated (other side closed)`). */
function networkReason(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string } };
  const cause = e.cause?.message ?? e.cause?.code;
  return cause ? `${e.message} (${cause})` : String(e.message ?? e);
}

/**
 * GET with the token and a correlation id; a 429 (the API's heavy-read slot of this caller is still
 * held by the previous export, or the API is busy) is retried after its `Retry-After`, at most 20 times.
 */
async function get(url: string, token: string, correlationId: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'x-correlation-id': correlationId } });
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

/** Counts the rows of an export body as it streams (docs/reports.md §5 "Format"). */
interface RowCounter {
  push(chunk: Buffer): void;
  /** The data rows, or why the body is not a whole export. */
  end(): Promise<{ rows: number; problem: string | null }>;
}

/** JSONL: the header line, the rows, and the trailer `{"trailer":{"rows":N}}` as the last line. */
function jsonlCounter(): RowCounter {
  const decoder = new StringDecoder('utf8');
  let lines = 0;
  let pending = '';
  let last = '';
  return {
    push(chunk) {
      const text = pending + decoder.write(chunk);
      const parts = text.split('\n');
      pending = parts.pop() ?? '';
      lines += parts.length;
      if (parts.length > 0) last = parts[parts.length - 1];
    },
    async end() {
      pending += decoder.end();
      let trailer: { rows?: unknown } | null = null;
      try {
        trailer = (JSON.parse(last) as { trailer?: { rows?: unknown } }).trailer ?? null;
      } catch {
        trailer = null;
      }
      // the data rows: every whole line but the header line and the trailer line
      const rows = Math.max(0, lines - 1 - (trailer ? 1 : 0));
      if (pending !== '') return { rows, problem: 'its last line is cut short' };
      if (!trailer) return { rows, problem: 'it has no trailer line {"trailer":{"rows":N}}' };
      return { rows, problem: trailer.rows === rows ? null : `its trailer says ${String(trailer.rows)} rows` };
    },
  };
}

/** CSV: a line of column names, then one record per row (csv-parse counts records, quoted newlines included). */
function csvCounter(): RowCounter {
  const parser = csvParser({ relax_column_count: true });
  let records = 0;
  let problem: string | null = null;
  parser.on('readable', () => {
    while (parser.read() !== null) records++;
  });
  const done = new Promise<void>((ok) => {
    parser.on('end', ok);
    parser.on('error', (err) => {
      problem = `not whole CSV: ${err.message}`;
      ok();
    });
  });
  return {
    push: (chunk) => void parser.write(chunk),
    async end() {
      parser.end();
      await done;
      return { rows: Math.max(0, records - 1), problem };
    },
  };
}

/**
 * Copies a response body into `file`, hashing and counting it. @returns its SHA-256, size and rows,
 * and `problem`: null when it is a whole export body, else why not (the API cut the response, the
 * trailer is missing or says another count)
 * @throws Error when the file cannot be written
 */
async function saveBody(res: Response, file: string, counter: RowCounter): Promise<{ sha256: string; bytes: number; rows: number; problem: string | null }> {
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(file, { flags: 'wx' });
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  const cut = await new Promise<string | null>((done, failed) => {
    body.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
      counter.push(chunk);
      if (!out.write(chunk)) {
        body.pause();
        out.once('drain', () => body.resume());
      }
    });
    body.on('error', (err) => out.end(() => done(`the API cut the response after ${bytes} bytes: ${networkReason(err)}`)));
    out.on('error', (err) => failed(new Error(`cannot write ${file}: ${err.message}`)));
    body.on('end', () => out.end(() => done(null)));
  });
  const counted = await counter.end();
  return { sha256: hash.digest('hex'), bytes, rows: counted.rows, problem: cut ?? counted.problem };
}

/**
 * Streams one export into `out/<kind>.<format>`. @returns its manifest entry and the positions it covers
 * @throws BundleFileError naming the file and why it is not whole: the API refused, cut the response,
 * or answered another number of rows than it announced (`Ledger-Export-Count`)
 */
async function download(o: RunOptions, f: { kind: ExportKind; query: URLSearchParams; out: string }): Promise<Downloaded> {
  const { kind, query: q, out } = f;
  const name = `${kind}.${o.format}`;
  const correlationId = `${o.run}-${kind}`;
  const where = `correlation id ${correlationId} in the API's log`;
  let res: Response;
  try {
    res = await get(`${o.api}/exports/${kind}?${q}`, o.token, correlationId);
  } catch (err) {
    throw new BundleFileError(name, `GET /exports/${kind} failed before an answer: ${networkReason(err)}`);
  }
  if (!res.ok || !res.body) throw new BundleFileError(name, `GET /exports/${kind} refused: ${await apiError(res)}`);
  const receipt = res.headers.get('ledger-export-receipt');
  if (!receipt) {
    await res.body.cancel();
    throw new BundleFileError(name, `GET /exports/${kind} answered no Ledger-Export-Receipt header (an API older than the signed bundles?)`);
  }
  const announced = Number(res.headers.get('ledger-export-count'));
  let got: Awaited<ReturnType<typeof saveBody>>;
  try {
    got = await saveBody(res, join(out, name), o.format === 'jsonl' ? jsonlCounter() : csvCounter());
  } catch (err) {
    throw new BundleFileError(name, (err as Error).message);
  }
  if (got.problem !== null) throw new BundleFileError(name, `${got.problem}; ${got.rows} of the ${announced} rows announced were received (${where})`);
  if (got.rows !== announced) throw new BundleFileError(name, `the API announced ${announced} rows, the file holds ${got.rows} (${where})`);
  const positions = JSON.parse(res.headers.get('ledger-export-positions') ?? 'null') as ExportPositions;
  return { name, kind, rows: announced, bytes: got.bytes, sha256: got.sha256, receipt, positions };
}

/**
 * Whether the manifest the API signed lists exactly the files as received (a file cut in transit, or
 * an API that signed other bytes, makes a bundle no verifier would accept: better to say so now).
 * @throws BundleFileError naming the first file that differs
 */
function checkSigned(manifest: SignedManifest, files: readonly Downloaded[]): void {
  for (const f of files) {
    const signed = manifest.signed.files.find((x) => x.kind === f.kind);
    if (!signed || signed.name !== f.name || signed.sha256 !== f.sha256 || signed.bytes !== f.bytes || signed.rows !== f.rows || signed.receipt !== f.receipt) {
      throw new BundleFileError(f.name, `the manifest the API signed does not list the file as received (${f.bytes} bytes, sha256 ${f.sha256})`);
    }
  }
}

/** Every file of the bundle, then the manifest the API signs from its receipts; `files` collects the files written whole so far. */
async function writeFiles(o: RunOptions, out: string, files: Downloaded[]): Promise<SignedManifest> {
  const period = new URLSearchParams({ from: o.from, to: o.to });
  let res: Response;
  try {
    res = await get(`${o.api}/exports/anchors?${period}`, o.token, `${o.run}-anchors`);
  } catch (err) {
    throw new BundleFileError('manifest.json', `GET /exports/anchors failed before an answer: ${networkReason(err)}`);
  }
  if (!res.ok) throw new BundleFileError('manifest.json', `GET /exports/anchors refused: ${await apiError(res)}`);
  const anchors = (await res.json()) as ExportAnchors;
  for (const kind of EXPORT_KINDS) {
    const query = new URLSearchParams({ from: o.from, to: o.to, format: o.format });
    // the events end where the checkpoints read first say (a period still being recorded may have grown since)
    if (kind === 'events' && anchors.positions.through !== null) query.set('through', anchors.positions.through);
    files.push(await download(o, { kind, query, out }));
  }
  let signedRes: Response;
  try {
    signedRes = await get(`${o.api}/exports/manifest?${new URLSearchParams({ receipts: files.map((f) => f.receipt).join(',') })}`, o.token, `${o.run}-manifest`);
  } catch (err) {
    throw new BundleFileError('manifest.json', `GET /exports/manifest failed before an answer: ${networkReason(err)}`);
  }
  if (!signedRes.ok) throw new BundleFileError('manifest.json', `GET /exports/manifest refused: ${await apiError(signedRes)}`);
  const manifest = (await signedRes.json()) as SignedManifest;
  checkSigned(manifest, files);
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  return manifest;
}

/** Where a bundle stands, for `INCOMPLETE`: the failure (null while the export runs), the files written whole, the partial file kept. */
interface BundleState {
  readonly failure: BundleFileError | null;
  readonly files: readonly Downloaded[];
  readonly partial: string | null;
}

/** The text of `INCOMPLETE`: which file failed and why, what was written, what to do. */
function incompleteText(o: BundleOptions, s: BundleState): string {
  return [
    'INCOMPLETE: this export bundle is not whole. Do not use it or hand it over; export again into a new folder.',
    ...(s.failure ? [`failed: ${s.failure.file}`, `reason: ${s.failure.reason}`] : ['the export is running, or stopped before it was whole.']),
    `period: ${o.from} .. ${o.to}; format ${o.format}; API ${o.api}`,
    `written whole: ${s.files.length ? s.files.map((f) => `${f.name} (${f.rows} rows)`).join(', ') : 'none'}`,
    ...(s.partial ? [`kept for diagnosis: ${s.partial} (the bytes received before the failure)`] : []),
    'not written: manifest.json (examples/verify-export/verify.mjs refuses this folder)',
    `at: ${new Date().toISOString()}`,
    '',
  ].join('\n');
}

/**
 * Writes the bundle into `o.out` (new or empty): `INCOMPLETE` first, the five files, the signed
 * `manifest.json`, then `INCOMPLETE` is removed. @returns the manifest written
 * @throws Error when the folder is not empty (nothing written); BundleFileError when a file or call
 * fails: the folder then holds `INCOMPLETE` naming the file and the reason, the partial file as
 * `<file>.partial`, and no manifest
 */
export async function writeBundle(o: BundleOptions): Promise<SignedManifest> {
  const out = resolve(o.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: give a new folder`);
  mkdirSync(out, { recursive: true });
  const run = { ...o, api: o.api.replace(/\/$/, ''), run: `export-${randomUUID().slice(0, 8)}` };
  const marker = join(out, INCOMPLETE_MARKER);
  const files: Downloaded[] = [];
  writeFileSync(marker, incompleteText(run, { failure: null, files, partial: null }));
  try {
    const manifest = await writeFiles(run, out, files);
    rmSync(marker);
    return manifest;
  } catch (err) {
    const failure = err instanceof BundleFileError ? err : new BundleFileError('manifest.json', (err as Error).message);
    let partial: string | null = null;
    if (failure.file !== 'manifest.json' && existsSync(join(out, failure.file))) {
      partial = `${failure.file}.partial`;
      renameSync(join(out, failure.file), join(out, partial));
    }
    // a file received whole that the signed manifest lists otherwise (checkSigned) is no longer whole: it is the .partial
    writeFileSync(marker, incompleteText(run, { failure, files: files.filter((f) => f.name !== failure.file), partial }));
    throw failure;
  }
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
        if (err instanceof BundleFileError) {
          process.stderr.write(`export: INCOMPLETE bundle in ${resolve(o.out)}: ${err.file} failed: ${err.reason}\n`);
          process.stderr.write(`export: no manifest.json was written; ${join(resolve(o.out), INCOMPLETE_MARKER)} says what is missing; export again into a new folder\n`);
        } else process.stderr.write(`export: ${(err as Error).message}\n`);
        process.exit(1);
      }
    });
  void program.parseAsync();
}
