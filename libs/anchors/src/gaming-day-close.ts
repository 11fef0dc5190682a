import { createHash, verify, type KeyObject } from 'node:crypto';
import { isGamingDayStreamOf, type GamingDayClosedData } from '@ledger/events';

/**
 * Whether a gaming-day close is genuine (docs/reports.md §2, docs/guarantees.md §8): the check the API
 * makes on every read of a close and `npm run -s verify` makes over every close. A close is its
 * `GamingDayClosed` event (hash-chained, anchored, on Kafka) plus the report bytes kept beside it; it
 * is genuine only when all of these hold:
 *
 * - the event is in the stream of its own day (`gaming-day-<day>`, or `gaming-day-<day>:<scope>`);
 * - the bytes are there and their SHA-256 is the event's `reportSha256`;
 * - the event's `keyId` names a known public key and `signature` verifies over the bytes with it;
 * - the bytes name the event's day, table set and position (a genuine report and signature copied to
 *   another day or table set is a replay, not a close).
 *
 * Pure: no I/O; the caller reads the event, the bytes and the keys.
 */

/** Why a close is not genuine (a code in a field, never in a message). */
export type CloseProblem = 'WRONG_STREAM' | 'REPORT_MISSING' | 'SHA_MISMATCH' | 'KEY_UNKNOWN' | 'BAD_SIGNATURE' | 'REPLAYED' | 'MALFORMED';

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
  let body: { gamingDay?: unknown; tableIds?: unknown; throughPosition?: unknown };
  try {
    body = JSON.parse(close.bytes) as typeof body;
  } catch {
    return bad('MALFORMED', 'the report bytes are not JSON');
  }
  const sameTables = Array.isArray(body.tableIds) && body.tableIds.length === d.tableIds.length && body.tableIds.every((t, i) => t === d.tableIds[i]);
  if (body.gamingDay !== d.gamingDay || !sameTables || body.throughPosition !== d.throughPosition) {
    return bad('REPLAYED', `the signed report is of ${String(body.gamingDay)} for ${JSON.stringify(body.tableIds)} at ${String(body.throughPosition)}, not this close's`);
  }
  return ok;
}

function verifySignature(text: string, signature: string, key: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
