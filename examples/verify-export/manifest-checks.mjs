// manifest-checks.mjs: the bundle's manifest, its signature, its files (docs/reports.md §5, examples/verify-export/README.md).
// Node's built-ins only. Part of verify.mjs: each check records named failures on the context `c`
// (`c.fail(code, message)`), see verify.mjs.
import { verify as verifySignature } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, Failure, readRows, sha256hex } from './bundle-format.mjs';

/** The manifest layout this verifier reads: signed. `/1` had no signature and is refused (MANIFEST_UNSIGNED). */
export const MANIFEST_FORMAT = 'baccarat-ledger-export/2';
/** Every bundle holds exactly one file of each kind. */
export const REQUIRED_KINDS = ['events', 'settlements', 'decisions', 'rejections', 'access-log'];
/** The kinds cut by global positions (their JSONL first line carries `positions`). */
const BY_POSITION = ['events', 'settlements', 'decisions'];
const POSITION = /^(0|[1-9][0-9]*)$/;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Reads `manifest.json`. @returns the manifest, or null after recording MANIFEST_MISSING,
 * MANIFEST_UNREADABLE, MANIFEST_UNSIGNED or MANIFEST_FORMAT_UNKNOWN (nothing else can be checked then)
 */
export function readManifest(c) {
  const file = join(c.dir, 'manifest.json');
  if (!existsSync(file)) return (c.fail('MANIFEST_MISSING', `no manifest.json in ${c.dir}`), null);
  let m;
  try {
    m = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return (c.fail('MANIFEST_UNREADABLE', `manifest.json is not JSON: ${err.message}`), null);
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) return (c.fail('MANIFEST_UNREADABLE', 'manifest.json is not a JSON object'), null);
  const unsigned = m.format === 'baccarat-ledger-export/1' || typeof m.signature !== 'string' || !m.signed || typeof m.signed !== 'object';
  if (unsigned) return (c.fail('MANIFEST_UNSIGNED', `manifest.json carries no signed part and signature (format ${m.format}): what it lists is nobody's word; export again from an API that signs its bundles`), null);
  if (m.format !== MANIFEST_FORMAT || m.signed.format !== MANIFEST_FORMAT)
    return (c.fail('MANIFEST_FORMAT_UNKNOWN', `manifest.json has format ${m.format} (signed: ${m.signed.format}), this script reads ${MANIFEST_FORMAT}`), null);
  c.manifest = m;
  c.signed = m.signed;
  return m;
}

/**
 * The manifest's signature, checked before anything the manifest says is used: by a key given with
 * --key (MANIFEST_KEY_UNTRUSTED otherwise), Ed25519 over the canonical JSON of `signed`
 * (MANIFEST_SIGNATURE_INVALID). @returns whether it holds
 */
export function checkSignature(c) {
  const keyId = c.signed.keyId;
  const key = typeof keyId === 'string' ? c.keys.get(keyId) : undefined;
  if (!key) {
    c.fail('MANIFEST_KEY_UNTRUSTED', `the manifest is signed by ${keyId}, which is not a key you gave (${[...c.keys.keys()].join(', ')}): a key swapped for the operator's, or the wrong key given`);
    return false;
  }
  let ok = false;
  try {
    const sig = Buffer.from(c.manifest.signature, 'base64');
    ok = sig.length === 64 && sig.toString('base64') === c.manifest.signature && verifySignature(null, Buffer.from(canonicalJson(c.signed), 'utf8'), key, sig);
  } catch {
    ok = false;
  }
  if (!ok)
    c.fail('MANIFEST_SIGNATURE_INVALID', `the manifest's Ed25519 signature by ${keyId} does not verify: its signed part was changed after signing (files, hashes, counts, positions or checkpoints), or the signature was forged`);
  c.summary.manifestKey = keyId;
  return ok;
}

/** The data rows the signed manifest lists for a kind (over every file of the kind). */
const rowsOf = (c, kind) => c.signed.files.filter((f) => f.kind === kind).reduce((n, f) => n + (Number.isSafeInteger(f.rows) ? f.rows : 0), 0);

/**
 * What the signed manifest says must hold together: exactly one file of each kind (FILE_KIND_MISSING,
 * FILE_KIND_DUPLICATE, FILE_KIND_UNKNOWN), positions wherever rows are cut by positions
 * (POSITIONS_MISSING), and every field of the right form and in agreement (MANIFEST_INCONSISTENT).
 */
