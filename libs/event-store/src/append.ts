import type { DataSource } from 'typeorm';
import { catalogueHistogram } from '@ledger/metrics';
import { GENESIS_HASH, type LedgerEvent } from '@ledger/events';
import { DuplicateReferenceError, InvalidAppendError, StreamTableMismatchError } from './errors';
import { chainEvents, withPositions } from './chain';
import type { LedgerLogger } from './logger';
import { prepareAppend, type Prepared } from './append-request';
import type { IdempotencyStore, Refusal } from './idempotency';
import type { AppendRequest, AppendResult } from './types';
import { activeTraceContext, inSpan } from '@ledger/tracing';

const appendDuration = catalogueHistogram('appendDuration');
const appendBatch = catalogueHistogram('appendBatchSize');

/** A stream's head row (`streams`), as read before the append (no lock). */
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

/** SQLSTATE `ledger_append` raises when a round or bet id is held by another stream. */
const REFERENCE_TAKEN = 'LA020';
/** SQLSTATE `ledger_append` raises when the idempotency key holds a live answer. */
const KEY_TAKEN = 'LA021';
/** SQLSTATE `ledger_append` raises for an event a significant event's stream may not hold (migration `1799900000000`). */
const SIGNIFICANT_STREAM_REFUSED = 'LA022';

