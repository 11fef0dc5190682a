import type { DataSource } from 'typeorm';
import { upcast, type LedgerEvent } from '@ledger/events';
import { ConcurrencyError, DuplicateEventError, IdempotencyKeyReuseError } from './errors';
import { canonicalJson } from './hash';
import type { LedgerLogger } from './logger';
import type { Prepared } from './append-request';
import type { EventReader } from './read';
import { DEFAULT_IDEMPOTENCY_RETENTION_MS, type AppendResult, type StoredIdempotentResponse } from './types';

/** Why the append transaction did not commit, when that is resolved by looking at what is stored. */
export type Refusal = { readonly kind: 'VERSION'; readonly actual: number } | { readonly kind: 'UNIQUE'; readonly error: unknown } | { readonly kind: 'IDEMPOTENCY_KEY_TAKEN' };

/**
 * Idempotent ingestion (docs/guarantees.md §3): the same event ids or the same idempotency key
 * twice are recorded once and answered the same way twice. The append stores the answer under the
 * caller's key inside its own statement (`ledger_append`, by reference: the stream and version
 * range, not a copy); this class reads it back, and decides
 * what a rolled-back append was: a retry (answered as the first time) or a genuine conflict (thrown).
 *
 * Keys are scoped per caller (`idempotency_keys` is keyed by `(caller, key)`): another caller's key
 * is never found, answered nor collided with. A key lives for the retention (`retentionMs`, measured
 * on the store's clock from the first answer): after it the key is unknown again, the next request
 * with it is executed anew (its expired row is replaced inside that append), and
 * {@link pruneExpired} deletes expired rows in bulk.
 */
export class IdempotencyStore {
  /**
   * @param ds an initialised, migrated DataSource
   * @param reader reads the stored events a replay returns
   * @param log where replays, duplicates and conflicts are logged (`info`)
   * @param now the store's clock (`created_at` of a key is its `recordedAt`)
   * @param retentionMs how long a key is kept, in milliseconds (> 0)
   */
  constructor(
    private readonly ds: DataSource,
    private readonly reader: EventReader,
    private readonly log: LedgerLogger,
    private readonly now: () => Date = () => new Date(),
    private readonly retentionMs: number = DEFAULT_IDEMPOTENCY_RETENTION_MS,
  ) {
    if (!Number.isSafeInteger(retentionMs) || retentionMs <= 0) throw new RangeError(`idempotency retention must be a positive integer of ms, got ${retentionMs}`);
  }

  /** Keys stored before this instant have expired (`at` minus the retention), ISO-8601. */
  cutoffOf(at: Date | string): string {
    return this.cutoff(at);
  }

  /** Keys stored before this instant have expired (`at` minus the retention). */
  private cutoff(at: Date | string = this.now()): string {
    return new Date(new Date(at).getTime() - this.retentionMs).toISOString();
  }

  /**
   * The answer stored under `caller`'s idempotency key, or null when the caller has no such key, or
   * only an expired one. The HTTP layer may call this before doing any work, to answer a retry
   * without deciding again.
   * @param caller `<role>:<subject>` of the request's token
   */
  async findIdempotent(caller: string, key: string): Promise<StoredIdempotentResponse | null> {
    const rows = await this.ds.query(
      `SELECT caller, key, request_hash, status_code, response, stream_id, event_ids::text[] AS event_ids, first_version, last_version, created_at
         FROM idempotency_keys WHERE caller = $1 AND key = $2 AND created_at >= $3::timestamptz`,
      [caller, key, this.cutoff()],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      caller: r.caller,
      key: r.key,
      requestHash: r.request_hash,
      statusCode: r.status_code,
      response: r.response,
      streamId: r.stream_id,
      eventIds: r.event_ids,
      lastVersion: r.last_version,
      firstVersion: r.first_version,
      createdAt: (r.created_at as Date).toISOString(),
    };
  }

  /**
   * The events the first answer under `stored` recorded, in stream order: by version range for keys
   * stored by reference, by id for keys stored with a copy.
   */
  async storedEvents(stored: StoredIdempotentResponse): Promise<LedgerEvent[]> {
    if (stored.firstVersion !== null) {
      return (await this.reader.readStream(stored.streamId, stored.firstVersion, stored.lastVersion - stored.firstVersion + 1)).map(upcast);
    }
    return (await this.reader.eventsByIds(stored.eventIds)).map(upcast);
  }

  /**
   * Deletes the keys whose retention has run out, in batches of `batchSize` rows (each its own
   * statement), so the table holds only the retention's worth of keys.
   * @returns how many rows were deleted
   * @throws the database's error (e.g. 42501 when the role may not DELETE on `idempotency_keys`)
   */
  async pruneExpired(batchSize = 10_000): Promise<number> {
    const cutoff = this.cutoff();
    let total = 0;
    for (;;) {
      const rows: unknown[] = await this.ds.query(`DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < $1::timestamptz LIMIT $2) RETURNING 1 AS x`, [cutoff, batchSize]);
      total += rows.length;
      if (rows.length < batchSize) return total;
    }
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
      const stored = await this.findIdempotent(p.idempotency.caller, p.idempotency.key);
      if (stored) {
        if (stored.requestHash !== p.idempotency.requestHash) throw new IdempotencyKeyReuseError(stored.key);
        const events = await this.storedEvents(stored);
        this.log.info({ streamId: p.streamId, idempotencyKey: stored.key, caller: stored.caller, correlationId: p.correlationId }, 'idempotent replay');
        return {
          events,
          lastVersion: stored.lastVersion,
          outcome: 'IDEMPOTENT_REPLAY',
          idempotent: { statusCode: stored.statusCode, response: stored.response ?? p.idempotency.response(events) },
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
        idempotent: p.idempotency ? { statusCode: p.idempotency.statusCode, response: p.idempotency.response(events) } : undefined,
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
    // The key was taken by a committed append, and is gone now (or expired meanwhile): only a purge does that.
    throw new Error(`idempotency key ${p.idempotency?.key} of ${p.idempotency?.caller} was answered concurrently but its answer is not stored`);
  }
}
