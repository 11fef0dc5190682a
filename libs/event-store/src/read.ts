import type { DataSource } from 'typeorm';
import { upcast, type EventEnvelope, type LedgerEvent } from '@ledger/events';
import { EVENT_COLUMNS, rowToEnvelope, type EventRow } from './rows';

/**
 * Reading the store: one stream in stream order, every stream in global order, a stream's version,
 * and stored envelopes by id. Reads upcast to the current schema versions (docs/guarantees.md §10),
 * except {@link EventReader.eventsByIds}, which returns the rows as stored.
 */
export class EventReader {
  /** @param ds an initialised, migrated DataSource */
  constructor(private readonly ds: DataSource) {}

  /**
   * A stream's events from `fromVersion` on, in stream order, upcast to the current schema versions.
   * @param fromVersion first version to return, 1-based. @default 1
   * @param limit at most this many (a page; the SQL reads no more). @default every event from `fromVersion` on
   * @returns [] for an unknown stream
   * @throws Error `EVENT.UNKNOWN_TYPE` / `EVENT.NO_UPCASTER` for a row this code cannot read
   * @throws RangeError when `limit` is given and not a positive integer
   */
  async readStream(streamId: string, fromVersion = 1, limit?: number): Promise<LedgerEvent[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new RangeError('limit must be a positive integer');
    const rows: EventRow[] = await this.ds.query(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version >= $2 ORDER BY e.stream_version${limit === undefined ? '' : ' LIMIT $3'}`,
      limit === undefined ? [streamId, fromVersion] : [streamId, fromVersion, limit],
    );
    return rows.map((r) => upcast(rowToEnvelope(r)));
  }

  /**
   * Events of every stream in global order, from `fromPosition` (inclusive), at most `limit`.
   * Positions commit out of number order (docs/guarantees.md §5): a reader that resumes from its last
   * position + 1 may miss an append that commits late below it. Follow the ledger by the Kafka topic
   * (the relay publishes below the commit-order horizon), or read only up to
   * `outbox_progress.through_position`; this is for tools and tests.
   * @param fromPosition first global position, a decimal string or bigint. @default '1'
   * @param limit page size, 1–10,000. @default 1000
   */
  async readAll(fromPosition: string | bigint = '1', limit = 1000): Promise<LedgerEvent[]> {
    const from = BigInt(fromPosition);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new RangeError('limit must be 1..10000');
    const rows: EventRow[] = await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.global_position >= $1::bigint ORDER BY e.global_position LIMIT $2`, [from.toString(), limit]);
    return rows.map((r) => upcast(rowToEnvelope(r)));
  }

  /** The stream's current version: the number of events in it; 0 for an unknown stream. */
  async streamVersion(streamId: string): Promise<number> {
    const rows = await this.ds.query(`SELECT version FROM streams WHERE stream_id = $1`, [streamId]);
    return rows.length === 0 ? 0 : rows[0].version;
  }

  /**
   * Every event of the given types, in global order, upcast; optionally only those whose `data`
   * has `field` equal to `value` (e.g. the four-eyes events of one decision). Served by the
   * partial index `events_decisions_idx` for the four decision types; other types scan: meant for rare types (decisions), not for cards or bets.
   * @param limit at most this many, 1–10,000. @default 10000
   */
  async readByTypes(types: readonly string[], where?: { readonly field: string; readonly value: string }, limit = 10_000): Promise<LedgerEvent[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new RangeError('limit must be 1..10000');
    const rows: EventRow[] = where
      ? await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.type = ANY($1::text[]) AND e.data ->> $2 = $3 ORDER BY e.global_position LIMIT $4`, [types, where.field, where.value, limit])
      : await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.type = ANY($1::text[]) ORDER BY e.global_position LIMIT $2`, [types, limit]);
    return rows.map((r) => upcast(rowToEnvelope(r)));
  }

  /**
   * The dealer of shoe stream `streamId` at stream version `atVersion`: the `dealerId` of its last
   * `ShoeOpened` or `DealerChanged` at or below it, or null (no such event, or not a shoe stream).
   */
  async dealerAt(streamId: string, atVersion: number): Promise<string | null> {
    const rows: { dealer_id: string | null }[] = await this.ds.query(
      `SELECT e.data ->> 'dealerId' AS dealer_id FROM events e
        WHERE e.stream_id = $1 AND e.stream_version <= $2 AND e.type IN ('ShoeOpened', 'DealerChanged')
        ORDER BY e.stream_version DESC LIMIT 1`,
      [streamId, atVersion],
    );
    return rows[0]?.dealer_id ?? null;
  }

  /** The table of stream `streamId` (its first event's), or null for an unknown stream. */
  async tableOfStream(streamId: string): Promise<string | null> {
    const rows: { table_id: string }[] = await this.ds.query(`SELECT e.table_id FROM events e WHERE e.stream_id = $1 AND e.stream_version = 1`, [streamId]);
    return rows[0]?.table_id ?? null;
  }

  /** The stream version of the first event of type `type` in stream `streamId`, or null when it has none (e.g. a shoe's first `RoundOpened`). */
  async firstVersionOfType(streamId: string, type: string): Promise<number | null> {
    const rows: { v: number | null }[] = await this.ds.query(`SELECT min(e.stream_version) AS v FROM events e WHERE e.stream_id = $1 AND e.type = $2`, [streamId, type]);
    return rows[0]?.v ?? null;
  }

  /**
   * The last ledger-wide event (table id `*`) of type `type` below global position `beforePosition`,
   * upcast, or null (e.g. the configuration attestation before another). Served by
   * `events_table_id_global_position_idx`.
   */
  async lastLedgerWideBefore(type: string, beforePosition: string): Promise<LedgerEvent | null> {
    const rows: EventRow[] = await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.table_id = '*' AND e.type = $1 AND e.global_position < $2::bigint ORDER BY e.global_position DESC LIMIT 1`, [type, beforePosition]);
    return rows.length === 0 ? null : upcast(rowToEnvelope(rows[0]));
  }

  /** Stored envelopes (not upcast) of the given ids, in global order. */
  async eventsByIds(ids: readonly string[]): Promise<EventEnvelope<string, unknown>[]> {
    const rows: EventRow[] = await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.event_id = ANY($1::uuid[]) ORDER BY e.global_position`, [ids]);
    return rows.map(rowToEnvelope);
  }
}