export function checkManifest(c) {
  const s = c.signed;
  const malformed = [s.files, s.anchors].some((x) => !Array.isArray(x)) || s.files.some((f) => !f || typeof f !== 'object');
  if (malformed) c.fail('MANIFEST_INCONSISTENT', 'files or anchors is not a list of objects');
  s.files = Array.isArray(s.files) ? s.files.filter((f) => f && typeof f === 'object') : [];
  if (!Array.isArray(s.anchors)) s.anchors = [];
  for (const kind of REQUIRED_KINDS) {
    const n = s.files.filter((f) => f?.kind === kind).length;
    if (n === 0) c.fail('FILE_KIND_MISSING', `the manifest lists no ${kind} file: a bundle holds one of each of ${REQUIRED_KINDS.join(', ')}`);
    if (n > 1)
      c.fail(
        'FILE_KIND_DUPLICATE',
        `the manifest lists ${n} ${kind} files (${s.files
          .filter((f) => f.kind === kind)
          .map((f) => f.name)
          .join(', ')}): which one is the export?`,
      );
  }
  for (const f of s.files) if (!REQUIRED_KINDS.includes(f?.kind)) c.fail('FILE_KIND_UNKNOWN', `the manifest lists ${f?.name} of kind ${f?.kind}, no kind of export`);
  const p = s.positions;
  const pos = p && typeof p === 'object' ? p : { first: null, periodLast: null, through: null };
  const withRows = BY_POSITION.filter((k) => rowsOf(c, k) > 0);
  if (withRows.length > 0 && (pos.first === null || pos.periodLast === null || pos.through === null)) {
    c.fail('POSITIONS_MISSING', `the ${withRows.join(', ')} file(s) have rows but the manifest's positions are ${JSON.stringify(p)}: without them no event range, no checkpoint and no signed head can be checked`);
  }
  for (const problem of inconsistencies(c, pos)) c.fail('MANIFEST_INCONSISTENT', problem);
}

/** The signed manifest's fields of the wrong form or in disagreement, as sentences. */
function inconsistencies(c, pos) {
  const s = c.signed;
  const out = [];
  const period = s.period ?? {};
  if (typeof s.ledgerId !== 'string' || s.ledgerId === '') out.push('ledgerId is not a non-empty string');
  if (c.manifest.keyId !== s.keyId) out.push(`keyId ${c.manifest.keyId} differs from the signed ${s.keyId}`);
  if (typeof period.from !== 'string' || typeof period.to !== 'string' || !(Date.parse(period.from) < Date.parse(period.to))) out.push(`the period ${JSON.stringify(s.period)} is not from < to`);
  for (const k of ['first', 'periodLast', 'through']) if (pos[k] !== null && !POSITION.test(String(pos[k]))) out.push(`positions.${k} ${pos[k]} is not a decimal position`);
  const [first, last, through] = ['first', 'periodLast', 'through'].map((k) => (POSITION.test(String(pos[k])) ? BigInt(pos[k]) : null));
  if (first !== null && last !== null && through !== null && !(first <= last && last <= through)) out.push(`positions ${pos.first}..${pos.periodLast}..${pos.through} are not in order`);
  if (rowsOf(c, 'events') === 0 && pos.first !== null) out.push(`positions from ${pos.first} but the events file has no row`);
  const formats = new Set(s.files.map((f) => f?.format));
  if (formats.size > 1) out.push(`files of several formats: ${[...formats].join(', ')}`);
  const names = new Set();
  for (const f of s.files) {
    const name = String(f?.name);
    if (names.has(name)) out.push(`two files named ${name}`);
    names.add(name);
    if (name !== `${f?.kind}.${f?.format}` || !['jsonl', 'csv'].includes(f?.format)) out.push(`${name}: a ${f?.kind} file in ${f?.format} is named ${f?.kind}.jsonl or ${f?.kind}.csv`);
    if (!Number.isSafeInteger(f?.rows) || f.rows < 0 || !Number.isSafeInteger(f?.bytes) || f.bytes < 0 || !HEX64.test(String(f?.sha256))) out.push(`${name}: rows, bytes or sha256 malformed`);
    const h = f?.header ?? {};
    if (h.period?.from !== period.from || h.period?.to !== period.to) out.push(`${name}: its header's period ${JSON.stringify(h.period)} is not the bundle's ${JSON.stringify(period)}`);
    if (h.report !== `export.${f?.kind}`) out.push(`${name}: its header is of report ${h.report}, not export.${f?.kind}`);
    if (h.noActivity !== (f?.rows === 0)) out.push(`${name}: noActivity ${h.noActivity} with ${f?.rows} rows`);
  }
  for (const a of s.anchors) if (!Number.isSafeInteger(a?.seq) || !HEX64.test(String(a?.hash))) out.push(`a checkpoint digest ${JSON.stringify(a)} is malformed`);
  return out;
}

