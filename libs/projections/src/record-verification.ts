import { computeEventHash, eventDataProblem, RECORD_SIGNATURE_HEADER, verifyRecordSignature } from '@ledger/event-store';
import { GENESIS_HASH, type LedgerEvent } from '@ledger/events';
import { ProjectionError } from './errors';
import { EventRecord, parseEnvelope, recordHeader, upcastEnvelope } from './event-record';

/**
 * What the projector checks before it applies a record (docs/guarantees.md §8, docs/architecture.md
 * §7). Pure: the applier supplies the stream heads and the event ids already applied, and keeps
 * what a check refuses in quarantine (`quarantine.ts`), never in the projections.
 *
 * Per record, in this order:
 * 1. its signature: the `ledger-sig` header is the HMAC-SHA256 of its key and value under the
 *    shared `RECORD_SIGNING_KEY` (`@ledger/event-store` `record-signature.ts`), so only the relay
 *    can have written it: a forger who knows the hash function can build a valid chain for a new
 *    stream, but not sign it;
 * 2. its envelope: well-formed, of a type and schema version this build reads, and its data (once
 *    upcast) as its type's schema says (`eventDataProblem` of `@ledger/event-store`: a login that may
 *    append could store a raise with `cause: null`, which would stop a projection; `MALFORMED`);
 * 3. its hash: recomputed over the canonical bytes of the envelope as stored (before any upcast)
 *    with the event store's own function, equal to the `hash` it carries;
 * 4. its link ({@link checkLink}): same stream, version = the last applied version + 1 (version 1
 *    after none), `prevHash` = the hash of the event applied at that version (genesis for version 1).
 *
 * A byte-identical redelivery of an applied event (same event id, same hash) is a duplicate, skipped
 * before the link check, as always.
 */

/** Why a record was quarantined (the `reason` column of `quarantine`, the `dlq_reason` header). */
export const QUARANTINE_REASONS = [
  /** No `ledger-sig` header, or one that does not verify over the record's key and value. */
  'SIGNATURE_INVALID',
  /** Not a well-formed ledger event envelope (not JSON, a field missing or of the wrong type), or data its type's schema refuses. */
  'MALFORMED',
  /** A type or schema version this projector cannot read (deploy the newer projector, then replay). */
  'UNKNOWN_TYPE',
  /** The hash it carries is not the hash of its canonical bytes. */
  'HASH_MISMATCH',
  /** An event id already applied with another hash: a different event reusing an applied event's id. */
  'EVENT_ID_CONFLICT',
  /** A version of its stream already applied, by another event. */
  'VERSION_CONFLICT',
  /** Its version skips one or more versions of its stream. */
  'VERSION_GAP',
  /** Its `prevHash` is not the hash of the event applied before it. */
  'PREV_HASH_MISMATCH',
  /**
   * Its version skips versions of its stream, and an authentic (signed) record of the stream in
   * between is in quarantine: the stream applies nothing more until a record links to its head.
   */
  'PREDECESSOR_QUARANTINED',
] as const;

/** One of {@link QUARANTINE_REASONS}. */
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/** The last applied event of a stream: its version (1-based) and hash (`stream_heads`). */
export interface StreamHead {
  readonly version: number;
  readonly hash: string;
}

/** Why a record is refused, with what could be read of it (untrusted when `authentic` is false). */
export interface Refusal {
  readonly reason: QuarantineReason;
  /** One line for people: what was expected and what was found. */
  readonly detail: string;
  /** Whether the record's signature verified (it then came from the relay). */
  readonly authentic: boolean;
  readonly eventId?: string;
  readonly streamId?: string;
  readonly streamVersion?: number;
}

/** A record that passed checks 1–3: its event (upcast) and the stored envelope's hash and link. */
export interface AuthenticRecord {
  readonly ok: true;
  readonly event: LedgerEvent;
}

/** A record that failed checks 1–3. */
export interface RefusedRecord {
  readonly ok: false;
  readonly refusal: Refusal;
}

