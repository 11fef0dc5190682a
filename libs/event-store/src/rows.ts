import type { EventEnvelope } from '@ledger/events';
import type { Role } from '@ledger/events';

/**
 * How an `events` row is read everywhere (store, verifier, relay): one column list, one mapping.
 * `global_position` is cast to text in SQL so that a bigint never passes through a JS number, even if
 * someone turns on pg's `parseInt8`.
 */
export const EVENT_COLUMNS = `e.global_position::text AS global_position, e.event_id, e.stream_id, e.stream_version,
  e.table_id, e.type, e.schema_version, e.data, e.actor_id, e.actor_role, e.occurred_at, e.recorded_at,
  e.correlation_id, e.causation_id, e.prev_hash, e.hash`;

/** A row selected with {@link EVENT_COLUMNS} (alias `e`), as node-postgres returns it. */
export interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  table_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  actor_id: string;
  actor_role: string;
  occurred_at: Date;
  recorded_at: Date;
  correlation_id: string;
  causation_id: string;
  prev_hash: string;
  hash: string;
}

/**
 * The inverse of {@link rowToEnvelope}: the `events` row of an envelope as node-postgres returns it,
 * with the Kafka message key the relay uses (the table id). For fixtures and specs that feed the relay's
 * record building (toKafkaMessage) or a verifier with events that never were in a database.
 */
export function envelopeToRow(e: EventEnvelope<string, unknown>): EventRow & { key: string } {
  return {
    key: e.tableId,
    global_position: e.globalPosition,
    event_id: e.eventId,
    stream_id: e.streamId,
    stream_version: e.streamVersion,
    table_id: e.tableId,
    type: e.type,
    schema_version: e.schemaVersion,
    data: e.data,
    actor_id: e.actor.id,
    actor_role: e.actor.role,
    occurred_at: new Date(e.occurredAt),
    recorded_at: new Date(e.recordedAt),
    correlation_id: e.correlationId,
    causation_id: e.causationId,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/**
 * The stored envelope of a row, at its stored schema version (not upcast). Timestamps come back as
 * ISO-8601 UTC with milliseconds, the form the store wrote and hashed.
 */
export function rowToEnvelope(r: EventRow): EventEnvelope<string, unknown> {
  return {
    eventId: r.event_id,
    type: r.type,
    schemaVersion: r.schema_version,
    streamId: r.stream_id,
    streamVersion: r.stream_version,
    globalPosition: r.global_position,
    tableId: r.table_id,
    occurredAt: r.occurred_at.toISOString(),
    recordedAt: r.recorded_at.toISOString(),
    actor: { id: r.actor_id, role: r.actor_role as Role },
    correlationId: r.correlation_id,
    causationId: r.causation_id,
    prevHash: r.prev_hash,
    hash: r.hash,
    data: r.data,
  };
}
