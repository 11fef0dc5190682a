import { ROLES, SCHEMA_VERSIONS, type Actor, type LedgerEventType } from '@ledger/events';
import { DuplicateEventError, InvalidAppendError } from './errors';
import { canonicalJson } from './hash';
import { MAX_EVENTS_PER_APPEND, type AppendIdempotency, type AppendMetadata, type AppendRequest } from './types';

/**
 * The first step of an append: checking and normalising the request before any I/O, so that a
 * malformed request writes nothing (docs/guarantees.md §11). What comes out is what gets hashed
 * and stored: lower-case event ids, UTC ISO-8601 timestamps with milliseconds, event data as it
 * will read back from jsonb.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_ID_LENGTH = 200;

/** One event of a checked request: its catalogue schema version and its data as stored. */
export interface PreparedEvent {
  readonly eventId: string;
  readonly type: LedgerEventType;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly dataJson: string;
}

/** A checked append request (see {@link prepareAppend}). */
export interface Prepared {
  readonly streamId: string;
  readonly tableId: string;
  readonly expectedVersion: number;
  readonly events: readonly PreparedEvent[];
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId: string;
  readonly occurredAt: string;
  readonly recordedAt: string;
  readonly idempotency?: AppendIdempotency;
}

/**
 * Validates and normalises an append request; throws before any I/O.
 * @param now the store's clock; its reading becomes `recordedAt` (and `occurredAt` when absent)
 * @throws InvalidAppendError `APPEND.INVALID` for a malformed field (`details.field` names it)
 * @throws DuplicateEventError `EVENT.DUPLICATE_ID` (`REPEATED_IN_REQUEST`) when an event id repeats
 */
export function prepareAppend(req: AppendRequest, now: () => Date): Prepared {
  const streamId = text(req.streamId, 'streamId');
  const tableId = text(req.tableId, 'tableId');
  if (!Number.isSafeInteger(req.expectedVersion) || req.expectedVersion < 0) {
    throw new InvalidAppendError('expectedVersion must be an integer >= 0', { field: 'expectedVersion' });
  }
  if (!Array.isArray(req.events) || req.events.length === 0 || req.events.length > MAX_EVENTS_PER_APPEND) {
    throw new InvalidAppendError(`an append carries 1 to ${MAX_EVENTS_PER_APPEND} events`, { field: 'events' });
  }
  const m = req.metadata ?? ({} as AppendMetadata);
  const actorId = text(m.actor?.id, 'metadata.actor.id');
  if (!(ROLES as readonly string[]).includes(m.actor?.role)) {
    throw new InvalidAppendError(`metadata.actor.role must be one of ${ROLES.join(', ')}`, {
      field: 'metadata.actor.role',
    });
  }
  const correlationId = text(m.correlationId, 'metadata.correlationId');
  const causationId = m.causationId === undefined ? correlationId : text(m.causationId, 'metadata.causationId');
  const recordedAt = now().toISOString();
  const occurredAt = m.occurredAt === undefined ? recordedAt : occurredAtOf(m.occurredAt);
  const events = prepareEvents(req.events, streamId);
  const idempotency = req.idempotency === undefined ? undefined : checkedIdempotency(req.idempotency);
  return {
    streamId,
    tableId,
    expectedVersion: req.expectedVersion,
    events,
    actor: { id: actorId, role: m.actor.role },
    correlationId,
    causationId,
    occurredAt,
    recordedAt,
    idempotency,
  };
}

/** `v` when it is a non-empty string of at most {@link MAX_ID_LENGTH} characters. @throws InvalidAppendError naming `field` */
function text(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_ID_LENGTH) {
    throw new InvalidAppendError(`${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`, {
      field,
    });
  }
  return v;
}

/** The given `metadata.occurredAt` as UTC ISO-8601 with milliseconds. @throws InvalidAppendError when it is not a valid time */
function occurredAtOf(given: Date | string): string {
  const d = given instanceof Date ? given : new Date(given);
  if (Number.isNaN(d.getTime())) {
    throw new InvalidAppendError('metadata.occurredAt is not a valid ISO-8601 timestamp', {
      field: 'metadata.occurredAt',
    });
  }
  return d.toISOString();
}

/**
 * The request's events checked in order: a UUID event id (lower-cased, as uuid columns read back),
 * not repeated; a type of the catalogue (its schema version); data as it will read back.
 * @throws DuplicateEventError `REPEATED_IN_REQUEST` when an event id repeats
 */
function prepareEvents(events: AppendRequest['events'], streamId: string): PreparedEvent[] {
  const seen = new Set<string>();
  return events.map((e, i): PreparedEvent => {
    if (typeof e?.eventId !== 'string' || !UUID_RE.test(e.eventId)) {
      throw new InvalidAppendError(`events[${i}].eventId must be a UUID`, { field: `events[${i}].eventId` });
    }
    // uuid columns come back lower-case; the hash must cover what is read back.
    const eventId = e.eventId.toLowerCase();
    if (seen.has(eventId)) throw new DuplicateEventError(streamId, [eventId], 'REPEATED_IN_REQUEST');
    seen.add(eventId);
    const schemaVersion = SCHEMA_VERSIONS[e.type as LedgerEventType];
    if (schemaVersion === undefined) {
      throw new InvalidAppendError(`events[${i}].type ${String(e.type)} is not in the event catalogue`, {
        field: `events[${i}].type`,
      });
    }
    const data = normaliseData(e.data, i);
    return { eventId, type: e.type, schemaVersion, data, dataJson: JSON.stringify(data) };
  });
}

/** The request's idempotency record, checked field by field. */
function checkedIdempotency(k: AppendIdempotency): AppendIdempotency {
  text(k.caller, 'idempotency.caller');
  text(k.key, 'idempotency.key');
  if (typeof k.requestHash !== 'string' || k.requestHash.length === 0) {
    throw new InvalidAppendError('idempotency.requestHash must be a non-empty string', {
      field: 'idempotency.requestHash',
    });
  }
  if (!Number.isInteger(k.statusCode) || k.statusCode < 100 || k.statusCode > 599) {
    throw new InvalidAppendError('idempotency.statusCode must be an HTTP status', { field: 'idempotency.statusCode' });
  }
  if (typeof k.response !== 'function') {
    throw new InvalidAppendError('idempotency.response must be a function', { field: 'idempotency.response' });
  }
  return k;
}

/** Event data as it will read back from jsonb: plain JSON, with NaN/Infinity/BigInt/NUL refused, not altered. */
function normaliseData(data: unknown, i: number): unknown {
  const field = `events[${i}].data`;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new InvalidAppendError(`${field} must be a JSON object`, { field });
  }
  let json: string;
  try {
    canonicalJson(data); // refuses NaN and Infinity, which JSON.stringify would silently turn into null
    json = JSON.stringify(data);
  } catch (err) {
    throw new InvalidAppendError(`${field} cannot be stored as JSON: ${(err as Error).message}`, { field });
  }
  if (json.includes('\\u0000')) {
    throw new InvalidAppendError(`${field} contains a NUL character, which PostgreSQL jsonb cannot store`, { field });
  }
  return JSON.parse(json);
}
