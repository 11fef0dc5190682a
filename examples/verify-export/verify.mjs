#!/usr/bin/env node
// verify.mjs: checks an export bundle of the baccarat round ledger with Node's built-ins only
// (node:crypto, node:fs, node:path): no ledger code, no npm package. Node.js 18 or later.
//
//   node verify.mjs <bundle-dir> [--key anchor-public.pem] [--allow-unanchored] [--quiet]
//
// <bundle-dir> holds manifest.json and the files it lists (as `npm run export` writes them).
// --key: the anchors' public key as the operator published it (default: the copy in the manifest;
//        then compare the printed key id with the published one yourself).
// --allow-unanchored: events after the last signed checkpoint are reported, not a failure.
//
// It checks (docs/reports.md §5, examples/verify-export/README.md):
//  1. every file's SHA-256, size and row count against manifest.json (and a JSONL file's trailer);
//  2. every event's hash recomputed from its canonical bytes (RFC 8785), the prev_hash chain of every
//     stream, versions without gaps, global positions in order and inside the exported range;
//  3. every signed checkpoint: its key id, its Ed25519 signature, its Merkle root (RFC 6962), the
//     chain of checkpoints (seq + 1, previousAnchorHash);
//  4. every stream head a checkpoint signs inside the export equals the recomputed hash at that
//     version, and every exported event lies under a signed head;
//  5. that each settlement and decision row names an event of the export, of the right type.
// Exit 0 and a summary when all hold; 1 and every failure (the first one named on the last line)
// when one does not; 2 when the bundle cannot be read at all.
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ZEROS = '0'.repeat(64);
const sha256hex = (data) => createHash('sha256').update(data).digest('hex');

/**
 * RFC 8785 canonical JSON (JCS) of a JSON value: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings as ECMAScript's JSON.stringify writes them (which is the RFC's
 * form). Throws on what JSON cannot hold (NaN, Infinity, undefined, functions, BigInt).
 */
export function canonicalJson(v) {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`a number JSON cannot hold: ${v}`);
      return JSON.stringify(v);
    case 'string':
      return JSON.stringify(v);
    case 'object': {
      if (Array.isArray(v)) return `[${v.map((x) => canonicalJson(x)).join(',')}]`;
      const keys = Object.keys(v)
        .filter((k) => v[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
    }
    default:
      throw new Error(`a value JSON cannot hold: ${typeof v}`);
  }
}

/** The fields an event's hash covers (the "hash contract"): not `hash`, not `globalPosition`. */
export function hashedFields(e) {
  return {
    eventId: e.eventId,
    type: e.type,
    schemaVersion: e.schemaVersion,
    streamId: e.streamId,
    streamVersion: e.streamVersion,
    tableId: e.tableId,
    occurredAt: e.occurredAt,
    recordedAt: e.recordedAt,
    actor: { id: e.actor.id, role: e.actor.role },
    correlationId: e.correlationId,
    causationId: e.causationId,
    prevHash: e.prevHash,
    data: e.data,
  };
}

/** hash = hex(SHA-256(prevHash ‖ canonical JSON of the hashed fields)), UTF-8. */
export function eventHash(e) {
  return createHash('sha256')
    .update(e.prevHash, 'utf8')
    .update(canonicalJson(hashedFields(e)), 'utf8')
    .digest('hex');
}

/** RFC 6962 Merkle Tree Hash over raw leaf data: leaf H(0x00‖d), node H(0x01‖l‖r), split at the largest power of two below n. */
export function merkleRoot(leaves) {
  const h = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
  const mth = (d) => {
    if (d.length === 0) return h(Buffer.alloc(0));
    if (d.length === 1) return h(Buffer.from([0]), d[0]);
    let k = 1;
    while (k * 2 < d.length) k *= 2;
    return h(Buffer.from([1]), mth(d.slice(0, k)), mth(d.slice(k)));
  };
  return mth(leaves).toString('hex');
}

