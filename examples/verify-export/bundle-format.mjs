// bundle-format.mjs: the formats an export bundle is made of (docs/reports.md §5, docs/anchors.md):
// RFC 8785 canonical JSON, the event hash, the RFC 6962 Merkle root, RFC 4180 CSV, the JSONL and
// CSV export files, key ids. Node's built-ins only (node:crypto). Part of verify.mjs.
import { createHash } from 'node:crypto';

/** 64 zeros: the `prevHash` of a stream's first event and the `previousAnchorHash` of checkpoint #1. */
export const ZEROS = '0'.repeat(64);

/** Lower-case hex SHA-256 of a Buffer or a UTF-8 string. */
export const sha256hex = (data) => createHash('sha256').update(data).digest('hex');

/** A named failure: `code` is the machine-readable name (examples/verify-export/README.md), `message` the explanation. */
export class Failure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

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

/** The anchor hash of a checkpoint: SHA-256 of its canonical JSON (the next one's `previousAnchorHash`, the manifest's digest). */
export const checkpointHash = (c) => sha256hex(Buffer.from(canonicalJson(c), 'utf8'));

/** The id of an Ed25519 public key (a `KeyObject`): `ed25519:` + the first 16 hex of SHA-256 over its DER SubjectPublicKeyInfo. */
export const keyIdOf = (key) => 'ed25519:' + sha256hex(key.export({ type: 'spki', format: 'der' })).slice(0, 16);

/** RFC 4180 CSV (comma, double quotes, "" inside quotes, LF or CRLF) → array of records (arrays of strings). */
export function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  let started = false;
  const endField = () => {
    record.push(field);
    field = '';
    started = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '' && !started) {
      quoted = true;
      started = true;
    } else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') continue;
    else if (c === '\n') {
      endField();
      records.push(record);
      record = [];
    } else {
      field += c;
      started = true;
    }
  }
  if (quoted) throw new Error('the CSV ends inside a quoted field');
  if (field !== '' || started || record.length > 0) {
    endField();
    records.push(record);
  }
  return records;
}

/**
 * The value of a CSV field: the ledger marks a field that starts with = + - @, a tab, a CR or ' with
 * one leading ' (not a plain number such as -150; spreadsheet safety, docs/reports.md), which a reader
 * drops to have the value back.
 */
const csvValue = (field) => (field.startsWith("'") ? field.slice(1) : field);

/**
 * The rows of an export file. JSONL: `{ head, rows: [{ line, value }], trailer }` — `head` the first
 * line (`{"header":…,"positions":…}`), `trailer` the last (`{"trailer":{"rows":N}}`) or null when the
 * file lacks it. CSV: `{ head: null, columns, rows, trailer: null }`, each row an object by column.
 * @throws Failure PARSE_ERROR
 */
export function readRows(text, format, name) {
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
    if (!head || typeof head !== 'object' || typeof head.header !== 'object') throw new Failure('PARSE_ERROR', `${name}: the first line is not {"header":…}`);
    const last = parsed[parsed.length - 1];
    const trailer = parsed.length > 1 && last && typeof last.trailer === 'object' && Object.keys(last).length === 1 ? last.trailer : null;
    const rows = parsed.slice(1, trailer ? -1 : undefined).map((value, i) => ({ line: i + 2, value }));
    return { head, columns: null, rows, trailer };
  }
  if (format !== 'csv') throw new Failure('PARSE_ERROR', `${name}: format ${format} is neither jsonl nor csv`);
  const records = parseCsv(text);
  const columns = records[0] ?? [];
  const rows = records.slice(1).map((r, i) => {
    if (r.length !== columns.length) throw new Failure('PARSE_ERROR', `${name} record ${i + 2} has ${r.length} fields, the header ${columns.length}`);
    return { line: i + 2, value: Object.fromEntries(columns.map((c, j) => [c, csvValue(r[j])])) };
  });
  return { head: null, columns, rows, trailer: null };
}

/** An event of a CSV record (the export writes `data` as its canonical JSON, numbers as decimal text). */
export function eventOfCsv(r) {
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

/** A value as the CSV export writes it (null as empty, objects as canonical JSON, the rest as text): JSONL and CSV rows compare alike. */
export function cellText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return canonicalJson(v);
  return String(v);
}