/**
 * Checks a record's signature, envelope and hash (checks 1–3 of the file comment). Never throws.
 * @param r the record as fetched (key, value, headers as on the topic)
 * @param signingKey the projector's `RECORD_SIGNING_KEY`
 */
export function checkRecord(r: EventRecord, signingKey: string): AuthenticRecord | RefusedRecord {
  const signature = recordHeader(r, RECORD_SIGNATURE_HEADER);
  if (!verifyRecordSignature(signingKey, r.key, r.value, signature)) {
    const detail = signature === undefined ? `no ${RECORD_SIGNATURE_HEADER} header` : `${RECORD_SIGNATURE_HEADER} does not verify over the record's key and value`;
    return refused({ reason: 'SIGNATURE_INVALID', detail, authentic: false, ...claimedIdentity(r.value) });
  }
  try {
    const envelope = parseEnvelope(r);
    const computed = computeEventHash(envelope);
    if (computed !== envelope.hash) {
      return refused({ reason: 'HASH_MISMATCH', detail: `hash ${envelope.hash} carried, ${computed} computed over the canonical bytes`, authentic: true, ...claimedIdentity(r.value) });
    }
    const event = upcastEnvelope(envelope, r);
    const problem = eventDataProblem(event.type, event.data);
    if (problem) {
      return refused({ reason: 'MALFORMED', detail: `${event.type} data: ${problem}`, authentic: true, eventId: event.eventId, streamId: event.streamId, streamVersion: event.streamVersion });
    }
    return { ok: true, event };
  } catch (err) {
    if (!(err instanceof ProjectionError)) throw err;
    return refused({ reason: err.code === 'PROJECTION.UNKNOWN_EVENT_TYPE' ? 'UNKNOWN_TYPE' : 'MALFORMED', detail: err.message, authentic: true, ...claimedIdentity(r.value) });
  }
}

/**
 * Checks that `e` is the next event of its stream after `head` (check 4): version `head.version + 1`
 * (1 when the stream has no head) and `prevHash` = `head.hash` (the genesis hash for version 1).
 * @returns null when it links; else the reason (`VERSION_CONFLICT`, `VERSION_GAP`, `PREV_HASH_MISMATCH`) and a detail
 */
export function checkLink(head: StreamHead | undefined, e: Pick<LedgerEvent, 'streamId' | 'streamVersion' | 'prevHash'>): { reason: QuarantineReason; detail: string } | null {
  const applied = head?.version ?? 0;
  const expectedPrev = head?.hash ?? GENESIS_HASH;
  if (e.streamVersion <= applied) {
    return { reason: 'VERSION_CONFLICT', detail: `${e.streamId} version ${e.streamVersion} is already applied (head ${applied}) from another event` };
  }
  if (e.streamVersion > applied + 1) {
    return { reason: 'VERSION_GAP', detail: `${e.streamId} version ${e.streamVersion} follows ${applied}: ${e.streamVersion - applied - 1} version(s) missing` };
  }
  if (e.prevHash !== expectedPrev) {
    return { reason: 'PREV_HASH_MISMATCH', detail: `${e.streamId} version ${e.streamVersion}: prevHash ${e.prevHash}, the hash applied at version ${applied} is ${expectedPrev}` };
  }
  return null;
}

function refused(refusal: Refusal): RefusedRecord {
  return { ok: false, refusal };
}

/** The event id, stream and version a value claims, as far as they can be read (for the quarantine row only). */
export function claimedIdentity(value: EventRecord['value']): Pick<Refusal, 'eventId' | 'streamId' | 'streamVersion'> {
  if (value === null || value === undefined) return {};
  let e: unknown;
  try {
    e = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    return {};
  }
  if (!e || typeof e !== 'object' || Array.isArray(e)) return {};
  const o = e as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined);
  return {
    ...(text(o.eventId) ? { eventId: text(o.eventId) } : {}),
    ...(text(o.streamId) ? { streamId: text(o.streamId) } : {}),
    ...(Number.isSafeInteger(o.streamVersion) && (o.streamVersion as number) > 0 && (o.streamVersion as number) <= 2 ** 31 - 1 ? { streamVersion: o.streamVersion as number } : {}),
  };
}