/** RFC 4180 CSV (comma, double quotes, "" inside quotes, LF or CRLF) → array of records (arrays of strings). */
export function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  let i = 0;
  let fieldStarted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === ',') {
      record.push(field);
      field = '';
      fieldStarted = false;
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    }
    if (c === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStarted = false;
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new Error('the CSV ends inside a quoted field');
  if (field !== '' || fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** The value of a CSV field: the ledger marks a field that starts with = + - @ tab, CR or ' with one leading ' (not a plain number such as -150; spreadsheet safety, docs/reports.md §8). */
const csvValue = (field) => (field.startsWith("'") ? field.slice(1) : field);

/** The data rows of an export file: { header, rows: [{ line, value }], trailer } for JSONL; { columns, rows } for CSV. */
function readRows(text, format, name) {
  if (format === 'jsonl') {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const parsed = lines.map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (err) {
        throw new Failure('PARSE_ERROR', `${name} line ${i + 1} is not JSON: ${err.message}`);
      }
    });
    const head = parsed[0];
    if (!head || typeof head.header !== 'object') throw new Failure('PARSE_ERROR', `${name}: the first line is not {"header":…}`);
    const last = parsed[parsed.length - 1];
    const trailer = parsed.length > 1 && last && typeof last.trailer === 'object' && Object.keys(last).length === 1 ? last.trailer : null;
    const body = parsed.slice(1, trailer ? -1 : undefined).map((value, i) => ({ line: i + 2, value }));
    return { header: head.header, positions: head.positions ?? null, rows: body, trailer };
  }
  const records = parseCsv(text);
  const columns = records[0] ?? [];
  const rows = records.slice(1).map((r, i) => {
    if (r.length !== columns.length) throw new Failure('PARSE_ERROR', `${name} record ${i + 2} has ${r.length} fields, the header ${columns.length}`);
    return { line: i + 2, value: Object.fromEntries(columns.map((c, j) => [c, csvValue(r[j])])) };
  });
  return { header: null, positions: null, rows, trailer: null };
}

/** An event of a CSV record (the export writes `data` as its canonical JSON, numbers as decimal text). */
function eventOfCsv(r) {
  return {
    globalPosition: r.globalPosition,
    eventId: r.eventId,
    type: r.type,
    schemaVersion: Number(r.schemaVersion),
    streamId: r.streamId,
    streamVersion: Number(r.streamVersion),
    tableId: r.tableId,
    occurredAt: r.occurredAt,
    recordedAt: r.recordedAt,
    actor: { id: r.actorId, role: r.actorRole },
    correlationId: r.correlationId,
    causationId: r.causationId,
    prevHash: r.prevHash,
    hash: r.hash,
    data: JSON.parse(r.data),
  };
}

class Failure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Verifies a bundle. @returns { failures: [{ code, message }], notes: [string], summary: {...} }
 * @throws Failure (code `UNREADABLE`) when manifest.json cannot be read
 */
