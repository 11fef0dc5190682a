import type { DataSource, QueryRunner } from 'typeorm';
import { GENESIS_HASH, type LedgerEvent } from '@ledger/events';
import { DuplicateReferenceError, InvalidAppendError, StreamTableMismatchError } from './errors';
import { OUTBOX_CHANNEL } from './constants';
import { computeEventHash } from './hash';
import type { LedgerLogger } from './logger';
import { prepareAppend, type Prepared } from './append-request';
import type { IdempotencyStore, Refusal } from './idempotency';
import type { AppendRequest, AppendResult } from './types';

/** A stream's head row (`streams`), as locked by the append. */
interface StreamHead {
  readonly tableId: string;
  readonly version: number;
  readonly lastHash: string;
}

/** What an {@link EventAppender} needs besides the DataSource. */
export interface EventAppenderDeps {
  /** Topic written into every outbox row. */
  readonly topic: string;
  readonly log: LedgerLogger;
  /** Clock for `recordedAt`. */
  readonly now: () => Date;
  /** Answers a rolled-back append that turns out to be a retry. */
  readonly idempotency: IdempotencyStore;
}

/**
 * The append (docs/guarantees.md §1, §2, §3, §4, §5, §8, §9): one transaction that locks the stream row, checks
 * the expected version, reserves the round and bet ids, chains the hashes, takes gap-free global
 * positions from the counter row, inserts the events, their outbox rows and the idempotent answer,
 * moves the stream head and `NOTIFY outbox`. A refusal that may be a retry is handed to
 * {@link IdempotencyStore.resolveRefusal}.
 */
export class EventAppender {
  private readonly topic: string;
  private readonly log: LedgerLogger;
  private readonly now: () => Date;
  private readonly idempotency: IdempotencyStore;

  /** @param ds an initialised, migrated DataSource */
  constructor(
    private readonly ds: DataSource,
    deps: EventAppenderDeps,
  ) {
    this.topic = deps.topic;
    this.log = deps.log;
    this.now = deps.now;
    this.idempotency = deps.idempotency;
  }