/**
 * The append (docs/guarantees.md §1, §2, §3, §4, §5, §8, §9): one statement, `ledger_append(...)`
 * (migration `1797000000000-AppendWithoutGlobalLock`), that locks the stream row, checks the expected
 * version and head hash, reserves the round and bet ids, stores the idempotent answer by reference,
 * takes positions from the sequence, inserts the events and their outbox rows, moves the stream head
 * and `NOTIFY outbox` — no lock shared by two shoes. The hashes are chained here, on the head read
 * just before (or the caller's `expectedHead`); a head that moved meanwhile is a version conflict.
 * A refusal that may be a retry is handed to {@link IdempotencyStore.resolveRefusal}.
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
   * Appends events to a stream in one statement (one transaction), with optimistic concurrency and
   * idempotency.
   *
   * Retries are safe: a request whose event ids are all recorded already (same stream, type and data)
   * gets the stored events back (`outcome: 'DUPLICATE'`), and one whose idempotency key is stored gets
   * the first answer (`'IDEMPOTENT_REPLAY'`, rebuilt from the recorded events), whatever
   * `expectedVersion` it names. So after an ambiguous failure (connection lost during COMMIT) retry
   * with the same event ids or key.
   *
   * @returns the recorded events (stream order), the stream's last version and how the call was answered
   * @throws ConcurrencyError `STREAM.VERSION_CONFLICT` when the stream is not at `expectedVersion`
   * @throws StreamTableMismatchError `STREAM.TABLE_MISMATCH` when the stream belongs to another table
   * @throws DuplicateEventError `EVENT.DUPLICATE_ID` when some ids are taken, or taken by other content
   * @throws DuplicateReferenceError `ROUND.DUPLICATE_ID` / `BET.DUPLICATE_ID` when another stream holds an id
   * @throws IdempotencyKeyReuseError `IDEMPOTENCY.KEY_REUSED` when the key answered a different request
   * @throws InvalidAppendError `APPEND.INVALID` for a malformed request, or for an event a significant
   *   event's stream may not hold: anything but a `SignificantEventRaised` at version 1 and a
   *   `SignificantEventAcknowledged` at version 2 of `significant-<id>` (nothing is written)
   *
   * Tracing on (docs/architecture.md §11): runs in a span `ledger.append`, whose W3C trace context is
   * stored in the outbox rows (not in the events: hashes unchanged) for the relay to continue.
   */
  async append(req: AppendRequest): Promise<AppendResult> {
    return inSpan('ledger.append', { 'ledger.stream_id': req.streamId, 'ledger.event_count': req.events?.length ?? 0 }, () => this.appendTraced(req));
  }

  /** {@link append} inside its span: the latency and batch-size metrics around {@link appendOnce}. */
  private async appendTraced(req: AppendRequest): Promise<AppendResult> {
    // latency (seconds) and batch size per call (docs/architecture.md §8); the outcome label is the answer or ERROR
    const start = process.hrtime.bigint();
    let outcome = 'ERROR';
    try {
      const result = await this.appendOnce(req);
      outcome = result.outcome;
      return result;
    } finally {
      appendDuration.observe({ outcome }, Number(process.hrtime.bigint() - start) / 1e9);
      appendBatch.observe(Array.isArray(req.events) ? req.events.length : 0);
    }
  }

  /** {@link append} without the span and the metrics. */
  private async appendOnce(req: AppendRequest): Promise<AppendResult> {
    const p = prepareAppend(req, this.now);
    let refusal: Refusal;
    try {
      const head = req.expectedHead && req.expectedHead.version === p.expectedVersion ? { tableId: p.tableId, ...req.expectedHead } : await this.readHead(p);
      if (head.version !== p.expectedVersion) {
        refusal = { kind: 'VERSION', actual: head.version };
      } else {
        if (head.tableId !== p.tableId) throw new StreamTableMismatchError(p.streamId, p.tableId, head.tableId);
        const outcome = await this.callAppend(p, head);
        if (outcome.kind === 'APPENDED') return outcome.result;
        if (outcome.kind === 'TABLE_MISMATCH') throw new StreamTableMismatchError(p.streamId, p.tableId, outcome.tableId);
        refusal = { kind: 'VERSION', actual: outcome.version };
      }
    } catch (err) {
      const state = sqlState(err);
      const constraint = uniqueViolation(err);
      if (state === REFERENCE_TAKEN) {
        const d = driverError(err) as { detail?: string; hint?: string };
        throw new DuplicateReferenceError(d.detail === 'ROUND' ? 'ROUND' : 'BET', JSON.parse(d.hint ?? '[]') as string[], p.streamId);
      }
      if (state === SIGNIFICANT_STREAM_REFUSED) {
        const d = driverError(err) as { hint?: string };
        throw new InvalidAppendError(`a significant event's stream holds its SignificantEventRaised at version 1 and its SignificantEventAcknowledged at version 2, nothing else (${d.hint ?? ''})`, {
          field: 'events[].type',
          streamId: p.streamId,
          refused: d.hint ?? null,
        });
      }
      if (state === KEY_TAKEN) {
        refusal = { kind: 'IDEMPOTENCY_KEY_TAKEN' };
      } else if (constraint === 'events_event_id_key' || constraint === 'idempotency_keys_pkey') {
        refusal = { kind: 'UNIQUE', error: err };
      } else if (state?.startsWith('22')) {
        // A data exception in the insert (e.g. a lone surrogate JSON cannot carry into jsonb).
        throw new InvalidAppendError(`the database refused the event data: ${(err as Error).message}`, {
          field: 'events[].data',
          sqlState: state,
        });
      } else {
        throw err;
      }
    }
    return this.idempotency.resolveRefusal(p, refusal);
  }

  /** The stream's head as committed now (no lock; `ledger_append` checks it again under the lock). */
  private async readHead(p: Prepared): Promise<StreamHead> {
    const rows: { table_id: string; version: number; last_hash: string }[] = await this.ds.query(`SELECT table_id, version, last_hash FROM streams WHERE stream_id = $1`, [p.streamId]);
    return rows.length === 1 ? toHead(rows[0]) : { tableId: p.tableId, version: 0, lastHash: GENESIS_HASH };
  }

  /**
   * Chains the hashes on `head` and runs `ledger_append` (one round trip, its own transaction).
   * @returns the result, or what the function found instead (the head moved, another table)
   */
  private async callAppend(p: Prepared, head: StreamHead): Promise<{ kind: 'APPENDED'; result: AppendResult } | { kind: 'VERSION'; version: number } | { kind: 'TABLE_MISMATCH'; tableId: string }> {
    const chained = chainEvents(p, head);
    const refs = (type: string, field: string) => p.events.filter((e) => e.type === type).map((e) => String((e.data as Record<string, unknown>)[field]));
    const k = p.idempotency;
    const trace = activeTraceContext();
    const rows: { status: string; version: number; head_hash: string | null; table_id: string | null; positions: string[] | null }[] = await this.ds.query(
      `SELECT status, version, head_hash, table_id, positions::text[] AS positions
         FROM ledger_append($1, $2, $3, $4, $5::uuid[], $6::text[], $7::int[], $8::jsonb[], $9::text[], $10::text[],
                            $11, $12, $13::timestamptz, $14::timestamptz, $15, $16, $17, $18::text[], $19::text[],
                            $20, $21, $22, $23, $24::timestamptz, $25, $26)`,
      [
        p.streamId,
        p.tableId,
        head.version,
        head.lastHash,
        chained.map((e) => e.eventId),
        chained.map((e) => e.type),
        chained.map((e) => e.schemaVersion),
        p.events.map((e) => e.dataJson),
        chained.map((e) => e.prevHash),
        chained.map((e) => e.hash),
        p.actor.id,
        p.actor.role,
        p.occurredAt,
        p.recordedAt,
        p.correlationId,
        p.causationId,
        this.topic,
        refs('RoundOpened', 'roundId'),
        refs('BetPlaced', 'betId'),
        k?.caller ?? null,
        k?.key ?? null,
        k?.requestHash ?? null,
        k?.statusCode ?? null,
        k ? this.idempotency.cutoffOf(p.recordedAt) : null,
        trace?.traceparent ?? null,
        trace?.tracestate ?? null,
      ],
    );
    const r = rows[0];
    if (r.status === 'TABLE_MISMATCH') return { kind: 'TABLE_MISMATCH', tableId: r.table_id ?? '' };
    if (r.status !== 'APPENDED') return { kind: 'VERSION', version: r.version };
    const positions = r.positions!;
    const events = withPositions(chained, positions);
    const lastVersion = head.version + p.events.length;
    this.log.debug({ streamId: p.streamId, correlationId: p.correlationId, count: events.length, lastVersion, lastPosition: positions[positions.length - 1] }, 'events appended');
    const idempotent = k ? { statusCode: k.statusCode, response: k.response(events) } : undefined;
    return { kind: 'APPENDED', result: { events, lastVersion, outcome: 'APPENDED', idempotent } };
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