/** Every entry of the bundle's folder is `manifest.json` or a file the manifest lists (UNLISTED_FILE: a forged copy beside the genuine one, say). */
export function checkDirectory(c) {
  const listed = new Set(['manifest.json', ...c.signed.files.map((f) => String(f?.name))]);
  for (const name of readdirSync(c.dir).sort()) if (!listed.has(name)) c.fail('UNLISTED_FILE', `${name} is in the bundle but not in the signed manifest: remove it, or export again`);
}

/** The positions a file's JSONL first line must carry: the manifest's for the events, without `through` for settlements and decisions, none for the logs. */
function expectedPositions(kind, p) {
  if (kind === 'events') return p;
  if (kind === 'settlements' || kind === 'decisions') return { first: p.first, periodLast: p.periodLast, through: null };
  return { first: null, periodLast: null, through: null };
}

/**
 * Every listed file against the signed manifest: present (FILE_MISSING), its SHA-256 and size
 * (FILE_HASH_MISMATCH, FILE_SIZE_MISMATCH), its rows (PARSE_ERROR, ROW_COUNT_MISMATCH), a JSONL
 * file's trailer (TRAILER_MISSING) and first line (HEADER_MISMATCH). The file of a kind listed once is
 * kept in `c.files` for the checks that follow.
 */
export function checkFiles(c) {
  for (const f of c.signed.files) {
    const name = String(f?.name);
    const path = join(c.dir, name);
    if (name.includes('/') || name.includes('\\') || name === '..' || name === '.' || !existsSync(path)) {
      c.fail('FILE_MISSING', `${name}: listed in the signed manifest, not in the bundle`);
      continue;
    }
    const bytes = readFileSync(path);
    const sha = sha256hex(bytes);
    if (sha !== f.sha256) c.fail('FILE_HASH_MISMATCH', `${name}: SHA-256 ${sha}, the signed manifest says ${f.sha256} (the file was changed, cut or replaced)`);
    if (bytes.length !== f.bytes) c.fail('FILE_SIZE_MISMATCH', `${name}: ${bytes.length} bytes, the signed manifest says ${f.bytes}`);
    let parsed;
    try {
      parsed = readRows(bytes.toString('utf8'), f.format, name);
    } catch (err) {
      c.fail(err instanceof Failure ? err.code : 'PARSE_ERROR', err instanceof Failure ? err.message : `${name}: ${err.message}`);
      continue;
    }
    if (parsed.rows.length !== f.rows) c.fail('ROW_COUNT_MISMATCH', `${name}: ${parsed.rows.length} rows, the signed manifest says ${f.rows}`);
    if (f.format === 'jsonl') checkJsonlEnds(c, f, parsed);
    if (c.signed.files.filter((x) => x.kind === f.kind).length === 1) c.files.set(f.kind, { file: f, ...parsed });
  }
}

/** A JSONL file's trailer and first line. */
function checkJsonlEnds(c, f, parsed) {
  if (!parsed.trailer) c.fail('TRAILER_MISSING', `${f.name}: no trailer line {"trailer":{"rows":N}} (the file is cut short)`);
  else if (parsed.trailer.rows !== parsed.rows.length) c.fail('ROW_COUNT_MISMATCH', `${f.name}: ${parsed.rows.length} rows, its trailer says ${parsed.trailer.rows}`);
  if (canonicalJson(parsed.head.header) !== canonicalJson(f.header ?? null)) c.fail('HEADER_MISMATCH', `${f.name}: its header line differs from the signed manifest's header of the file`);
  const want = expectedPositions(f.kind, c.signed.positions ?? {});
  if (canonicalJson(parsed.head.positions ?? null) !== canonicalJson(want)) c.fail('HEADER_MISMATCH', `${f.name}: its positions ${JSON.stringify(parsed.head.positions)} are not ${JSON.stringify(want)}`);
}
