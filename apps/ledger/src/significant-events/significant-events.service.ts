import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type PgEventStore } from '@ledger/event-store';
import { significantStreamId, type LedgerEvent } from '@ledger/events';
import type { ReadModel, SignificantEventFilter } from '@ledger/read-model';
import { raisersOf } from '@ledger/significant-events';
import type { Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { decodePositionCursor, keysetPage, parseLimit, type Page } from '../kernel/pagination';
import { EVENT_STORE, READ_MODEL } from '../kernel/tokens';
import type { SignificantEventsQuery } from './significant-events.dto';

/** The UUID form of a significant event id (its stream suffix). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What an acknowledgement answers: the `SignificantEventAcknowledged` recorded. */
export interface AcknowledgementAnswer {
  readonly significantEventId: string;
  readonly code: string;
  readonly reason: string;
  readonly acknowledgedBy: string;
  readonly role: 'pit-manager' | 'auditor';
  readonly eventId: string;
  readonly globalPosition: string;
  readonly acknowledgedAt: string;
}

/**
 * The significant events' use cases (docs/significant-events.md, "Acknowledged by a second person"):
 * the searchable list (read model) and the acknowledgement, appended through the event store's one
 * append to the significant event's own stream at version 2, after the raise (version 1).
 */
@Injectable()
export class SignificantEventsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(READ_MODEL) private readonly read: ReadModel,
  ) {}

  /** A page of significant events, newest first. @throws ApiError 400 `VALIDATION.FAILED` (limit, cursor) */
  async list(q: SignificantEventsQuery): Promise<Page<Record<string, unknown>>> {
    const limit = parseLimit(q.limit);
    const f: SignificantEventFilter = {
      code: q.code ?? null,
      severity: q.severity ?? null,
      tableId: q.tableId ?? null,
      dealerId: q.dealerId ?? null,
      from: q.from ?? null,
      to: q.to ?? null,
      acknowledged: q.acknowledged === undefined ? null : q.acknowledged === 'true',
      limit,
      beforePosition: decodePositionCursor(q.cursor),
    };
    return keysetPage(await this.read.significantEvents.page(f), limit, (r) => r.raised_position);
  }

  /** One significant event of the read model. @throws ApiError 404 `SIGNIFICANT.NOT_FOUND` */
  async get(id: string): Promise<Record<string, unknown>> {
    const row = UUID.test(id) ? await this.read.significantEvents.byId(id) : undefined;
    if (!row) throw ApiError.of('SIGNIFICANT.NOT_FOUND', { significantEventId: id.slice(0, 64) });
    return camel(row);
  }

  /**
   * Acknowledges significant event `id` as `p` (a pit manager or an auditor) with `reason`: appends
   * `SignificantEventAcknowledged` to `significant-<id>` at version 2. Any severity may be
   * acknowledged (high and above must be); the same rules apply to all. Read from the event store,
   * not the read model, so an event raised a moment ago can be acknowledged at once.
   * @throws ApiError 404 `SIGNIFICANT.NOT_FOUND`; 422 `MANAGEMENT.SAME_APPROVER` (`p` is among the
   *   people whose act raised it); 409 `SIGNIFICANT.ALREADY_ACKNOWLEDGED` (also when another
   *   acknowledgement wins the race)
   */
  async acknowledge(id: string, p: Principal, reason: string): Promise<AcknowledgementAnswer> {
    const stream = UUID.test(id) ? await this.store.readStream(significantStreamId(id)) : [];
    const raise = stream.find((e): e is LedgerEvent<'SignificantEventRaised'> => e.type === 'SignificantEventRaised');
    if (!raise) throw ApiError.of('SIGNIFICANT.NOT_FOUND', { significantEventId: id.slice(0, 64) });
    const done = stream.find((e): e is LedgerEvent<'SignificantEventAcknowledged'> => e.type === 'SignificantEventAcknowledged');
    if (done) throw ApiError.of('SIGNIFICANT.ALREADY_ACKNOWLEDGED', { significantEventId: id, acknowledgedBy: done.data.acknowledgedBy });
    if (raisersOf(raise.data).has(p.id)) {
      throw new ApiError('MANAGEMENT.SAME_APPROVER', `${p.id} had a hand in what raised significant event ${id} and may not acknowledge it: a second person must`, { significantEventId: id, actorId: p.id });
    }
    const role = p.role === 'auditor' ? 'auditor' : 'pit-manager';
    const data = { significantEventId: id, code: raise.data.code, reason, acknowledgedBy: p.id, role } as const;
    try {
      const r = await this.store.append({
        streamId: significantStreamId(id),
        tableId: raise.tableId,
        expectedVersion: raise.streamVersion,
        events: [{ eventId: randomUUID(), type: 'SignificantEventAcknowledged', data }],
        metadata: { actor: { id: p.id, role: p.role }, correlationId: randomUUID(), causationId: raise.eventId },
      });
      const e = r.events[0];
      return { ...data, eventId: e.eventId, globalPosition: e.globalPosition, acknowledgedAt: e.recordedAt };
    } catch (err) {
      if (err instanceof ConcurrencyError) throw ApiError.of('SIGNIFICANT.ALREADY_ACKNOWLEDGED', { significantEventId: id, acknowledgedBy: '(another acknowledgement)' });
      throw err;
    }
  }
}
