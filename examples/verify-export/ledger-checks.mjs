// ledger-checks.mjs: the checkpoints, the events and the rows tied to them (docs/reports.md §5, docs/anchors.md).
// Node's built-ins only. Part of verify.mjs: each check records named failures on the context `c`
// (`c.fail(code, message)`) and what it cannot prove as limits (`c.limit(code, message)`), see verify.mjs.
import { verify as verifySignature } from 'node:crypto';
import { canonicalJson, cellText, checkpointHash, eventHash, eventOfCsv, merkleRoot, ZEROS } from './bundle-format.mjs';

/** Settlement event types and the `kind` of their settlements row. */
const SETTLEMENT_KINDS = { BetSettled: 'SETTLED', BetResettled: 'RESETTLED', BetRefunded: 'REFUNDED' };
/** The fields of a settlements row that repeat its event's `data` (compared where the event has them). */
const SETTLEMENT_FIELDS = ['betId', 'roundId', 'accountId', 'betCode', 'currency', 'stake', 'result', 'winnings', 'payout', 'net', 'dropped', 'paytableRef', 'revision', 'compensates'];
/** The event types of the decisions export (docs/reports.md §5). */
const DECISION_TYPES = ['RoundVoided', 'ResultCorrected', 'ShoeVoided', 'CommencementCorrected'];

const big = (v) => (v === null || v === undefined ? null : BigInt(v));

/**
 * The checkpoints: exactly those the signed manifest names, in its order (ANCHOR_SET_MISMATCH: one
 * dropped, added or substituted); each of this ledger (ANCHOR_OTHER_LEDGER), signed by a key given
 * (ANCHOR_WRONG_KEY, ANCHOR_SIGNATURE_INVALID), its Merkle root (ANCHOR_MERKLE_MISMATCH), one chain
 * (ANCHOR_CHAIN_BROKEN), and inside the export: the one before its first position, then none after its
 * last (ANCHOR_OUT_OF_RANGE). Kept in `c.anchors`.
 */