  /**
   * Appends events to a stream in one transaction, with optimistic concurrency and idempotency.
   *
   * Retries are safe: a request whose event ids are all recorded already (same stream, type and data)
   * gets the stored events back (`outcome: 'DUPLICATE'`), and one whose idempotency key is stored gets
   * the stored answer (`'IDEMPOTENT_REPLAY'`), whatever `expectedVersion` it names. So after an
   * ambiguous failure (connection lost during COMMIT) retry with the same event ids or key.
   *
   * @returns the recorded events (stream order), the stream's last version and how the call was answered
   * @throws ConcurrencyError `STREAM.VERSION_CONFLICT` when the stream is not at `expectedVersion`
   * @throws StreamTableMismatchError `STREAM.TABLE_MISMATCH` when the stream belongs to another table
   * @throws DuplicateEventError `EVENT.DUPLICATE_ID` when some ids are taken, or taken by other content
   * @throws IdempotencyKeyReuseError `IDEMPOTENCY.KEY_REUSED` when the key answered a different request
   * @throws InvalidAppendError `APPEND.INVALID` for a malformed request (nothing is written)
   */
  async append(req: AppendRequest): Promise<AppendResult> {
    const p = prepareAppend(req, this.now);
    let refusal: Refusal;
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      const head = await this.lockStream(qr, p);
      if (head.version !== p.expectedVersion) {
        await qr.rollbackTransaction();
        refusal = { kind: 'VERSION', actual: head.version };
      } else {
        if (head.tableId !== p.tableId) throw new StreamTableMismatchError(p.streamId, p.tableId, head.tableId);
        await this.reserveReferences(qr, p);
        const result = await this.writeEvents(qr, p, head);
        if (result) {
          await qr.commitTransaction();
          this.log.debug(
            {
              streamId: p.streamId,
              correlationId: p.correlationId,
              count: result.events.length,
              lastVersion: result.lastVersion,
              lastPosition: result.events[result.events.length - 1].globalPosition,
            },
            'events appended',
          );
          return result;
        }
        await qr.rollbackTransaction();
        refusal = { kind: 'IDEMPOTENCY_KEY_TAKEN' };
      }
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      const constraint = uniqueViolation(err);
      if (constraint === 'events_event_id_key' || constraint === 'idempotency_keys_pkey') {
        refusal = { kind: 'UNIQUE', error: err };
      } else if (sqlState(err)?.startsWith('22')) {
        // A data exception in the insert (e.g. a lone surrogate JSON cannot carry into jsonb).
        throw new InvalidAppendError(`the database refused the event data: ${(err as Error).message}`, {
          field: 'events[].data',
          sqlState: sqlState(err),
        });
      } else {
        throw err;
      }
    } finally {
      await qr.release();
    }
    return this.idempotency.resolveRefusal(p, refusal);
  }

  /**
   * Reserves the round ids (RoundOpened) and bet ids (BetPlaced) of the append in
   * `ledger_references`, inside the append's transaction. Ids this stream already holds pass (a
   * retried append); ids held by another stream refuse the append.
   * @throws DuplicateReferenceError `ROUND.DUPLICATE_ID` / `BET.DUPLICATE_ID`
   */
  private async reserveReferences(qr: QueryRunner, p: Prepared): Promise<void> {
    for (const [kind, type, field] of [
      ['ROUND', 'RoundOpened', 'roundId'],
      ['BET', 'BetPlaced', 'betId'],
    ] as const) {
      const ids = p.events.filter((e) => e.type === type).map((e) => String((e.data as Record<string, unknown>)[field]));
      if (ids.length === 0) continue;
      await qr.query(
        `INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT $1, unnest($2::text[]), $3 ON CONFLICT (kind, ref_id) DO NOTHING`,
        [kind, ids, p.streamId],
      );
      const taken: { ref_id: string }[] = await qr.query(
        `SELECT ref_id FROM ledger_references WHERE kind = $1 AND ref_id = ANY($2::text[]) AND stream_id <> $3`,
        [kind, ids, p.streamId],
      );
      if (taken.length) throw new DuplicateReferenceError(kind, taken.map((t) => t.ref_id), p.streamId);
    }
  }

  /**
   * Locks the stream row for the rest of the transaction. A writer expecting version 0 creates the row
   * (version 0, genesis hash); a concurrent creator waits on the primary key, then finds it taken.
   */
  private async lockStream(qr: QueryRunner, p: Prepared): Promise<StreamHead> {
    if (p.expectedVersion === 0) {
      const inserted = await qr.query(
        `INSERT INTO streams (stream_id, table_id, version, last_hash) VALUES ($1, $2, 0, $3)
         ON CONFLICT (stream_id) DO NOTHING
         RETURNING table_id, version, last_hash`,
        [p.streamId, p.tableId, GENESIS_HASH],
      );
      if (inserted.length === 1) return toHead(inserted[0]);
    }
    const rows = await qr.query(`SELECT table_id, version, last_hash FROM streams WHERE stream_id = $1 FOR UPDATE`, [
      p.streamId,
    ]);
    return rows.length === 1 ? toHead(rows[0]) : { tableId: p.tableId, version: 0, lastHash: GENESIS_HASH };
  }

  /**

   * Inside the append transaction, with the stream locked at the expected version: chains the hashes,
   * takes the positions, stores the idempotent answer, inserts events + outbox rows, moves the head.
   * @returns the result, or null when the idempotency key turned out to be taken (the caller rolls back)
   */
  private async writeEvents(qr: QueryRunner, p: Prepared, head: StreamHead): Promise<AppendResult | null> {
    // 1. The chain, before the global counter is locked: hashing does not need positions.
    let prevHash = head.lastHash;
    const chained = p.events.map((e, i) => {
      const envelope = {
        eventId: e.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion,
        streamId: p.streamId,
        streamVersion: head.version + i + 1,
        tableId: p.tableId,
        occurredAt: p.occurredAt,
        recordedAt: p.recordedAt,
        actor: p.actor,
        correlationId: p.correlationId,
        causationId: p.causationId,
        prevHash,
        data: e.data,
      };
      const hash = computeEventHash(envelope);
      prevHash = hash;
      return { ...envelope, hash };
    });
    const lastVersion = head.version + p.events.length;

    // 2. Gap-free global positions. From here to COMMIT every other append waits on this row.
    const counter = await qr.query(
      `UPDATE event_position SET last_position = last_position + $1 RETURNING last_position::text AS last_position`,
      [p.events.length],
      true,
    );
    const last = BigInt(counter.records[0].last_position);
    const first = last - BigInt(p.events.length) + 1n;
    const events = chained.map(
      (e, i) => ({ ...e, globalPosition: (first + BigInt(i)).toString() }) as unknown as LedgerEvent,
    );

    // 3. The idempotent answer, under the caller's key: null = the key was answered by a committed
    //    append (any other append that stored it held this counter lock until it committed).
    let idempotent: AppendResult['idempotent'];
    if (p.idempotency) {
      const response = await this.idempotency.storeAnswer(qr, p, events, lastVersion);
      if (response === null) return null;
      // The stored JSON, not the object: a replay must return exactly what this call returns.
      idempotent = { statusCode: p.idempotency.statusCode, response };
    }

    // 4. Events, outbox rows, stream head and the relay's wake-up call, in one round trip.
    //    (Data-modifying CTEs always run to completion; NOTIFY is delivered at COMMIT.)
    await qr.query(
      `WITH ins AS (
         INSERT INTO events (global_position, event_id, stream_id, stream_version, table_id, type, schema_version,
                             data, actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id,
                             prev_hash, hash)
         SELECT u.global_position, u.event_id, $9, u.stream_version, $10, u.type, u.schema_version,
                u.data, $11, $12, $13::timestamptz, $14::timestamptz, $15, $16,
                u.prev_hash, u.hash
           FROM unnest($1::bigint[], $2::uuid[], $3::int[], $4::text[], $5::int[], $6::jsonb[], $7::text[], $8::text[])
                AS u(global_position, event_id, stream_version, type, schema_version, data, prev_hash, hash)
         RETURNING global_position
       ), ob AS (
         INSERT INTO outbox (global_position, topic, key) SELECT global_position, $17, $10 FROM ins
       ), st AS (
         UPDATE streams SET version = $18, last_hash = $19, updated_at = now() WHERE stream_id = $9
       )
       SELECT pg_notify('${OUTBOX_CHANNEL}', $20)`,
      [
        events.map((e) => e.globalPosition),
        events.map((e) => e.eventId),
        events.map((e) => e.streamVersion),
        events.map((e) => e.type),
        events.map((e) => e.schemaVersion),
        p.events.map((e) => e.dataJson),
        events.map((e) => e.prevHash),
        events.map((e) => e.hash),
        p.streamId,
        p.tableId,
        p.actor.id,
        p.actor.role,
        p.occurredAt,
        p.recordedAt,
        p.correlationId,
        p.causationId,
        this.topic,
        lastVersion,
        prevHash,
        last.toString(),
      ],
    );
    return { events, lastVersion, outcome: 'APPENDED', idempotent };
  }
}

function toHead(r: { table_id: string; version: number; last_hash: string }): StreamHead {
  return { tableId: r.table_id, version: r.version, lastHash: r.last_hash };
}

function driverError(err: unknown): { code?: string; constraint?: string } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { driverError?: { code?: string; constraint?: string }; code?: string; constraint?: string };
  return e.driverError ?? e;
}

function sqlState(err: unknown): string | undefined {
  return driverError(err)?.code;
}

/** The constraint name of a unique violation (SQLSTATE 23505), else undefined. */
function uniqueViolation(err: unknown): string | undefined {
  const d = driverError(err);
  return d?.code === '23505' ? d.constraint : undefined;
}