export function verifyBundle(dir, options = {}) {
  const failures = [];
  const notes = [];
  const fail = (code, message) => failures.push({ code, message });
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Failure('UNREADABLE', `no manifest.json in ${dir}`);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch (err) {
    throw new Failure('UNREADABLE', `manifest.json is not JSON: ${err.message}`);
  }
  if (manifest.format !== 'baccarat-ledger-export/1') throw new Failure('UNREADABLE', `manifest.json has format ${manifest.format}, this script reads baccarat-ledger-export/1`);

  // 1. the files
  const contents = new Map();
  for (const f of manifest.files ?? []) {
    const path = join(dir, f.name);
    if (f.name.includes('/') || f.name.includes('\\') || !existsSync(path)) {
      fail('FILE_MISSING', `${f.name}: listed in the manifest, not in the bundle`);
      continue;
    }
    const bytes = readFileSync(path);
    const sha = sha256hex(bytes);
    if (sha !== f.sha256) fail('FILE_HASH_MISMATCH', `${f.name}: SHA-256 ${sha}, the manifest says ${f.sha256} (the file was changed, truncated or replaced)`);
    if (bytes.length !== f.bytes) fail('FILE_SIZE_MISMATCH', `${f.name}: ${bytes.length} bytes, the manifest says ${f.bytes}`);
    let parsed;
    try {
      parsed = readRows(bytes.toString('utf8'), f.format, f.name);
    } catch (err) {
      if (err instanceof Failure) {
        fail(err.code, err.message);
        continue;
      }
      fail('PARSE_ERROR', `${f.name}: ${err.message}`);
      continue;
    }
    if (parsed.rows.length !== f.rows) fail('ROW_COUNT_MISMATCH', `${f.name}: ${parsed.rows.length} rows, the manifest says ${f.rows}`);
    if (f.format === 'jsonl') {
      if (!parsed.trailer) fail('TRAILER_MISSING', `${f.name}: no trailer line {"trailer":{"rows":N}} (the file is cut short)`);
      else if (parsed.trailer.rows !== parsed.rows.length) fail('ROW_COUNT_MISMATCH', `${f.name}: ${parsed.rows.length} rows, its trailer says ${parsed.trailer.rows}`);
      if (parsed.header && canonicalJson(parsed.header) !== canonicalJson(f.header)) fail('HEADER_MISMATCH', `${f.name}: its header line differs from the manifest's header of the file`);
    }
    if (f.header?.noActivity !== (parsed.rows.length === 0)) fail('HEADER_MISMATCH', `${f.name}: noActivity ${f.header?.noActivity} but ${parsed.rows.length} rows`);
    contents.set(f.kind, { file: f, ...parsed });
  }

  // 2. the key
  let key = null;
  let keyId = null;
  const pem = options.keyPem ?? manifest.publicKey?.pem ?? null;
  if (pem) {
    try {
      key = createPublicKey(pem);
      keyId = 'ed25519:' + sha256hex(key.export({ type: 'spki', format: 'der' })).slice(0, 16);
      if (manifest.publicKey?.keyId && manifest.publicKey.keyId !== keyId) fail('KEY_ID_MISMATCH', `the public key used has id ${keyId}, the manifest names ${manifest.publicKey.keyId}`);
    } catch (err) {
      fail('KEY_UNREADABLE', `the public key cannot be read: ${err.message}`);
    }
  }

  // 3. the checkpoints
  const anchors = [...(manifest.anchors ?? [])].sort((a, b) => a.checkpoint.seq - b.checkpoint.seq);
  if (anchors.length > 0 && !key) fail('KEY_MISSING', 'the bundle has signed checkpoints but no public key to check them with (pass --key)');
  let previous = null;
  for (const a of anchors) {
    const c = a.checkpoint;
    const bytes = Buffer.from(canonicalJson(c), 'utf8');
    if (c.ledgerId !== manifest.ledgerId) fail('ANCHOR_OTHER_LEDGER', `checkpoint #${c.seq} belongs to ledger ${c.ledgerId}, the export to ${manifest.ledgerId}`);
    if (key) {
      if (a.keyId !== keyId || c.keyId !== keyId) fail('ANCHOR_WRONG_KEY', `checkpoint #${c.seq} is signed by ${a.keyId}, not by ${keyId}`);
      else if (!verifySignature(null, bytes, key, Buffer.from(a.signature, 'base64'))) fail('ANCHOR_SIGNATURE_INVALID', `checkpoint #${c.seq}: the Ed25519 signature does not verify (forged or altered)`);
    }
    const leaves = c.streams.map((s) => Buffer.from(canonicalJson({ headHash: s.headHash, streamId: s.streamId, version: s.version }), 'utf8'));
    if (merkleRoot(leaves) !== c.merkleRoot) fail('ANCHOR_MERKLE_MISMATCH', `checkpoint #${c.seq}: the Merkle root does not match its streams`);
    if (previous) {
      if (c.seq !== previous.c.seq + 1) fail('ANCHOR_CHAIN_BROKEN', `checkpoint #${previous.c.seq + 1} is missing between #${previous.c.seq} and #${c.seq}`);
      else if (c.previousAnchorHash !== previous.hash) fail('ANCHOR_CHAIN_BROKEN', `checkpoint #${c.seq}: previousAnchorHash is not the hash of #${previous.c.seq}`);
      if (BigInt(c.globalPosition) < BigInt(previous.c.globalPosition)) fail('ANCHOR_CHAIN_BROKEN', `checkpoint #${c.seq}: its position goes back`);
    } else if (c.seq === 1 && c.previousAnchorHash !== ZEROS) {
      fail('ANCHOR_CHAIN_BROKEN', 'checkpoint #1 does not start the chain (previousAnchorHash is not 64 zeros)');
    }
    previous = { c, hash: sha256hex(bytes) };
  }

  // 4. the events: hashes, chains, positions
  const ev = contents.get('events');
  const streams = new Map();
  const eventsById = new Map();
  let eventsChecked = 0;
  const positions = manifest.positions ?? {};
  if (ev) {
    if (ev.positions && canonicalJson(ev.positions) !== canonicalJson(positions)) fail('HEADER_MISMATCH', `${ev.file.name}: its positions differ from the manifest's`);
    const lo = positions.first === null || positions.first === undefined ? null : BigInt(positions.first);
    const hi = positions.through === null || positions.through === undefined ? null : BigInt(positions.through);
    let lastPos = null;
    for (const { line, value } of ev.rows) {
      let e;
      try {
        e = ev.file.format === 'csv' ? eventOfCsv(value) : value;
      } catch (err) {
        fail('PARSE_ERROR', `${ev.file.name} line ${line}: ${err.message}`);
        continue;
      }
      const where = `event ${e.eventId} (stream ${e.streamId} version ${e.streamVersion}, position ${e.globalPosition}, ${ev.file.name} line ${line})`;
      eventsChecked++;
      let pos;
      try {
        pos = BigInt(e.globalPosition);
      } catch {
        fail('PARSE_ERROR', `${where}: globalPosition is not an integer`);
        continue;
      }
      if (lastPos !== null && pos <= lastPos) fail('EVENT_ORDER', `${where}: not after position ${lastPos}`);
      if ((lo !== null && pos < lo) || (hi !== null && pos > hi)) fail('EVENT_OUT_OF_RANGE', `${where}: outside the exported positions ${positions.first}..${positions.through}`);
      lastPos = pos;
      let recomputed;
      try {
        recomputed = eventHash(e);
      } catch (err) {
        fail('EVENT_UNREADABLE', `${where}: ${err.message}`);
        continue;
      }
      if (recomputed !== e.hash) fail('EVENT_HASH_MISMATCH', `${where}: its canonical bytes hash to ${recomputed}, the event says ${e.hash} (the event was altered)`);
      eventsById.set(e.eventId, e);
      let s = streams.get(e.streamId);
      if (!s) {
        s = { firstVersion: e.streamVersion, firstPrevHash: e.prevHash, lastVersion: e.streamVersion - 1, lastHash: null, hashes: new Map(), maxSigned: null };
        streams.set(e.streamId, s);
        if (e.streamVersion === 1 && e.prevHash !== ZEROS) fail('CHAIN_BROKEN', `${where}: the first event of a stream must have 64 zeros as prevHash`);
      } else {
        if (e.streamVersion !== s.lastVersion + 1) fail('STREAM_GAP', `${where}: expected version ${s.lastVersion + 1} of ${e.streamId} (versions ${s.lastVersion + 1}..${e.streamVersion - 1} are missing)`);
        if (e.prevHash !== s.lastHash) fail('CHAIN_BROKEN', `${where}: prevHash ${e.prevHash} is not the hash of the stream's previous event (${s.lastHash})`);
      }
      s.lastVersion = e.streamVersion;
      s.lastHash = recomputed;
      s.hashes.set(e.streamVersion, { hash: recomputed, eventId: e.eventId });
    }
  } else if ((manifest.files ?? []).some((f) => f.kind === 'events')) {
    notes.push('the events file could not be read');
  }

  // 5. the checkpoints against the events
  let headsChecked = 0;
  let beyond = 0;
  if (ev && positions.first !== null && positions.first !== undefined) {
    const first = BigInt(positions.first);
    const through = BigInt(positions.through);
    anchors.forEach((a, i) => {
      const c = a.checkpoint;
      const gp = BigInt(c.globalPosition);
      if (gp > through) {
        beyond++;
        return;
      }
      const prevGp = i > 0 ? BigInt(anchors[i - 1].checkpoint.globalPosition) : null;
      for (const h of c.streams) {
        const s = streams.get(h.streamId);
        if (!s) {
          if (prevGp !== null && prevGp + 1n >= first && gp >= first) fail('ANCHORED_STREAM_MISSING', `checkpoint #${c.seq} signs stream ${h.streamId} at version ${h.version}, which the export lacks`);
          continue;
        }
        if (h.version >= s.firstVersion && h.version <= s.lastVersion) {
          headsChecked++;
          const r = s.hashes.get(h.version);
          if (r.hash !== h.headHash) {
            const after = s.maxSigned ?? s.firstVersion - 1;
            fail(
              'HEAD_MISMATCH',
              `stream ${h.streamId} version ${h.version} (event ${r.eventId}): the chain recomputed from the export gives ${r.hash}, checkpoint #${c.seq} signed ${h.headHash}: an event among versions ${after + 1}..${h.version} was altered, removed or inserted`,
            );
          }
          if (s.maxSigned === null || h.version > s.maxSigned) s.maxSigned = h.version;
        } else if (h.version === s.firstVersion - 1) {
          headsChecked++;
          if (s.firstPrevHash !== h.headHash)
            fail('HEAD_MISMATCH', `stream ${h.streamId}: its first exported event (version ${s.firstVersion}) chains onto ${s.firstPrevHash}, checkpoint #${c.seq} signed ${h.headHash} for version ${h.version}`);
        } else if (h.version > s.lastVersion && gp >= first) {
          fail('ANCHORED_VERSION_MISSING', `stream ${h.streamId}: checkpoint #${c.seq} signed version ${h.version}, the export ends at version ${s.lastVersion} (events were removed from its end)`);
        }
      }
    });
    let unanchored = 0;
    let firstUnanchored = null;
    for (const [streamId, s] of streams) {
      const from = s.maxSigned === null ? s.firstVersion : s.maxSigned + 1;
      for (let v = from; v <= s.lastVersion; v++) {
        unanchored++;
        firstUnanchored ??= `stream ${streamId} version ${v} (event ${s.hashes.get(v)?.eventId})`;
      }
    }
    if (unanchored > 0) {
      const msg = `${unanchored} exported events lie under no signed checkpoint of the bundle (first: ${firstUnanchored}): their chain is checked, their authenticity is not`;
      if (options.allowUnanchored) notes.push(msg);
      else fail('NOT_ANCHORED', msg);
    }
  }

  // 6. settlements and decisions name events of the export
  for (const [kind, types] of [
    ['settlements', ['BetSettled', 'BetResettled', 'BetRefunded']],
    ['decisions', null],
  ]) {
    const f = contents.get(kind);
    if (!f || !ev) continue;
    for (const { line, value } of f.rows) {
      const e = eventsById.get(value.eventId);
      if (!e) fail('CROSS_REFERENCE', `${f.file.name} line ${line}: event ${value.eventId} is not in the events export`);
      else if (types ? !types.includes(e.type) : e.type !== value.type) fail('CROSS_REFERENCE', `${f.file.name} line ${line}: event ${value.eventId} is a ${e.type}`);
    }
  }

  return {
    failures,
    notes,
    summary: {
      ledgerId: manifest.ledgerId,
      period: manifest.header?.period,
      keyId,
      files: (manifest.files ?? []).map((f) => `${f.name} (${f.rows} rows)`),
      eventsChecked,
      streams: streams.size,
      checkpoints: anchors.length,
      headsChecked,
      checkpointsBeyondExport: beyond,
    },
  };
}

