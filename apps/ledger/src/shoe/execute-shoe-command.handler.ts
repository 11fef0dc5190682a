import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { decide } from '@ledger/shoe';
import type { LedgerEvent } from '@ledger/events';
import { ConcurrencyError, PgEventStore } from '@ledger/event-store';
import { ApiError } from '../common/api-error';
import { EVENT_STORE } from '../persistence/persistence.module';
import { ExecuteShoeCommand, ShoeCommandResult } from './execute-shoe-command';
import { ShoeStateCache } from './shoe-state.cache';
import { StreamLock } from './stream-lock';

/** How often a write without an expected version is retried after losing a race to another instance. */
const MAX_ATTEMPTS = 5;

/**
 * Thin handler (style.md point 5): load the stream, `decide`, append the events with the expected
 * version and their outbox rows in one transaction, answer. Idempotency: a request whose
 * `Idempotency-Key` was seen gets the first answer; the same key on another request → 409
 * `IDEMPOTENCY.KEY_REUSED`.
 */
@CommandHandler(ExecuteShoeCommand)
export class ExecuteShoeCommandHandler implements ICommandHandler<ExecuteShoeCommand, ShoeCommandResult> {
  private readonly logger = new Logger(ExecuteShoeCommandHandler.name);

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly states: ShoeStateCache,
    private readonly lock: StreamLock,
  ) {}

  async execute(c: ExecuteShoeCommand): Promise<ShoeCommandResult> {
    const streamId = `shoe-${c.shoeId}`;
    return this.lock.run(streamId, async () => {
      const prior = await this.replayIdempotent(c);
      if (prior) return prior;
      for (let attempt = 1; ; attempt++) {
        const loaded = await this.states.load(streamId);
        if (c.expectedVersion !== undefined && c.expectedVersion !== loaded.version) {
          throw new ApiError('STREAM.VERSION_CONFLICT', `shoe ${c.shoeId} is at version ${loaded.version}, expected ${c.expectedVersion}`, 409, {
            expected: c.expectedVersion,
            actual: loaded.version,
          });
        }
        if (loaded.tableId && c.tableId && loaded.tableId !== c.tableId) {
          throw new ApiError('SHOE.NOT_FOUND', `shoe ${c.shoeId} is not on table ${c.tableId}`, 404);
        }
        const tableId = loaded.tableId ?? c.tableId;
        const events = decide(loaded.state, c.command, { newId: randomUUID });
        if (!tableId) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${c.shoeId}`, 404, { shoeId: c.shoeId });
        try {
          const result = await this.store.append({
            streamId,
            tableId,
            expectedVersion: loaded.version,
            events,
            metadata: {
              actor: c.principal,
              correlationId: c.correlationId,
              causationId: c.correlationId,
              occurredAt: c.occurredAt ?? undefined,
            },
            idempotency: c.idempotencyKey
              ? { key: c.idempotencyKey, requestHash: c.requestHash, statusCode: 201, response: (stored: LedgerEvent[]) => this.toResult(c.shoeId, tableId, stored) }
              : undefined,
          });
          this.states.remember(streamId, loaded, result.events);
          return this.toResult(c.shoeId, tableId, result.events);
        } catch (e) {
          if (e instanceof ConcurrencyError && c.expectedVersion === undefined && attempt < MAX_ATTEMPTS) {
            this.logger.debug({ streamId, attempt }, 'lost a race to another writer; retrying');
            continue;
          }
          if (e instanceof ConcurrencyError) {
            const prior2 = await this.replayIdempotent(c);
            if (prior2) return prior2;
          }
          throw e;
        }
      }
    });
  }

  private async replayIdempotent(c: ExecuteShoeCommand): Promise<ShoeCommandResult | null> {
    if (!c.idempotencyKey) return null;
    const prior = await this.store.findIdempotent(c.idempotencyKey);
    if (!prior) return null;
    if (prior.requestHash !== c.requestHash) {
      throw new ApiError('IDEMPOTENCY.KEY_REUSED', 'this Idempotency-Key was used for a different request', 409);
    }
    return prior.response as ShoeCommandResult;
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
