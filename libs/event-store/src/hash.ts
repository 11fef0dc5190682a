import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EventEnvelope } from '@ledger/events';

/**
 * The hash chain (docs/guarantees.md §8).
 *
 *   hash = hex(SHA-256( prevHash + JCS(envelope without `hash` and `globalPosition`) ))
 *
 * JCS is the JSON Canonicalization Scheme of RFC 8785 (npm `canonicalize`): keys sorted by UTF-16
 * code units, no whitespace, ECMAScript number formatting. `globalPosition` is left out because it is
 * assigned under the global counter lock after the chain of the stream is known, and because it
 * describes where the event sits in the store, not what happened.
 *
 * The hashed fields are listed explicitly below (the "hash contract"): a property added to the
 * envelope later is not hashed until this list, and a version of it, say so.
 */

/** The envelope fields the hash covers, i.e. an envelope without `hash` and `globalPosition`. */
export type HashedEnvelope = Omit<EventEnvelope<string, unknown>, 'hash' | 'globalPosition'>;

/**
 * Canonical JSON (RFC 8785) of a JSON value.
 * @throws Error for NaN, Infinity, a BigInt or a value with no JSON form (`undefined`, a function);
 *   the store validates event data before it gets here
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value has no JSON representation');
  return out;
}

/** The object the hash is computed over: exactly the hash contract's fields, nothing else. */
export function hashedFields(e: HashedEnvelope): HashedEnvelope {
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

/**
 * SHA-256 (lower-case hex, 64 characters) of `prevHash` + the canonical JSON of the envelope's
 * hashed fields. Extra properties of `e` (`hash`, `globalPosition`, anything else) are ignored.
 */
export function computeEventHash(e: HashedEnvelope): string {
  return createHash('sha256')
    .update(e.prevHash, 'utf8')
    .update(canonicalJson(hashedFields(e)), 'utf8')
    .digest('hex');
}