function main(argv) {
  const args = argv.slice(2);
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--key');
  const keyAt = args.indexOf('--key');
  if (!dir) {
    console.error('usage: node verify.mjs <bundle-dir> [--key anchor-public.pem] [--allow-unanchored] [--quiet]');
    return 2;
  }
  let result;
  try {
    result = verifyBundle(dir, { keyPem: keyAt >= 0 ? readFileSync(args[keyAt + 1], 'utf8') : undefined, allowUnanchored: args.includes('--allow-unanchored') });
  } catch (err) {
    console.error(`CANNOT VERIFY: ${err.message}`);
    return 2;
  }
  const s = result.summary;
  if (!args.includes('--quiet')) {
    console.log(`ledger ${s.ledgerId}, period ${s.period?.from} .. ${s.period?.to}`);
    console.log(`files: ${s.files.join(', ')}`);
    console.log(`public key ${s.keyId ?? '(none)'}: compare it with the key id the operator published`);
    console.log(`events checked ${s.eventsChecked} in ${s.streams} streams; checkpoints ${s.checkpoints} (${s.headsChecked} signed heads checked against the export, ${s.checkpointsBeyondExport} beyond it)`);
    for (const n of result.notes) console.log(`NOTE: ${n}`);
  }
  if (result.failures.length === 0) {
    console.log('OK: the export verifies');
    return 0;
  }
  for (const f of result.failures.slice(0, 50)) console.log(`FAIL ${f.code}: ${f.message}`);
  if (result.failures.length > 50) console.log(`… and ${result.failures.length - 50} more`);
  console.log(`FIRST FAILURE: ${result.failures[0].code}: ${result.failures[0].message}`);
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(main(process.argv));
