import { eventDataProblem } from '@ledger/event-store';
import { upcast, type ConfigurationAttestedData, type EventEnvelope, type LedgerEvent } from '@ledger/events';
import type { AttestationOf } from '@ledger/significant-events';
import type { SqlSession } from './sql';

/**
 * The stored events as verify's significant-event checks read them (step 7,
 * docs/significant-events.md, "What verify checks"): a row typed at the boundary, the ledger event
 * it records, and the context some kinds are decided by (a shoe's first round, the previous
 * configuration attestation), read the way the API's monitor reads them.
 */

/** A stored event's columns, as the significant-event checks read them. */
export interface StoredEventRow {
  readonly event_id: string;
  readonly type: string;
  readonly stream_id: string;
  readonly stream_version: number;
  readonly global_position: string;
  readonly table_id: string;
  readonly schema_version: number;
  readonly actor_id: string;
  readonly actor_role: string;
  readonly occurred_at: Date;
  readonly recorded_at: Date;
  readonly data: Record<string, any>;
}

/**
 * A stored row as the ledger event it records (upcast, its data checked against its type's schema:
 * `eventDataProblem`, as the projector and the monitor check it), or undefined when this code cannot
 * read it — an unknown type, or data no rule of the ledger writes (a login that may append can store
 * a `ShoeVoided` without `roundIds`): such an event raises nothing and is left to the other checks.
 */
export function storedEventOf(c: StoredEventRow): LedgerEvent | undefined {
  try {
    // an instant JavaScript cannot hold (PostgreSQL's infinity, year 290000) is malformed too
    const stored = {
      eventId: c.event_id,
      schemaVersion: c.schema_version,
      type: c.type,
      streamId: c.stream_id,
      streamVersion: c.stream_version,
      globalPosition: c.global_position,
      tableId: c.table_id,
      occurredAt: new Date(c.occurred_at).toISOString(),
      recordedAt: new Date(c.recorded_at).toISOString(),
      actor: { id: c.actor_id, role: c.actor_role },
      data: c.data,
    } as unknown as EventEnvelope<string, unknown>;
    const e = upcast(stored);
    return eventDataProblem(e.type, e.data) === null ? e : undefined;
  } catch {
    return undefined;
  }
}

/** The stream version of the first `RoundOpened` of each of `streamIds` that has one (what `DEALER.CHANGED_MID_SHOE` is decided by). */
export async function firstRoundVersions(session: SqlSession, streamIds: readonly string[]): Promise<Map<string, number>> {
  const firsts: { stream_id: string; v: number }[] = await session.query(`SELECT e.stream_id, min(e.stream_version) AS v FROM events e WHERE e.stream_id = ANY($1::text[]) AND e.type = 'RoundOpened' GROUP BY e.stream_id`, [
    [...new Set(streamIds)],
  ]);
  return new Map(firsts.map((f) => [f.stream_id, Number(f.v)]));
}

/** A ledger-wide `ConfigurationAttested` as stored (what the `CONFIG.*` kinds compare). */
export interface StoredAttestation {
  readonly eventId: string;
  /** Decimal string. */
  readonly globalPosition: string;
  readonly data: ConfigurationAttestedData;
}

/** Every ledger-wide `ConfigurationAttested` whose data its schema admits (a malformed one is no attestation), in global order. */
export async function ledgerAttestations(session: SqlSession): Promise<StoredAttestation[]> {
  const rows: { event_id: string; global_position: string; data: ConfigurationAttestedData }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.global_position::text AS global_position, e.data FROM events e WHERE e.table_id = '*' AND e.type = 'ConfigurationAttested' ORDER BY e.global_position`,
  );
  return rows.filter((r) => eventDataProblem('ConfigurationAttested', r.data) === null).map((r) => ({ eventId: r.event_id, globalPosition: r.global_position, data: r.data }));
}

/** The last of `attestations` (global order) below `position` (the monitor's `lastLedgerWideBefore`), or null: the first of the ledger. */
export function attestationBefore(attestations: readonly StoredAttestation[], position: string): AttestationOf | null {
  let previous: StoredAttestation | null = null;
  for (const a of attestations) if (BigInt(a.globalPosition) < BigInt(position)) previous = a;
  return previous ? { eventId: previous.eventId, data: previous.data } : null;
}

/**
 * Of the `RoundVoided` events `ids` (UUIDs), those of cause `SHOE_VOIDED` that are part of a shoe void:
 * their `causedBy` is a `ShoeVoided` of the same stream, before them, listing their round (as the
 * monitor's `isShoeVoidOf`); any other void raises `ROUND.VOIDED`.
 */
export async function partOfShoeVoid(session: SqlSession, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { event_id: string }[] = await session.query(
    `SELECT v.event_id::text AS event_id
       FROM events v
       JOIN events s ON s.event_id = (CASE WHEN v.data ->> 'causedBy' ~ '^[0-9a-fA-F-]{36}$' THEN (v.data ->> 'causedBy')::uuid END)
      WHERE v.event_id = ANY($1::uuid[]) AND v.type = 'RoundVoided' AND s.stream_id = v.stream_id AND s.stream_version < v.stream_version
        AND s.type = 'ShoeVoided' AND (s.data -> 'roundIds') ? (v.data ->> 'roundId')`,
    [ids],
  );
  return new Set(rows.map((r) => r.event_id));
}
