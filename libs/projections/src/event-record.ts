import { GAMING_DAY_EVENT_TYPES, LEDGER_WIDE_TABLE_ID, SIGNIFICANT_EVENT_TYPES, ROLES, SCHEMA_VERSIONS, upcast, type EventEnvelope, type LedgerEvent } from '@ledger/events';
import { ProjectionError } from './errors';

/**
 * Reading a Kafka record of `baccarat.ledger.events.v1` into a ledger event.
 *
 * The record value is the event envelope as JSON (`@ledger/events` `LedgerEvent`, `globalPosition`
 * a decimal string), the key the table id, headers the CloudEvents binding's `ce_specversion`,
 * `ce_id` = eventId, `ce_source`, `ce_type`, `content-type`, and `ledger-sig` (the relay's record
 * layout, `@ledger/event-store` `relay-record.ts`; docs/architecture.md §6). Only the value is
 * trusted: everything is read from it; `ce_id`, `ce_type` and `ce_source` are cross-checked when
 * present (headers are not signed: one contradicting the value is a tampered record). Records of older
 * relays carry four headers more (`ce_subject`, `ce_time`, `schema_version`, `global_position`):
 * they are ignored, so an old topic replays the same.
 */

/** Where a record sits, for error messages and the `applied_events` row. */
export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offset, decimal string (kafkajs spelling). */
  readonly offset: string;
}

/** The part of a Kafka message the read side uses. */
export interface EventRecord extends RecordPosition {
  /** The record's key (the table id), signed with the value (`ledger-sig`); absent reads as empty. */
  readonly key?: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;
}

const DECIMAL = /^\d+$/;
const SHOE_STREAM = /^shoe-.+$/;
/** A gaming day's stream (docs/reports.md §2): its events are ledger-wide, table id `*`. */
const GAMING_DAY_STREAM = /^gaming-day-\d{4}-\d{2}-\d{2}(:.+)?$/;
/** A significant event's stream (docs/significant-events.md): `significant-<uuid>`. */
const SIGNIFICANT_STREAM = /^significant-[0-9a-f-]{36}$/;

function fail(message: string, at: RecordPosition, details: Record<string, unknown> = {}): never {
  throw new ProjectionError('PROJECTION.MALFORMED_EVENT', `${message} (${at.topic}/${at.partition}@${at.offset})`, {
    topic: at.topic,
    partition: at.partition,
    offset: at.offset,
    ...details,
  });
}

/** A header's (first) value as text; undefined when absent. */
export function recordHeader(r: EventRecord, name: string): string | undefined {
  const h = r.headers?.[name];
  const v = Array.isArray(h) ? h[0] : h;
  return v === undefined ? undefined : v.toString();
}

/**
 * Parses, checks and upcasts one record to the current schema of its type.
 * @throws ProjectionError `PROJECTION.MALFORMED_EVENT` (not JSON, envelope field missing or of the
 *   wrong type, a `ce_id`, `ce_type` or `ce_source` header contradicting the value), `PROJECTION.UNKNOWN_EVENT_TYPE` (a type
 *   or schema version this build cannot read: deploy the newer projector first)
 */
export function parseEventRecord(r: EventRecord): LedgerEvent {
  return upcastEnvelope(parseEnvelope(r), r);
}

/**
 * Parses and checks one record's envelope as stored, NOT upcast: what its hash covers
 * (docs/guarantees.md §8). Same checks as {@link parseEventRecord} but the upcast.
 * @throws ProjectionError `PROJECTION.MALFORMED_EVENT`, `PROJECTION.UNKNOWN_EVENT_TYPE` (see {@link parseEventRecord})
 */
