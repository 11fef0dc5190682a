import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { v7 as uuidv7 } from 'uuid';
import type { LedgerApiEnv } from '@ledger/config';
import type { DecideContext, ShoeState } from '@ledger/shoe';
import { EVIDENCE_FACT_TYPES, GENESIS_HASH, type Evidence, type LedgerEvent, type NewEvent, type Role } from '@ledger/events';
import { ConcurrencyError, PgEventStore } from '@ledger/event-store';
import { assertTableAllowed } from '../kernel/auth/assert-table-allowed';
import type { Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { EVENT_STORE } from '../kernel/tokens';
import { assertOccurredAtInRange, type OccurredAtBounds } from './occurred-at';
import { ShoeStateCache } from './shoe-state.cache';
import { StreamLock } from './stream-lock';
import { recordDeviceClock } from '../kernel/clock/device-clock-metrics';
import type { WriteRequest } from './write-request';

/** How often a write without an expected version is retried after losing a race to another instance. */
const MAX_ATTEMPTS = 5;

/**
 * The roles that report table facts and bets, and so only for the tables their token names
 * (docs/guarantees.md §12, docs/architecture.md §10). Pit managers' decisions are not bound to a
 * table by the token (four eyes bind them instead).
 */
const TABLE_BOUND_ROLES: readonly Role[] = ['table-device', 'betting-platform'];

/**
 * `events` with `evidence` recorded in the data of each table fact among them (EVIDENCE_FACT_TYPES
 * of `@ledger/events`, docs/reports.md §7); unchanged when there is no evidence, so an event
 * written without it has exactly the bytes (and hash) it always had.
 */
export function withEvidence(events: NewEvent[], evidence: Evidence | null): NewEvent[] {
  if (!evidence) return events;
  return events.map((e) => (EVIDENCE_FACT_TYPES.includes(e.type) ? ({ ...e, data: { ...e.data, evidence } } as NewEvent) : e));
}

/**
 * Whose `Idempotency-Key` it is: `<role>:<token subject>` (docs/guarantees.md §3: keys are scoped
 * per caller, so two callers never see each other's answers nor collide). Roles hold no `:`, so
 * no two principals share a caller.
 */
export function idempotencyCaller(principal: Principal): string {
  return `${principal.role}:${principal.id}`;
}

/** What a successful write answers (HTTP 201). */
export interface ShoeCommandResult {
  shoeId: string;
  tableId: string;
  /** Stream version after the append. */
  streamVersion: number;
  /** The events recorded, in order: envelope fields and data. */
  events: Array<{
    eventId: string;
    type: string;
    streamVersion: number;
    globalPosition: string;
    data: unknown;
  }>;
}

/**
 * What a use case decides on the shoe's state: the events `decide` of `@ledger/shoe` returns.
 * Throws a DomainError to refuse.
 */
export type ShoeDecision = (state: ShoeState, ctx: DecideContext) => NewEvent[];

/** How a use case answers when it is not the plain 201 with the events recorded. */
export interface WriteAnswer<R> {
  /** HTTP status of the answer, stored with it for idempotent retries. @default 201 */
  readonly statusCode?: number;
  /** The answer's body from the plain result. @default the result itself */
  readonly shape?: (result: ShoeCommandResult) => R;
}

/**
 * The mechanics every write use case of a shoe stream shares, so that each `@CommandHandler`
 * stays three lines (docs/architecture.md §3): load the stream, decide, append the events with
 * the expected version and their outbox rows in one transaction (docs/guarantees.md §2, §4),
 * answer 201 with what was recorded.
 *
 * Around that: commands on one stream queue in this process ({@link StreamLock}); the folded state
 * comes from {@link ShoeStateCache}; a request whose `Idempotency-Key` this caller used before
 * gets the first answer, the same caller's key on another request → 409 `IDEMPOTENCY.KEY_REUSED`
 * (docs/guarantees.md §3; keys are the caller's own, see {@link idempotencyCaller}); a write
 * without `expectedVersion` that lost a race to another instance is decided again on the newer
 * state (up to {@link MAX_ATTEMPTS} times).
 *
 * Before any use case decides, once the stream is loaded: a table device or betting platform may
 * write only on a table its token names — the shoe's table, or for a new shoe the table in the
 * path (docs/guarantees.md §12, docs/architecture.md §10); and the request's `occurredAt` must lie
 * between the shoe's opening and the ledger's clock ({@link assertOccurredAtInRange}).
 */
@Injectable()
export class ShoeStreamWriter {
  private readonly logger = new Logger(ShoeStreamWriter.name);
  private readonly occurredAtBounds: OccurredAtBounds;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly states: ShoeStateCache,
    private readonly lock: StreamLock,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.occurredAtBounds = {
      maxSkewMs: config.get('OCCURRED_AT_MAX_SKEW_MS', { infer: true }),
      maxAgeMs: config.get('OCCURRED_AT_MAX_AGE_MS', { infer: true }),
    };
  }

  /**
   * Runs `decision` on the current state of shoe `w.shoeId` and appends what it returns.
   * @returns the 201 answer: the events recorded with their stream versions and global positions
   * @throws ApiError 400 `VALIDATION.FAILED` for an Idempotency-Key outside 1..128 characters;
   *   409 `IDEMPOTENCY.KEY_REUSED`; 409 `STREAM.VERSION_CONFLICT` when `w.expectedVersion` is not
   *   the stream's; 404 `SHOE.NOT_FOUND` for a shoe on another table than `w.tableId`, or none;
   *   403 `AUTH.TABLE_NOT_ALLOWED` for a device or platform whose token does not name the shoe's
   *   table; 422 `TIME.OCCURRED_AT_OUT_OF_RANGE` for an `occurredAt` outside the shoe's time
   * @throws DomainError what `decision` refuses; ConcurrencyError when the race is lost for good
   */
  async write<R = ShoeCommandResult>(w: WriteRequest, decision: ShoeDecision, answer: WriteAnswer<R> = {}): Promise<R> {
    const shape = answer.shape ?? ((r: ShoeCommandResult) => r as unknown as R);
    const key = w.idempotencyKey;
    if (key !== null && (key.length < 1 || key.length > 128)) {
      throw new ApiError('VALIDATION.FAILED', 'Idempotency-Key must be 1..128 characters');
    }
    const streamId = `shoe-${w.shoeId}`;
    return this.lock.run(streamId, async () => {
      try {
        return await this.decideAndAppend(w, decision, { ...answer, shape });
      } catch (e) {
        // A retry of a request this caller made under the same key gets the first answer (or 409
        // IDEMPOTENCY.KEY_REUSED), whatever this attempt met (a refusal of the newer state, a version
        // conflict, a time out of range). The key is looked up only here: a keyed write that goes
        // through costs one round trip, the append, which checks the key itself (KEY_TAKEN → the
        // stored answer) in the same transaction.
        const prior = await this.replayIdempotent<R>(w, shape);
        if (prior) return prior;
        throw e;
      }
    });
  }

  /**
   * {@link write}'s work inside the stream's lock: decide on the (cached) state and append, deciding
   * again on a newer state after a lost race (up to {@link MAX_ATTEMPTS} times).
   * @throws what {@link write} throws, the idempotent replay aside
   */
  private async decideAndAppend<R>(w: WriteRequest, decision: ShoeDecision, answer: WriteAnswer<R> & { shape: (r: ShoeCommandResult) => R }): Promise<R> {
    const { shape } = answer;
    const streamId = `shoe-${w.shoeId}`;
    const key = w.idempotencyKey;
    for (let attempt = 1; ; attempt++) {
      // First from this process's cache without a read (one round trip per write: the append);
      // anything that may come from a stale entry is checked again on the stream itself.
      const cached = attempt === 1 ? this.states.peek(streamId) : null;
      let loaded = cached ?? (await this.states.load(streamId));
      if (cached && w.expectedVersion !== undefined && w.expectedVersion !== loaded.version) loaded = await this.states.load(streamId);
      if (w.expectedVersion !== undefined && w.expectedVersion !== loaded.version) {
        throw new ApiError('STREAM.VERSION_CONFLICT', `shoe ${w.shoeId} is at version ${loaded.version}, expected ${w.expectedVersion}`, {
          expected: w.expectedVersion,
          actual: loaded.version,
        });
      }
      if (loaded.tableId && w.tableId && loaded.tableId !== w.tableId) {
        throw new ApiError('SHOE.NOT_FOUND', `shoe ${w.shoeId} is not on table ${w.tableId}`);
      }
      const tableId = loaded.tableId ?? w.tableId;
      if (tableId) {
        if (TABLE_BOUND_ROLES.includes(w.principal.role)) assertTableAllowed(w.principal, tableId);
        assertOccurredAtInRange(w.occurredAt, loaded.openedAt, Date.now(), this.occurredAtBounds);
      }
      // time-ordered ids (UUIDv7): the unique index on event ids grows at its right edge, not at random pages
      let events: NewEvent[];
      try {
        events = withEvidence(decision(loaded.state, { newId: uuidv7 }), w.evidence);
      } catch (refusal) {
        // a refusal on a cached state stands only if the stream has not moved on meanwhile
        if (cached && (await this.states.load(streamId)).version !== loaded.version) continue;
        throw refusal;
      }
      if (!tableId) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${w.shoeId}`, { shoeId: w.shoeId });
      try {
        const result = await this.store.append({
          streamId,
          tableId,
          expectedVersion: loaded.version,
          expectedHead: { version: loaded.version, lastHash: loaded.lastHash ?? GENESIS_HASH },
          events,
          metadata: {
            actor: w.principal,
            correlationId: w.correlationId,
            causationId: w.correlationId,
            occurredAt: w.occurredAt ?? undefined,
          },
          idempotency: key
            ? { caller: idempotencyCaller(w.principal), key, requestHash: w.requestHash, statusCode: answer.statusCode ?? 201, response: (stored: LedgerEvent[]) => shape(this.toResult(w.shoeId, tableId, stored)) }
            : undefined,
        });
        if (result.outcome === 'APPENDED') {
          this.states.remember(streamId, loaded, result.events);
          if (w.occurredAt !== null) recordDeviceClock(result.events[0]); // the device's clock skew (docs/architecture.md §9)
        } else this.states.forget(streamId); // answered from what was stored: the cache may lag it
        // the store built the answer once already when it stores one (idempotency key, replay, duplicate)
        return result.idempotent ? (result.idempotent.response as R) : shape(this.toResult(w.shoeId, tableId, result.events));
      } catch (e) {
        if (e instanceof ConcurrencyError) this.states.forget(streamId);
        if (e instanceof ConcurrencyError && cached && attempt === 1) continue; // the cache lagged: decide again on the stream
        if (e instanceof ConcurrencyError && w.expectedVersion === undefined && attempt < MAX_ATTEMPTS) {
          this.logger.debug({ streamId, attempt }, 'lost a race to another writer; retrying');
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * The first answer to this caller's request with this Idempotency-Key, or null (none, or expired):
   * the stored body, or for a key stored by reference the body rebuilt by `shape` from its events.
   * @throws ApiError 409 `IDEMPOTENCY.KEY_REUSED` when the caller used the key for another request
   */
  private async replayIdempotent<R>(w: WriteRequest, shape: (result: ShoeCommandResult) => R): Promise<R | null> {
    if (!w.idempotencyKey) return null;
    const prior = await this.store.findIdempotent(idempotencyCaller(w.principal), w.idempotencyKey);
    if (!prior) return null;
    if (prior.requestHash !== w.requestHash) {
      throw new ApiError('IDEMPOTENCY.KEY_REUSED', 'this Idempotency-Key was used for a different request');
    }
    if (prior.response !== null) return prior.response as R; // a key stored with a copy of its answer
    // stored by reference: the same answer, rebuilt from the events the first request recorded
    const events = await this.store.idempotentEvents(prior);
    return shape(this.toResult(w.shoeId, events[0]?.tableId ?? w.tableId ?? '', events));
  }

  private toResult(shoeId: string, tableId: string, events: readonly LedgerEvent[]): ShoeCommandResult {
    return {
      shoeId,
      tableId,
      streamVersion: events.length ? events[events.length - 1].streamVersion : 0,
      events: events.map((e) => ({ eventId: e.eventId, type: e.type, streamVersion: e.streamVersion, globalPosition: e.globalPosition, data: e.data })),
    };
  }
}
