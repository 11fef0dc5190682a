import { createHash, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { EARLY_CLOSE_TTL_MS, isGamingDayStreamOf, type EarlyCloseApproval, type GamingDayClosedData, type GamingDayCloseRequestedData } from '@ledger/events';

/**
 * Whether a gaming-day close is genuine (docs/reports.md §2, docs/guarantees.md §8): the check the API
 * makes on every read of a close and `npm run -s verify` makes over every close. A close is its
 * `GamingDayClosed` event (hash-chained, anchored, on Kafka) plus the report bytes kept beside it; it
 * is genuine only when all of these hold:
 *
 * - the event is in the stream of its own day (`gaming-day-<day>`, or `gaming-day-<day>:<scope>`);
 * - the bytes are there and their SHA-256 is the event's `reportSha256`;
 * - the event's `keyId` names a known public key and `signature` verifies over the bytes with it;
 * - the bytes name the event's day, table set, position, trigger, early-close approval and (layout 2
 *   on) the day's device clock skew per table (a genuine
 *   report and signature copied to another day or table set, or under another trigger or approval, is a
 *   replay, not a close);
 * - in its day's stream ({@link checkDayStream}): no earlier genuine close of that stream covers one of
 *   its tables (a genuine close appended again is a duplicate), its trigger matches its actor's role, and
 *   an early close carries out a request of that stream recorded before it by the requester named,
 *   approved by a different pit manager (the close's actor) within the request's time.
 *
 * Pure: no I/O; the caller reads the event, the bytes and the keys.
 */

/** Why a close is not genuine (a code in a field, never in a message). */
export type CloseProblem = 'WRONG_STREAM' | 'REPORT_MISSING' | 'SHA_MISMATCH' | 'KEY_UNKNOWN' | 'BAD_SIGNATURE' | 'REPLAYED' | 'MALFORMED' | 'DUPLICATE' | 'WRONG_ACTOR' | 'EARLY_NOT_APPROVED';

/** The result of {@link checkGamingDayClose}: `problem` null when the close is genuine. */
export interface CloseCheck {
  readonly problem: CloseProblem | null;
  /** A short human explanation (≤ 200 characters), empty when genuine. */
  readonly detail: string;
}

/** A close as the check reads it: its event's stream and data, and the stored report bytes (null when none is stored). */
export interface CloseUnderCheck {
  readonly streamId: string;
  readonly data: GamingDayClosedData;
  /** The report's canonical bytes as stored (UTF-8 text), or null. */
  readonly bytes: string | null;
}

/** Lower-case hex SHA-256 of `text` as UTF-8. */
export function sha256OfText(text: string): string {
  return createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
}

const ok: CloseCheck = { problem: null, detail: '' };
const bad = (problem: CloseProblem, detail: string): CloseCheck => ({ problem, detail: detail.slice(0, 200) });

/**
 * Checks one close (see the file's comment for the rules).
 * @param keys public keys by key id (`publicKeyId`, keys.ts / checkpoint.ts)
 * @returns `{ problem: null }` for a genuine close, else the first problem found
 */
export function checkGamingDayClose(close: CloseUnderCheck, keys: ReadonlyMap<string, KeyObject>): CloseCheck {
  const d = close.data;
  if (typeof d?.gamingDay !== 'string' || !Array.isArray(d.tableIds) || typeof d.throughPosition !== 'string') return bad('MALFORMED', 'the event lacks gamingDay, tableIds or throughPosition');
  if (!isGamingDayStreamOf(close.streamId, d.gamingDay)) return bad('WRONG_STREAM', `a close of ${d.gamingDay} in stream ${close.streamId}`);
  if (close.bytes === null) return bad('REPORT_MISSING', 'no report bytes are stored for this close');
  if (sha256OfText(close.bytes) !== d.reportSha256) return bad('SHA_MISMATCH', 'the stored report bytes do not hash to the event’s reportSha256');
  const key = keys.get(d.keyId);
  if (!key) return bad('KEY_UNKNOWN', `no public key ${d.keyId}`);
  if (!verifySignature(close.bytes, d.signature, key)) return bad('BAD_SIGNATURE', 'the signature does not verify over the report bytes');
  let body: { gamingDay?: unknown; tableIds?: unknown; throughPosition?: unknown; trigger?: unknown; early?: unknown; clockSkew?: unknown };
  try {
    body = JSON.parse(close.bytes) as typeof body;
  } catch {
    return bad('MALFORMED', 'the report bytes are not JSON');
  }
  const sameTables = Array.isArray(body.tableIds) && body.tableIds.length === d.tableIds.length && body.tableIds.every((t, i) => t === d.tableIds[i]);
  if (body.gamingDay !== d.gamingDay || !sameTables || body.throughPosition !== d.throughPosition) {
    return bad('REPLAYED', `the signed report is of ${String(body.gamingDay)} for ${JSON.stringify(body.tableIds)} at ${String(body.throughPosition)}, not this close's`);
  }
  if (body.trigger !== d.trigger || !sameEarly(body.early, d.early ?? null)) {
    return bad('REPLAYED', `the signed report is a ${String(body.trigger)} close${body.early ? ' (early)' : ''}, not this close's ${String(d.trigger)}${d.early ? ' (early)' : ''} one`);
  }
  // layout 2 on: the event states the clock skew the report signs (layout 1: neither has it)
  if (canonicalize(body.clockSkew ?? null) !== canonicalize(d.clockSkew ?? null)) {
    return bad('REPLAYED', 'the clock skew the event states is not the one its signed report states');
  }
  return ok;
}

function sameEarly(signed: unknown, event: EarlyCloseApproval | null): boolean {
  if (signed === null || signed === undefined || event === null) return (signed ?? null) === event;
  const s = signed as Record<string, unknown>;
  return s.requestId === event.requestId && s.reason === event.reason && s.requestedBy === event.requestedBy && s.approvedBy === event.approvedBy;
}

/** One event of a gaming day's stream as {@link checkDayStream} reads it (the envelope's actor and ledger time). */
export interface DayStreamEvent {
  readonly eventId: string;
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
  readonly actor: { readonly id: string; readonly role: string };
  /** ISO-8601 ledger time. */
  readonly recordedAt: string;
}

/**
 * Checks every close of one gaming day's stream, in stream order: each by itself
 * ({@link checkGamingDayClose}), then against the stream before it — a close covering a table an
 * earlier genuine close of the stream covers is a `DUPLICATE` (a genuine close appended again); a
 * `MANAGER` close must be a pit manager's and an `AUTOMATIC` one the system's (`WRONG_ACTOR`); an early
 * close must carry out a request of the stream recorded before it, whose envelope actor (a pit manager)
 * is the requester named in it and in the close, with the same reason and (when the request named one)
 * table set, approved by the close's actor, another pit manager, no later than the request's
 * `expiresAt` nor {@link EARLY_CLOSE_TTL_MS} after the request was recorded (`EARLY_NOT_APPROVED`).
 * Pure.
 * @param events the stream's events in stream order (requests and closes; others are ignored)
 * @param bytesOf the stored report bytes of a close event, or null
 * @param keys public keys by key id
 * @returns the check of each close event, by event id
 */
export function checkDayStream(events: readonly DayStreamEvent[], bytesOf: (eventId: string) => string | null, keys: ReadonlyMap<string, KeyObject>): Map<string, CloseCheck> {
  const out = new Map<string, CloseCheck>();
  const closed = new Set<string>();
  const requests = new Map<string, DayStreamEvent>();
  for (const e of events) {
    if (e.type === 'GamingDayCloseRequested') {
      const id = (e.data as GamingDayCloseRequestedData | null)?.requestId;
      if (typeof id === 'string' && !requests.has(id)) requests.set(id, e);
      continue;
    }
    if (e.type !== 'GamingDayClosed') continue;
    const data = e.data as GamingDayClosedData;
    let c = checkGamingDayClose({ streamId: e.streamId, data, bytes: bytesOf(e.eventId) }, keys);
    if (c.problem === null) c = checkInStream(e, data, { closed, requests });
    if (c.problem === null) for (const t of data.tableIds) closed.add(t);
    out.set(e.eventId, c);
  }
  return out;
}

function checkInStream(e: DayStreamEvent, d: GamingDayClosedData, before: { closed: ReadonlySet<string>; requests: ReadonlyMap<string, DayStreamEvent> }): CloseCheck {
  const again = d.tableIds.filter((t) => before.closed.has(t));
  if (again.length > 0) return bad('DUPLICATE', `table(s) ${again.join(', ')} of ${d.gamingDay} were closed by an earlier close of the stream`);
  const role = d.trigger === 'AUTOMATIC' ? 'system' : 'pit-manager';
  if (e.actor.role !== role) return bad('WRONG_ACTOR', `a ${d.trigger} close recorded by ${e.actor.id} (${e.actor.role})`);
  if (!d.early) return ok;
  const a = d.early;
  const request = before.requests.get(a.requestId);
  if (!request) return bad('EARLY_NOT_APPROVED', `no request ${a.requestId} precedes this early close in its stream`);
  const r = request.data as GamingDayCloseRequestedData;
  const problems: string[] = [];
  if (request.actor.role !== 'pit-manager' || request.actor.id !== r.requestedBy || r.requestedBy !== a.requestedBy) problems.push('the request was not made by the requester it names');
  if (r.reason !== a.reason || r.gamingDay !== d.gamingDay) problems.push('the close does not carry the request’s reason and day');
  if (r.tableIds !== null && (r.tableIds.length !== d.tableIds.length || r.tableIds.some((t, i) => t !== d.tableIds[i]))) problems.push('the close does not carry the request’s tables');
  if (d.trigger !== 'MANAGER' || e.actor.id !== a.approvedBy || a.approvedBy === a.requestedBy) problems.push('the approver is not a second pit manager who recorded the close');
  const deadline = Math.min(Date.parse(r.expiresAt), Date.parse(request.recordedAt) + EARLY_CLOSE_TTL_MS);
  if (!(Date.parse(e.recordedAt) <= deadline)) problems.push('the approval came after the request expired');
  return problems.length === 0 ? ok : bad('EARLY_NOT_APPROVED', problems.join('; '));
}

function verifySignature(text: string, signature: string, key: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