export function parseEnvelope(r: EventRecord): EventEnvelope<string, unknown> {
  if (r.value === null || r.value === undefined) fail('record has no value', r);
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(typeof r.value === 'string' ? r.value : r.value.toString('utf8'));
  } catch (err) {
    return fail(`record value is not JSON: ${(err as Error).message}`, r);
  }
  if (!e || typeof e !== 'object' || Array.isArray(e)) fail('record value is not a JSON object', r);
  const str = (k: string) => {
    if (typeof e[k] !== 'string' || (e[k] as string).length === 0) fail(`envelope field ${k} must be a non-empty string`, r, { field: k });
  };
  for (const k of ['eventId', 'type', 'streamId', 'tableId', 'occurredAt', 'recordedAt', 'correlationId', 'causationId', 'prevHash', 'hash']) str(k);
  if (typeof e.globalPosition !== 'string' || !DECIMAL.test(e.globalPosition)) fail('globalPosition must be a decimal string', r, { field: 'globalPosition' });
  if (!Number.isInteger(e.streamVersion) || (e.streamVersion as number) < 1) fail('streamVersion must be an integer ≥ 1', r, { field: 'streamVersion' });
  if (!Number.isInteger(e.schemaVersion) || (e.schemaVersion as number) < 1) fail('schemaVersion must be an integer ≥ 1', r, { field: 'schemaVersion' });
  // a shoe's events in shoe-<shoeId> under their table; a gaming day's in gaming-day-<day> under `*`
  const dayEvent = (GAMING_DAY_EVENT_TYPES as readonly unknown[]).includes(e.type);
  const significant = (SIGNIFICANT_EVENT_TYPES as readonly unknown[]).includes(e.type);
  if (significant && !SIGNIFICANT_STREAM.test(e.streamId as string)) fail(`a ${String(e.type)} must be in stream significant-<uuid>`, r, { field: 'streamId' });
  if (!dayEvent && !significant && !SHOE_STREAM.test(e.streamId as string)) fail('streamId must be shoe-<shoeId>', r, { field: 'streamId' });
  if (dayEvent && (!GAMING_DAY_STREAM.test(e.streamId as string) || e.tableId !== LEDGER_WIDE_TABLE_ID)) {
    fail(`a ${String(e.type)} must be in stream gaming-day-<YYYY-MM-DD> with table id ${LEDGER_WIDE_TABLE_ID}`, r, { field: 'streamId' });
  }
  for (const k of ['occurredAt', 'recordedAt']) if (!Number.isFinite(Date.parse(e[k] as string))) fail(`${k} is not an ISO-8601 instant`, r, { field: k });
  const actor = e.actor as Record<string, unknown> | undefined;
  if (!actor || typeof actor.id !== 'string' || !(ROLES as readonly string[]).includes(actor.role as string)) fail('actor must be { id, role }', r, { field: 'actor' });
  if (!e.data || typeof e.data !== 'object' || Array.isArray(e.data)) fail('data must be an object', r, { field: 'data' });
  const ceId = recordHeader(r, 'ce_id');
  if (ceId !== undefined && ceId !== e.eventId) fail(`header ce_id ${ceId} differs from eventId ${String(e.eventId)}`, r);
  // headers are not signed: one that contradicts the (signed) value marks a tampered record
  const ceType = recordHeader(r, 'ce_type');
  const type = `baccarat.ledger.${String(e.type)}.v${String(e.schemaVersion)}`;
  if (ceType !== undefined && ceType !== type) fail(`header ce_type ${ceType} differs from the value's ${type}`, r);
  const ceSource = recordHeader(r, 'ce_source');
  if (ceSource !== undefined && ceSource !== `/tables/${String(e.tableId)}`) fail(`header ce_source ${ceSource} differs from the value's /tables/${String(e.tableId)}`, r);

  const current = SCHEMA_VERSIONS[e.type as keyof typeof SCHEMA_VERSIONS];
  if (current === undefined || (e.schemaVersion as number) > current) {
    throw new ProjectionError('PROJECTION.UNKNOWN_EVENT_TYPE', `cannot read ${String(e.type)} v${String(e.schemaVersion)} (${r.topic}/${r.partition}@${r.offset})`, {
      type: e.type,
      schemaVersion: e.schemaVersion,
      offset: r.offset,
    });
  }
  return e as unknown as EventEnvelope<string, unknown>;
}

/**
 * Upcasts a parsed envelope to the current schema of its type.
 * @throws ProjectionError `PROJECTION.UNKNOWN_EVENT_TYPE` when no upcaster reads it
 */
export function upcastEnvelope(e: EventEnvelope<string, unknown>, r: RecordPosition): LedgerEvent {
  try {
    return upcast(e);
  } catch (err) {
    throw new ProjectionError('PROJECTION.UNKNOWN_EVENT_TYPE', `${(err as Error).message} (${r.topic}/${r.partition}@${r.offset})`, { type: e.type });
  }
}

/** The shoe id of an event of a shoe's stream, or null for a ledger-wide event (a gaming day's: `gaming-day-<day>`). */
export function shoeIdOrNull(e: { readonly streamId: string }): string | null {
  return e.streamId.startsWith('shoe-') ? e.streamId.slice('shoe-'.length) : null;
}

/** The shoe id of an event of a shoe's stream: its stream id without the `shoe-` prefix. */
export function shoeIdOf(e: { readonly streamId: string }): string {
  return e.streamId.slice('shoe-'.length);
}
