import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type PgEventStore } from '@ledger/event-store';
import { significantStreamId, type LedgerEvent } from '@ledger/events';
import { significantEventRowOf, type ReadModel, type SignificantEventFilter, type SignificantEventRow } from '@ledger/read-model';
import { raisersOf } from '@ledger/significant-events';
import { checkReason } from '@ledger/shoe';
import type { Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { decodePositionCursor, keysetPage, parseLimit, type Page } from '../kernel/pagination';
import { EVENT_STORE, READ_MODEL } from '../kernel/tokens';
import type { SignificantEventsQuery } from './significant-events.dto';
import { significantMetrics } from './significant-metrics';

/** The UUID form of a significant event id (its stream suffix): lower case as stored; a request's id is lowered first (RFC 9562 §4: case-insensitive on input). */
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

/** The log of read-model mismatches is bounded: one line per 10 s at most (each one is counted). */
const MISMATCH_LOG_EVERY_MS = 10_000;

/** How a read-model row disagrees with the event store: no raise of its id, or an acknowledgement state the stored events do not have. */
type RowMismatch = 'not-raised' | 'acknowledgement';

/**
 * An ISO-8601 time with its offset (as `IsIsoTime` admits, or a stored `recordedAt`) as microseconds
 * since the epoch, exact to the microsecond as PostgreSQL keeps it (digits beyond are dropped).
 */
function instantMicros(iso: string): bigint {
  const fraction = (/[.,](\d+)/.exec(iso)?.[1] ?? '').padEnd(6, '0').slice(0, 6);
  return BigInt(Date.parse(iso.replace(/[.,]\d+/, ''))) * 1000n + BigInt(fraction);
}

/**
 * Whether a significant event as served (camelCase, from the stored events) matches the list's filter
 * `f`, its period included: the raise's own `recordedAt` in [`from`, `to`), so a `raised_at` rewritten
 * in the read model cannot move a raise into a period it was not raised in.
 */
function matches(r: Record<string, unknown>, f: SignificantEventFilter): boolean {
  const at = typeof r.raisedAt === 'string' ? instantMicros(r.raisedAt) : null;
  return (
    (f.from === null || (at !== null && at >= instantMicros(f.from))) &&
    (f.to === null || (at !== null && at < instantMicros(f.to))) &&
    (f.code === null || r.code === f.code) &&
    (f.severity === null || r.severity === f.severity) &&
    (f.tableId === null || r.tableId === f.tableId) &&
    (f.dealerId === null || r.dealerId === f.dealerId) &&
    (f.acknowledged === null || (r.acknowledgedAt !== null) === f.acknowledged)
  );
}

/**
 * The significant events' use cases (docs/significant-events.md, "Acknowledged by a second person"):
 * the searchable list and the acknowledgement, appended through the event store's one append to the
 * significant event's own stream at version 2, after the raise (version 1). The read model (which
 * the projector's login writes) selects and orders the list; every row served is rebuilt from the
 * stored events (docs/significant-events.md, "What the read model may not decide").
 */
@Injectable()
export class SignificantEventsService {
  private readonly logger = new Logger('SignificantEvents');
  /** When the last mismatch was logged (ms since the epoch). */
  private loggedAt = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(READ_MODEL) private readonly read: ReadModel,
  ) {}

  /**
   * A page of significant events, newest first: chosen by the read model's indexed filters, each
   * served as the event store holds it and kept only if it matches the filter as stored, acknowledged
   * or not included (a row the read model misfiled is left out: the page may then be shorter than
   * `limit`, its `nextCursor` goes on).
   * @throws ApiError 400 `VALIDATION.FAILED` (limit, cursor)
   */
  async list(q: SignificantEventsQuery): Promise<Page<Record<string, unknown>>> {
    const limit = parseLimit(q.limit);
    const f: SignificantEventFilter = {
      code: q.code ?? null,
      severity: q.severity ?? null,
      tableId: q.tableId ?? null,
      dealerId: q.dealerId ?? null,
      from: q.from ?? null,
      to: q.to ?? null,
      // the read model's word chooses the page (full pages); each row is then confirmed on the stored events
      acknowledged: q.acknowledged === undefined ? null : q.acknowledged === 'true',
      limit,
      beforePosition: decodePositionCursor(q.cursor),
    };
    const rows = await this.read.significantEvents.page(f);
    const page = keysetPage(rows, limit, (r) => r.raised_position);
    const stored = await this.fromLedger(rows.slice(0, limit));
    // the read model chose the rows; each must still match the filter as the stored events say
    // (a page may then hold fewer items than `limit`: its cursor goes on)
    return { ...page, items: stored.filter((r) => matches(r, f)) };
  }

  /**
   * One significant event, as its stored events give it (a raise the read model has not projected
   * yet is served too).
   * @throws ApiError 404 `SIGNIFICANT.NOT_FOUND`
   */
  async get(requested: string): Promise<Record<string, unknown>> {
    const id = requested.toLowerCase();
    const [found] = UUID.test(id) ? await this.store.significant.byIds([id]) : [];
    if (!found) throw ApiError.of('SIGNIFICANT.NOT_FOUND', { significantEventId: id.slice(0, 64) });
    return camel(significantEventRowOf(found.raise, found.acknowledgement));
  }

  /**
   * The rows of a page rebuilt from the event store, in the page's order. A row with no stored raise
   * is left out; a row whose acknowledgement the stored events contradict is served as the events
   * say. Each disagreement is counted (`ledger_significant_read_model_mismatches_total`) and logged.
   */
  private async fromLedger(rows: readonly SignificantEventRow[]): Promise<Record<string, unknown>[]> {
    const stored = new Map((await this.store.significant.byIds(rows.map((r) => r.significant_event_id))).map((s) => [s.raise.data.significantEventId, s]));
    const out: Record<string, unknown>[] = [];
    for (const r of rows) {
      const s = stored.get(r.significant_event_id);
      if (!s) {
        this.mismatch(r, 'not-raised');
        continue;
      }
      if ((r.ack_position !== null) !== (s.acknowledgement !== null)) this.mismatch(r, 'acknowledgement');
      out.push(camel(significantEventRowOf(s.raise, s.acknowledgement)));
    }
    return out;
  }

  /** Counts a read-model row the event store contradicts, and logs it (one line per {@link MISMATCH_LOG_EVERY_MS} at most). */
  private mismatch(r: SignificantEventRow, kind: RowMismatch): void {
    significantMetrics.readModelMismatches.inc({ kind });
    const now = Date.now();
    if (now - this.loggedAt < MISMATCH_LOG_EVERY_MS) return;
    this.loggedAt = now;
    this.logger.warn(`read model row of significant event ${r.significant_event_id} (${r.code}) contradicted by the event store: ${kind} (every one counted in ledger_significant_read_model_mismatches_total)`);
  }

  /**
   * Acknowledges significant event `id` as `p` (a pit manager or an auditor) with `reason`: appends
   * `SignificantEventAcknowledged` to `significant-<id>` at version 2. Any severity may be
   * acknowledged (high and above must be); the same rules apply to all. Read from the event store,
   * not the read model, so an event raised a moment ago can be acknowledged at once.
   * @throws ApiError 404 `SIGNIFICANT.NOT_FOUND`; 422 `MANAGEMENT.SAME_APPROVER` (`p` is among the
   *   people whose act raised it); 409 `SIGNIFICANT.ALREADY_ACKNOWLEDGED` (also when another
   *   acknowledgement wins the race)
   * @throws DomainError 422 `MANAGEMENT.REASON_REQUIRED`: the reason, trimmed, is not 3..500 characters with at
   *   least 3 visible (the management decisions' rule, `checkReason` of `@ledger/shoe`); it is recorded trimmed
   */
  async acknowledge(requested: string, p: Principal, reason: string): Promise<AcknowledgementAnswer> {
    const id = requested.toLowerCase();
    const why = checkReason(reason, 'MANAGEMENT.REASON_REQUIRED');
    const stream = UUID.test(id) ? await this.store.readStream(significantStreamId(id)) : [];
    const raise = stream.find((e): e is LedgerEvent<'SignificantEventRaised'> => e.type === 'SignificantEventRaised');
    if (!raise) throw ApiError.of('SIGNIFICANT.NOT_FOUND', { significantEventId: id.slice(0, 64) });
    const done = stream.find((e): e is LedgerEvent<'SignificantEventAcknowledged'> => e.type === 'SignificantEventAcknowledged');
    if (done) throw ApiError.of('SIGNIFICANT.ALREADY_ACKNOWLEDGED', { significantEventId: id, acknowledgedBy: done.data.acknowledgedBy });
    if (raisersOf(raise.data).has(p.id)) {
      throw new ApiError('MANAGEMENT.SAME_APPROVER', `${p.id} had a hand in what raised significant event ${id} and may not acknowledge it: a second person must`, { significantEventId: id, actorId: p.id });
    }
    const role = p.role === 'auditor' ? 'auditor' : 'pit-manager';
    const data = { significantEventId: id, code: raise.data.code, reason: why, acknowledgedBy: p.id, role } as const;
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
