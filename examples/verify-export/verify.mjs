#!/usr/bin/env node
// verify.mjs: checks an export bundle of the baccarat round ledger with Node's built-ins only
// (node:crypto, node:fs, node:path, node:url): no ledger code, no npm package. Node.js 18 or later.
// Three files, all read before you run them: verify.mjs (this one: the command and the order of the
// checks), manifest-checks.mjs (the signed manifest and the files), ledger-checks.mjs (the
// checkpoints, the events and the rows tied to them); bundle-format.mjs holds the formats.
//
//   node verify.mjs <bundle-dir> --key operator-public.pem [--key another.pem] [--allow-unanchored] [--quiet]
//
// <bundle-dir> holds manifest.json and the files it lists (as `npm run export` writes them).
// --key (required, repeatable): the operator's public key(s), PEM, as the operator published them
//        through another channel than the bundle: the report key that signs the manifest and the
//        anchor key that signs the checkpoints (usually one key). A key file inside the bundle is refused.
// --allow-unanchored: events after the last signed checkpoint are a stated limit, not a failure.
//
// It fails closed (docs/reports.md §5, examples/verify-export/README.md): the manifest's signature
// first; then every check, none optional: exactly one file of each kind, each file's SHA-256, size
// and rows against the signed manifest, nothing unlisted in the folder, positions wherever there are
// rows, the checkpoints the manifest names and no other, every event's hash and chain, every signed
// head matched by the export, every exported event under a signed head, every settlement and
// decision row equal to its signed event and none missing.
// Exit 0 when all hold, with a LIMIT line for each thing a pass still does not prove and
// `OK: the export verifies` (naming the limits when there are any); 1 with every failure as
// `FAIL <CODE>: …` and the first again as `FIRST FAILURE: <CODE>: …`; 2 when the verifier cannot
// run: no bundle named, no --key (KEY_NOT_GIVEN), a key that cannot be read (KEY_UNREADABLE) or
// that lies in the bundle (KEY_FROM_BUNDLE).
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { keyIdOf, sha256hex } from './bundle-format.mjs';
import { checkDirectory, checkFiles, checkManifest, checkSignature, readManifest } from './manifest-checks.mjs';
import { checkAnchors, checkEvents, checkHeads, checkRows, standingLimits } from './ledger-checks.mjs';

export { canonicalJson, eventHash, hashedFields, merkleRoot, parseCsv } from './bundle-format.mjs';

/** The context every check reads and records into. */
function context(dir, options) {
  const failures = [];
  const limits = [];
  return {
    dir,
    options,
    keys: new Map((options.keys ?? []).map((k) => [keyIdOf(k), k])),
    manifest: null,
    signed: null,
    files: new Map(),
    anchors: [],
    events: { streams: new Map(), byId: new Map(), list: [] },
    failures,
    limits,
    fail: (code, message) => failures.push({ code, message }),
    limit: (code, message) => limits.push({ code, message }),
    summary: { manifestKey: null, eventsChecked: 0, streams: 0, checkpoints: 0, headsChecked: 0 },
  };
}

/**
 * Verifies a bundle, failing closed: the manifest's signature first (nothing the manifest says is
 * used before it holds), then every check in order.
 * @param options.keys the trusted public keys (`KeyObject`s, Ed25519): the operator's; none: KEY_NOT_GIVEN
 * @param options.allowUnanchored events under no signed head are a limit, not a failure
 * @returns { failures: [{ code, message }], limits: [{ code, message }], summary }
 */
export function verifyBundle(dir, options = {}) {
  const c = context(dir, options);
  const done = () => ({ failures: c.failures, limits: c.limits, summary: { ...c.summary, ledgerId: c.signed?.ledgerId, period: c.signed?.period, files: (c.signed?.files ?? []).map((f) => `${f.name} (${f.rows} rows)`) } });
  if (c.keys.size === 0) return (c.fail('KEY_NOT_GIVEN', "no public key given (--key): the operator's key, published through another channel than the bundle, is what the bundle is checked against"), done());
  if (!readManifest(c) || !checkSignature(c)) return done();
  for (const check of [checkManifest, checkDirectory, checkFiles, checkAnchors, checkEvents, checkHeads, checkRows, standingLimits]) check(c);
  return done();
}

/** Usage problems (exit 2). */
class UsageError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The public keys of the --key files, each an Ed25519 PEM (several per file allowed), none inside the bundle. */
function readKeys(files, dir) {
  if (files.length === 0) throw new UsageError('KEY_NOT_GIVEN', "no --key: give the operator's public key (PEM) as published through another channel than the bundle");
  const bundle = existsSync(dir) ? realpathSync(dir) : resolve(dir);
  const keys = [];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError('KEY_UNREADABLE', `--key ${file}: ${err.message}`);
    }
    const inside = relative(bundle, realpathSync(dirname(file)));
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) throw new UsageError('KEY_FROM_BUNDLE', `--key ${file} is a file of the bundle: a bundle cannot vouch for itself; take the key the operator published`);
    const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
    if (blocks.length === 0) throw new UsageError('KEY_UNREADABLE', `--key ${file} holds no PEM public key`);
    for (const pem of blocks) {
      const key = createPublicKey(pem);
      if (key.asymmetricKeyType !== 'ed25519') throw new UsageError('KEY_UNREADABLE', `--key ${file} holds a ${key.asymmetricKeyType} key; the ledger signs with Ed25519`);
      keys.push(key);
    }
  }
  return keys;
}

function report(result, keys, quiet) {
  const s = result.summary;
  if (!quiet) {
    console.log(`ledger ${s.ledgerId}, period ${s.period?.from} .. ${s.period?.to}`);
    for (const k of keys) console.log(`key given ${keyIdOf(k)} (SHA-256 of its DER: ${sha256hex(k.export({ type: 'spki', format: 'der' }))})`);
    console.log(`manifest signed by ${s.manifestKey ?? '(not checked)'}; files: ${s.files.join(', ')}`);
    console.log(`events checked ${s.eventsChecked} in ${s.streams} streams; checkpoints ${s.checkpoints} (${s.headsChecked} signed heads checked against the export)`);
  }
  for (const l of result.limits) console.log(`LIMIT ${l.code}: ${l.message}`);
  if (result.failures.length === 0) {
    const codes = result.limits.map((l) => l.code);
    console.log(codes.length === 0 ? 'OK: the export verifies' : `OK: the export verifies, within ${codes.length} stated limit(s): ${codes.join(', ')} (LIMIT lines above)`);
    return 0;
  }
  for (const f of result.failures.slice(0, 50)) console.log(`FAIL ${f.code}: ${f.message}`);
  if (result.failures.length > 50) console.log(`… and ${result.failures.length - 50} more`);
  console.log(`FIRST FAILURE: ${result.failures[0].code}: ${result.failures[0].message}`);
  return 1;
}

function main(argv) {
  const args = argv.slice(2);
  const keyFiles = args.flatMap((a, i) => (a === '--key' && i + 1 < args.length ? [args[i + 1]] : []));
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--key');
  if (!dir) {
    console.error('usage: node verify.mjs <bundle-dir> --key operator-public.pem [--key …] [--allow-unanchored] [--quiet]');
    return 2;
  }
  try {
    const keys = readKeys(keyFiles, dir);
    return report(verifyBundle(dir, { keys, allowUnanchored: args.includes('--allow-unanchored') }), keys, args.includes('--quiet'));
  } catch (err) {
    const code = err instanceof UsageError ? err.code : 'VERIFIER_ERROR';
    console.log(`FIRST FAILURE: ${code}: ${err.message}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(main(process.argv));