export function checkAnchors(c) {
  const all = Array.isArray(c.manifest.anchors) ? c.manifest.anchors : [];
  const listed = all.filter(wellFormed);
  if (listed.length !== all.length) c.fail('ANCHOR_SET_MISMATCH', `${all.length - listed.length} of the bundle's checkpoints are malformed (no seq, position or streams)`);
  const signed = c.signed.anchors;
  if (listed.length !== signed.length) c.fail('ANCHOR_SET_MISMATCH', `the bundle carries ${listed.length} checkpoints, the signed manifest names ${signed.length}`);
  listed.forEach((a, i) => {
    const d = signed[i];
    if (!d || d.seq !== a.checkpoint.seq || d.hash !== checkpointHash(a.checkpoint))
      c.fail('ANCHOR_SET_MISMATCH', `checkpoint #${a.checkpoint.seq} (${i + 1}th of the bundle) is not the one the signed manifest names there (${d ? `#${d.seq}, ${d.hash}` : 'none'}): checkpoints dropped, added or substituted`);
  });
  const p = c.signed.positions ?? {};
  let previous = null;
  listed.forEach((a, i) => {
    const cp = a.checkpoint;
    if (cp.ledgerId !== c.signed.ledgerId) c.fail('ANCHOR_OTHER_LEDGER', `checkpoint #${cp.seq} belongs to ledger ${cp.ledgerId}, the export to ${c.signed.ledgerId}`);
    const key = c.keys.get(a.keyId);
    if (!key || a.keyId !== cp.keyId) c.fail('ANCHOR_WRONG_KEY', `checkpoint #${cp.seq} is signed by ${a.keyId}, not by a key you gave`);
    else if (!signatureHolds(cp, a.signature, key)) c.fail('ANCHOR_SIGNATURE_INVALID', `checkpoint #${cp.seq}: the Ed25519 signature does not verify (forged or altered)`);
    const leaves = cp.streams.map((s) => Buffer.from(canonicalJson({ headHash: s.headHash, streamId: s.streamId, version: s.version }), 'utf8'));
    if (merkleRoot(leaves) !== cp.merkleRoot) c.fail('ANCHOR_MERKLE_MISMATCH', `checkpoint #${cp.seq}: the Merkle root does not match its streams`);
    if (previous) {
      if (cp.seq !== previous.cp.seq + 1) c.fail('ANCHOR_CHAIN_BROKEN', `checkpoint #${previous.cp.seq + 1} is missing between #${previous.cp.seq} and #${cp.seq}`);
      else if (cp.previousAnchorHash !== previous.hash) c.fail('ANCHOR_CHAIN_BROKEN', `checkpoint #${cp.seq}: previousAnchorHash is not the hash of #${previous.cp.seq}`);
    } else if (cp.seq === 1 && cp.previousAnchorHash !== ZEROS) c.fail('ANCHOR_CHAIN_BROKEN', 'checkpoint #1 does not start the chain (previousAnchorHash is not 64 zeros)');
    const gp = BigInt(cp.globalPosition);
    if (p.first === null || p.through === null || gp > BigInt(p.through) || (gp < BigInt(p.first) && i > 0))
      c.fail('ANCHOR_OUT_OF_RANGE', `checkpoint #${cp.seq} at position ${cp.globalPosition} is neither the last before the export (${p.first}) nor inside it (..${p.through})`);
    previous = { cp, hash: checkpointHash(cp) };
  });
  c.anchors = listed;
  c.summary.checkpoints = listed.length;
}

/** Whether a signed anchor has the fields the checks read: a checkpoint with an integer seq, a decimal position, a list of streams. */
function wellFormed(a) {
  const cp = a?.checkpoint;
  return !!cp && typeof cp === 'object' && Number.isSafeInteger(cp.seq) && /^(0|[1-9][0-9]*)$/.test(String(cp.globalPosition)) && Array.isArray(cp.streams) && cp.streams.every((s) => s && typeof s === 'object');
}

function signatureHolds(checkpoint, signature, key) {
  try {
    const sig = Buffer.from(String(signature), 'base64');
    return sig.length === 64 && verifySignature(null, Buffer.from(canonicalJson(checkpoint), 'utf8'), key, sig);
  } catch {
    return false;
  }
}

/** The events of the events file as envelopes, each with its line; PARSE_ERROR for a row that is none. */
function eventsOf(c, ev) {
  const out = [];
  for (const { line, value } of ev.rows) {
    try {
      const e = ev.file.format === 'csv' ? eventOfCsv(value) : value;
      out.push({ e, line, pos: BigInt(e.globalPosition), where: `event ${e.eventId} (stream ${e.streamId} version ${e.streamVersion}, position ${e.globalPosition}, ${ev.file.name} line ${line})` });
    } catch (err) {
      c.fail('PARSE_ERROR', `${ev.file.name} line ${line}: not an event (${err.message})`);
    }
  }
  return out;
}

/**
 * The events: positions ascending and inside `first..through` (EVENT_ORDER, EVENT_OUT_OF_RANGE), then
 * each event's hash recomputed from its bytes (EVENT_HASH_MISMATCH), each stream's versions without a
 * gap (STREAM_GAP) and its `prevHash` chain (CHAIN_BROKEN). Fills `c.events` (streams, by id, list).
 */
export function checkEvents(c) {
  const ev = c.files.get('events');
  if (!ev) return;
  const list = eventsOf(c, ev);
  const p = c.signed.positions ?? {};
  const [lo, hi] = [big(p.first), big(p.through)];
  let last = null;
  for (const x of list) {
    if (last !== null && x.pos <= last) c.fail('EVENT_ORDER', `${x.where}: not after position ${last}`);
    if (lo === null || hi === null || x.pos < lo || x.pos > hi) c.fail('EVENT_OUT_OF_RANGE', `${x.where}: outside the exported positions ${p.first}..${p.through}`);
    last = x.pos;
  }
  for (const { e, where } of list) {
    let recomputed;
    try {
      recomputed = eventHash(e);
    } catch (err) {
      c.fail('EVENT_UNREADABLE', `${where}: ${err.message}`);
      continue;
    }
    if (recomputed !== e.hash) c.fail('EVENT_HASH_MISMATCH', `${where}: its canonical bytes hash to ${recomputed}, the event says ${e.hash} (the event was altered)`);
    c.events.byId.set(e.eventId, e);
    let s = c.events.streams.get(e.streamId);
    if (!s) {
      s = { firstVersion: e.streamVersion, firstPrevHash: e.prevHash, lastVersion: e.streamVersion - 1, lastHash: null, hashes: new Map(), maxSigned: null };
      c.events.streams.set(e.streamId, s);
      if (e.streamVersion === 1 && e.prevHash !== ZEROS) c.fail('CHAIN_BROKEN', `${where}: the first event of a stream must have 64 zeros as prevHash`);
    } else {
      if (e.streamVersion !== s.lastVersion + 1) c.fail('STREAM_GAP', `${where}: expected version ${s.lastVersion + 1} of ${e.streamId} (versions ${s.lastVersion + 1}..${e.streamVersion - 1} are missing)`);
      if (e.prevHash !== s.lastHash) c.fail('CHAIN_BROKEN', `${where}: prevHash ${e.prevHash} is not the hash of the stream's previous event (${s.lastHash})`);
    }
    s.lastVersion = e.streamVersion;
    s.lastHash = recomputed;
    s.hashes.set(e.streamVersion, { hash: recomputed, eventId: e.eventId });
    c.events.list.push(e);
  }
  c.summary.eventsChecked = list.length;
  c.summary.streams = c.events.streams.size;
}

/**
 * One signed head against the export (see {@link checkHeads}). @returns whether it was compared
 */
function checkHead(c, { cp, h, s, inside }) {
  if (h.version >= s.firstVersion && h.version <= s.lastVersion) {
    const r = s.hashes.get(h.version);
    if (r.hash !== h.headHash) {
      const after = s.maxSigned ?? s.firstVersion - 1;
      c.fail(
        'HEAD_MISMATCH',
        `stream ${h.streamId} version ${h.version} (event ${r.eventId}): the chain recomputed from the export gives ${r.hash}, checkpoint #${cp.seq} signed ${h.headHash}: an event among versions ${after + 1}..${h.version} was altered, removed or inserted`,
      );
    }
    if (s.maxSigned === null || h.version > s.maxSigned) s.maxSigned = h.version;
    return true;
  }
  if (h.version === s.firstVersion - 1) {
    if (s.firstPrevHash !== h.headHash)
      c.fail('HEAD_MISMATCH', `stream ${h.streamId}: its first exported event (version ${s.firstVersion}) chains onto ${s.firstPrevHash}, checkpoint #${cp.seq} signed ${h.headHash} for version ${h.version}`);
    return true;
  }
  if (h.version > s.lastVersion) c.fail('ANCHORED_VERSION_MISSING', `stream ${h.streamId}: checkpoint #${cp.seq} signed version ${h.version}, the export ends at version ${s.lastVersion} (events were removed from its end)`);
  else if (inside)
    c.fail(
      'STREAM_START_MISSING',
      `stream ${h.streamId}: checkpoint #${cp.seq}, inside the export, signed version ${h.version}, the export starts at version ${s.firstVersion}: versions ${h.version + 1}..${s.firstVersion - 1} are missing`,
    );
  return false;
}

/**
 * Every head a checkpoint signs against the export: equal to the chain recomputed at that version, or
 * the `prevHash` of the stream's first exported event for the version before it (HEAD_MISMATCH);
 * never after the export's end of the stream (ANCHORED_VERSION_MISSING) nor, for a checkpoint inside
 * the export, before its start (STREAM_START_MISSING); every stream a checkpoint wholly inside the
 * export signs is in it (ANCHORED_STREAM_MISSING); every exported event under a signed head
 * (NOT_ANCHORED, a limit with --allow-unanchored). What the first checkpoint inside cannot settle is a limit.
 */
export function checkHeads(c) {
  const p = c.signed.positions ?? {};
  if (!c.files.has('events') || p.first === null || p.through === null) return;
  const first = BigInt(p.first);
  let straddling = null;
  c.anchors.forEach((a, i) => {
    const cp = a.checkpoint;
    const gp = BigInt(cp.globalPosition);
    const prevGp = i > 0 ? BigInt(c.anchors[i - 1].checkpoint.globalPosition) : null;
    const whollyInside = prevGp !== null && prevGp + 1n >= first;
    for (const h of cp.streams) {
      // the head of an evidence chain (the access log, the wallet runs: docs/anchors.md "The evidence chains"), not a stream of events
      if (h.streamId.startsWith('evidence:')) continue;
      const s = c.events.streams.get(h.streamId);
      if (!s) {
        if (whollyInside) c.fail('ANCHORED_STREAM_MISSING', `checkpoint #${cp.seq} signs stream ${h.streamId} at version ${h.version}, which the export lacks`);
        else if (gp >= first) straddling = { seq: cp.seq, n: (straddling?.n ?? 0) + 1 };
        continue;
      }
      if (checkHead(c, { cp, h, s, inside: gp >= first })) c.summary.headsChecked++;
    }
  });
  const earlier = [...c.events.streams].filter(([, s]) => s.firstVersion > 1);
  if (earlier.length > 0)
    c.limit(
      'STREAMS_BEGIN_BEFORE',
      `${earlier.length} stream(s) begin before the export (first: ${earlier[0][0]} at version ${earlier[0][1].firstVersion}): a signed head proves their earlier events' chain, not their positions; that those events lie before the export's first position rests on the manifest's signature`,
    );
  if (straddling)
    c.limit(
      'STRADDLING_STREAMS',
      `${straddling.n} stream(s) signed by checkpoint #${straddling.seq}, which straddles the export's first position, are not in the export: their changes may all lie before it; that none lies inside rests on the manifest's signature (the API's count of the events file), not on a checkpoint`,
    );
  notAnchored(c);
}

function notAnchored(c) {
  let n = 0;
  let firstOne = null;
  for (const [streamId, s] of c.events.streams) {
    for (let v = s.maxSigned === null ? s.firstVersion : s.maxSigned + 1; v <= s.lastVersion; v++) {
      n++;
      firstOne ??= `stream ${streamId} version ${v} (event ${s.hashes.get(v)?.eventId})`;
    }
  }
  if (n === 0) return;
  const msg = `${n} exported events lie under no signed checkpoint of the bundle (first: ${firstOne}): their chain is checked and the manifest's signature covers them, no checkpoint does`;
  if (c.options.allowUnanchored) c.limit('NOT_ANCHORED', msg);
  else c.fail('NOT_ANCHORED', msg);
}

/**
 * The settlements and decisions files against the events: each row names an event of the export of
 * its type (CROSS_REFERENCE) and repeats it (ROW_MISMATCH: position, kind, and for a settlement every
 * field its event's data has: result, amounts, bet, account…); each settlement or decision event of
 * the period's positions has its row (ROW_MISSING).
 */
export function checkRows(c) {
  if (!c.files.has('events')) return;
  const p = c.signed.positions ?? {};
  const [lo, hi] = [big(p.first), big(p.periodLast)];
  for (const [kind, isOfKind] of [
    ['settlements', (e) => e.type in SETTLEMENT_KINDS],
    ['decisions', (e) => DECISION_TYPES.includes(e.type)],
  ]) {
    const f = c.files.get(kind);
    if (!f) continue;
    const seen = new Set();
    for (const { line, value } of f.rows) {
      const where = `${f.file.name} line ${line}`;
      const e = c.events.byId.get(value.eventId);
      seen.add(value.eventId);
      if (!e) c.fail('CROSS_REFERENCE', `${where}: event ${value.eventId} is not in the events export`);
      else if (!isOfKind(e) || (kind === 'decisions' && e.type !== value.type)) c.fail('CROSS_REFERENCE', `${where}: event ${value.eventId} is a ${e.type}`);
      else for (const d of rowDifferences(kind, value, e)) c.fail('ROW_MISMATCH', `${where} (event ${e.eventId}): ${d}`);
    }
    if (lo === null || hi === null) continue;
    for (const e of c.events.list) {
      const pos = BigInt(e.globalPosition);
      if (isOfKind(e) && pos >= lo && pos <= hi && !seen.has(e.eventId)) c.fail('ROW_MISSING', `${e.type} ${e.eventId} (position ${e.globalPosition}) of the period has no row in ${f.file.name}`);
    }
  }
}

/** How a settlements or decisions row differs from its event, as sentences (compared as the CSV writes values). */
function rowDifferences(kind, row, e) {
  const out = [];
  const same = (name, a, b) => cellText(a) === cellText(b) || out.push(`${name} is ${cellText(a)} in the row, ${cellText(b)} in the signed event`);
  same('globalPosition', row.globalPosition, e.globalPosition);
  if (kind === 'decisions') {
    same('tableId', row.tableId, e.tableId);
    same('actorId', row.actorId, e.actor?.id);
    return out;
  }
  same('kind', row.kind, SETTLEMENT_KINDS[e.type]);
  for (const k of SETTLEMENT_FIELDS) if (e.data && typeof e.data === 'object' && k in e.data) same(k, row[k], e.data[k]);
  return out;
}

/** What a passing check still does not prove, said each time it applies (examples/verify-export/README.md, "Limits"). */
export function standingLimits(c) {
  const rows = (kind) => c.files.get(kind)?.rows.length ?? 0;
  const logs = rows('rejections') + rows('access-log');
  if (logs > 0) c.limit('LOGS_NOT_ANCHORED', `the rejections and the access log (${logs} rows) are the database's own logs, outside the hash chain: the manifest's signature proves the API sent them so, no checkpoint proves them`);
  if (rows('settlements') > 0 || c.events.list.length > 0)
    c.limit(
      'RULES_NOT_REPLAYED',
      "every settlement row repeats its signed event, but no amount is recomputed from the cards and the paytable: that the events follow the rules of baccarat is the ledger's check when it records them (docs/domain-rules.md)",
    );
}
