import type { DataSource } from 'typeorm';
import { upcast } from '@ledger/events';
import { ConcurrencyError, DuplicateEventError, IdempotencyKeyReuseError } from './errors';
import { canonicalJson } from './hash';
import type { LedgerLogger } from './logger';
import type { Prepared } from './append-request';
import type { EventReader } from './read';
import type { AppendResult, StoredIdempotentResponse } from './types';

/** Why the append transaction did not commit, when that is resolved by looking at what is stored. */
export type Refusal =
  | { readonly kind: 'VERSION'; readonly actual: number }
  | { readonly kind: 'UNIQUE'; readonly error: unknown }
  | { readonly kind: 'IDEMPOTENCY_KEY_TAKEN' };

/**
 * Idempotent ingestion (docs/guarantees.md §3): the same event ids or the same idempotency key
 * twice are recorded once and answered the same way twice. The append stores the answer under the
 * key inside its own transaction; this class reads it back, and decides what a rolled-back append
 * was: a retry (answered as the first time) or a genuine conflict (thrown).
 */
export class IdempotencyStore {
  /**
   * @param ds an initialised, migrated DataSource
   * @param reader reads the stored events a replay returns
   * @param log where replays, duplicates and conflicts are logged (`info`)
   */
  constructor(
    private readonly ds: DataSource,
    private readonly reader: EventReader,
    private readonly log: LedgerLogger,
  ) {}

  /**
   * The answer stored under an idempotency key, or null when the key is unknown. The HTTP layer may
   * call this before doing any work, to answer a retry without deciding again.
   */
  async findIdempotent(key: string): Promise<StoredIdempotentResponse | null> {
    const rows = await this.ds.query(
      `SELECT key, request_hash, status_code, response, stream_id, event_ids::text[] AS event_ids, last_version, created_at
         FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      key: r.key,
      requestHash: r.request_hash,
      statusCode: r.status_code,
      response: r.response,
      streamId: r.stream_id,
      eventIds: r.event_ids,
      lastVersion: r.last_version,
      createdAt: (r.created_at as Date).toISOString(),
    };
  }

  /**
   * After a rolled-back append, decides from what is stored whether the request is a retry (answer it
   * the same way as the first time) or a genuine conflict (throw).
   * @param p the checked request
   * @param refusal why its transaction did not commit
   * @returns `IDEMPOTENT_REPLAY` (the key's stored answer) or `DUPLICATE` (every event id stored with the same content)
   * @throws IdempotencyKeyReuseError `IDEMPOTENCY.KEY_REUSED` when the key answered a different request
   * @throws DuplicateEventError `EVENT.DUPLICATE_ID` (`PARTIAL`, `DIFFERENT_CONTENT`)
   * @throws ConcurrencyError `STREAM.VERSION_CONFLICT` when the stream moved on and this is no retry
   */
  async resolveRefusal(p: Prepared, refusal: Refusal): Promise<AppendResult> {
    if (p.idempotency) {
      const stored = await this.findIdempotent(p.idempotency.key);
      if (stored) {
        if (stored.requestHash !== p.idempotency.requestHash) throw new IdempotencyKeyReuseError(stored.key);
        const events = await this.reader.eventsByIds(stored.eventIds);
        this.log.info(
          { streamId: p.streamId, idempotencyKey: stored.key, correlationId: p.correlationId },
          'idempotent replay',
        );
        return {
          events: events.map(upcast),
          lastVersion: stored.lastVersion,
          outcome: 'IDEMPOTENT_REPLAY',
          idempotent: { statusCode: stored.statusCode, response: stored.response },
        };
      }
    }

    const ids = p.events.map((e) => e.eventId);
    const existing = await this.reader.eventsByIds(ids);
    if (existing.length > 0) {
      if (existing.length < ids.length) {
        throw new DuplicateEventError(
          p.streamId,
          existing.map((e) => e.eventId),
          'PARTIAL',
        );
      }
      const byId = new Map(existing.map((e) => [e.eventId, upcast(e)]));
      const differing = p.events.filter((e) => {
        const s = byId.get(e.eventId)!;
        return s.streamId !== p.streamId || s.type !== e.type || canonicalJson(s.data) !== canonicalJson(e.data);
      });
      if (differing.length > 0) {
        throw new DuplicateEventError(
          p.streamId,
          differing.map((e) => e.eventId),
          'DIFFERENT_CONTENT',
        );
      }
      const events = ids.map((id) => byId.get(id)!);
      this.log.info({ streamId: p.streamId, correlationId: p.correlationId, count: ids.length }, 'duplicate append');
      return {
        events,
        lastVersion: Math.max(...events.map((e) => e.streamVersion)),
        outcome: 'DUPLICATE',
        idempotent: p.idempotency
          ? { statusCode: p.idempotency.statusCode, response: jsonRoundTrip(p.idempotency.response(events)) }
          : undefined,
      };
    }

    if (refusal.kind === 'VERSION') {
      this.log.info(
        {
          streamId: p.streamId,
          correlationId: p.correlationId,
          expectedVersion: p.expectedVersion,
          actualVersion: refusal.actual,
        },
        'version conflict',
      );
      throw new ConcurrencyError(p.streamId, p.expectedVersion, refusal.actual);
    }
    if (refusal.kind === 'UNIQUE') throw refusal.error;
    // The key was taken by a committed append, and is gone now: only a manual purge does that.
    throw new Error(`idempotency key ${p.idempotency?.key} was answered concurrently but its answer is not stored`);
  }
}

function jsonRoundTrip(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? null));
}
