import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import type { LedgerApiEnv } from '@ledger/config';
import { ConcurrencyError, PgEventStore } from '@ledger/event-store';
import { EARLY_CLOSE_TTL_MS, LEDGER_WIDE_TABLE_ID, type EarlyCloseApproval, type GamingDayCloseRequestedData, type LedgerEvent, type NewEvent, type Role } from '@ledger/events';
import { gamingDay, gamingDayEnd, type GamingDayConfig } from '@ledger/projections';
import { checkReason } from '@ledger/shoe';
import { ApiError } from '../kernel/api-error';
import { DATA_SOURCE, EVENT_STORE } from '../kernel/tokens';
import type { DataSource } from 'typeorm';
import { CloseEntriesCheck } from './close-entries-check';
import { TablesRegistry } from '../kernel/tables/tables.registry';
import { AsOfPositionService } from '../kernel/as-of/as-of-position.service';
import { CloseComputation } from './close-computation.service';
import { canonicalReportBytes, closeReportVersionOf, sha256Hex, type CloseReportBody } from '../kernel/closes/close-report';
import { CloseRecords, storedClose, type CloseScope, type RefusedClose, type StoredClose, type StoredCloseWithBytes } from '../kernel/closes/close-records';
import { ReportSigningKey } from '../kernel/closes/report-signing-key';

export type { RefusedClose, StoredClose, StoredCloseWithBytes } from '../kernel/closes/close-records';

/** Who closes a day: a pit manager (`MANAGER`) or the API's sweeper (`AUTOMATIC`). */
export interface CloseActor {
  readonly id: string;
  readonly role: string;
  readonly trigger: 'MANAGER' | 'AUTOMATIC';
}

/** An early-close request as it stands (docs/reports.md §2). */
export interface EarlyCloseRequestView {
  readonly requestId: string;
  readonly gamingDay: string;
  readonly tableIds: string[] | null;
  readonly reason: string;
  readonly requestedBy: string;
  /** ISO-8601: the request event's `recordedAt`. */
  readonly requestedAt: string;
  /** ISO-8601: the earlier of the request's `expiresAt` and one hour after `requestedAt`. */
  readonly expiresAt: string;
  readonly status: 'PENDING_APPROVAL' | 'APPROVED' | 'EXPIRED';
  readonly approvedBy: string | null;
  readonly closeEventId: string | null;
}

/** A pending request to close a gaming day early (docs/reports.md §2), as answered to its requester. */
export interface EarlyCloseRequest {
  readonly requestId: string;
  readonly gamingDay: string;
  readonly tableIds: string[] | null;
  readonly reason: string;
  readonly requestedBy: string;
  readonly expiresAt: string;
  readonly status: 'PENDING_APPROVAL';
}

/** Appends lost to a concurrent close or request of the same day are tried again this many times. */
const APPEND_TRIES = 3;

/**
 * Closing gaming days (docs/reports.md §2). A close freezes the report of a day for a table set at the
 * latest projected global position, signs its canonical bytes with the report signing key and appends
 * it to the ledger as a `GamingDayClosed` event of the stream `gaming-day-<day>` (hash chain, outbox,
 * Kafka, anchors), with the bytes kept beside it ({@link CloseRecords}). Which tables of a day are
 * closed is read from that stream's genuine closes; the append's expected version serialises closes
 * of one day, whichever API instance makes them.
 *
 * The figures signed are the read model's only where they equal what the verified events give
 * ({@link CloseEntriesCheck}, in the same snapshot as the computation); else the close is refused.
 *
 * A day that has not ended (the current gaming day) is closed only with four eyes: one pit manager
 * asks with `early` and a reason (`GamingDayCloseRequested`), a second approves; the close records both.
 */
@Injectable()
export class GamingDayCloseService {
  private readonly logger = new Logger('GamingDayClose');
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly check: CloseEntriesCheck,
    private readonly positions: AsOfPositionService,
    private readonly computation: CloseComputation,
    private readonly records: CloseRecords,
    private readonly key: ReportSigningKey,
    private readonly tables: TablesRegistry,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  /** The gaming day an instant falls in (GAMING_DAY_TZ, GAMING_DAY_CUTOFF_HOUR). */
  dayOf(at: Date): string {
    return gamingDay(at.toISOString(), this.dayRule);
  }

  /**
   * Closes `day`, which has ended, for `tableIds` (null: every configured table not closed yet that day).
   * @returns the close with its report and bytes
   * @throws ApiError 422 `GAMING_DAY.NOT_STARTED` (a day after the current one), 422 `GAMING_DAY.NOT_ENDED`
   *   (the current day: see {@link requestEarlyClose}), 404 `TABLE.UNKNOWN`, 409 `GAMING_DAY.ALREADY_CLOSED`,
   *   409 `ASOF.NOT_PROJECTED`, 503 `GAMING_DAY.NO_SIGNING_KEY`
   */
  async close(day: string, tableIds: readonly string[] | null, actor: CloseActor, now: Date = new Date()): Promise<StoredCloseWithBytes & { report: CloseReportBody }> {
    const current = this.assertStarted(day, now);
    for (const t of tableIds ?? []) this.tables.get(t); // TABLE.UNKNOWN
    if (day === current) {
      throw new ApiError('GAMING_DAY.NOT_ENDED', `gaming day ${day} has not ended: closing it early needs early=true, a reason and a second pit manager's approval`, { day });
    }
    return this.closeNow(day, tableIds, actor, null);
  }

  /**
   * Asks to close the current gaming day before it ends (four eyes): records `GamingDayCloseRequested`.
   * @throws ApiError 422 `GAMING_DAY.NOT_STARTED`; 400 `VALIDATION.FAILED` for a day that has ended (close
   *   it plainly); 422 `MANAGEMENT.REASON_REQUIRED`; 404 `TABLE.UNKNOWN`; 409 `GAMING_DAY.ALREADY_CLOSED`
   */
  async requestEarlyClose(day: string, tableIds: readonly string[] | null, reason: string, requester: { id: string }, now: Date = new Date()): Promise<EarlyCloseRequest> {
    const current = this.assertStarted(day, now);
    if (day !== current) throw new ApiError('VALIDATION.FAILED', `gaming day ${day} has ended: close it without early`, { problems: ['early: only for the current gaming day'] });
    const why = checkReason(reason, 'MANAGEMENT.REASON_REQUIRED');
    for (const t of tableIds ?? []) this.tables.get(t); // TABLE.UNKNOWN
    const set = tableIds ? [...new Set(tableIds)].sort() : null;
    const data: GamingDayCloseRequestedData = {
      requestId: randomUUID(),
      gamingDay: day,
      tableIds: set,
      reason: why,
      requestedBy: requester.id,
      expiresAt: new Date(now.getTime() + EARLY_CLOSE_TTL_MS).toISOString(),
    };
    await this.appendToDay(day, { id: requester.id, role: 'pit-manager' }, async (stream) => {
      const closed = closedTables(stream.genuine);
      const already = (set ?? []).filter((t) => closed.has(t));
      if (already.length > 0) throw alreadyClosed(day, already);
      return { eventId: randomUUID(), type: 'GamingDayCloseRequested', data };
    });
    return { ...data, tableIds: set, status: 'PENDING_APPROVAL' };
  }

  /**
   * A second pit manager approves an early-close request: the day is closed for its table set.
   * @throws ApiError 404 `DECISION.NOT_FOUND`, 422 `MANAGEMENT.SAME_APPROVER`, 422 `DECISION.EXPIRED`,
   *   422 `DECISION.ALREADY_DECIDED`, and what {@link close} throws
   */
  async approveEarlyClose(day: string, requestId: string, approver: CloseActor, now: Date = new Date()): Promise<StoredCloseWithBytes & { report: CloseReportBody }> {
    this.assertStarted(day, now);
    const stream = await this.records.dayStream(day);
    const request = stream.events.find((e): e is LedgerEvent<'GamingDayCloseRequested'> => e.type === 'GamingDayCloseRequested' && e.data.requestId === requestId);
    if (!request) throw new ApiError('DECISION.NOT_FOUND', `no early-close request ${requestId} for gaming day ${day}`, { decisionId: requestId });
    const r = request.data;
    if (request.actor.id !== r.requestedBy || request.actor.role !== 'pit-manager') {
      // the envelope's actor is who made the request: one naming another requester was not made through the API
      throw new ApiError('DECISION.NOT_FOUND', `early-close request ${requestId} was not made by the pit manager it names: it cannot be approved`, { decisionId: requestId });
    }
    if (stream.genuine.some((c) => c.early?.requestId === requestId)) throw ApiError.of('DECISION.ALREADY_DECIDED', { decisionId: requestId, status: 'APPROVED' });
    if (approver.id === r.requestedBy) throw ApiError.of('MANAGEMENT.SAME_APPROVER');
    const expiresAt = new Date(Math.min(Date.parse(r.expiresAt), Date.parse(request.recordedAt) + EARLY_CLOSE_TTL_MS)).toISOString();
    if (now.toISOString() > expiresAt) throw ApiError.of('DECISION.EXPIRED', { decisionId: requestId, expiresAt });
    return this.closeNow(day, r.tableIds, approver, { requestId, reason: r.reason, requestedBy: r.requestedBy, approvedBy: approver.id });
  }

  /**
   * The early-close requests of `day` made by the pit managers they name (a request event whose actor
   * is not its requester is left out: it cannot be approved), each with its status as of `now`.
   */
  async requests(day: string, now: Date = new Date()): Promise<EarlyCloseRequestView[]> {
    const stream = await this.records.dayStream(day);
    return stream.events
      .filter((e): e is LedgerEvent<'GamingDayCloseRequested'> => e.type === 'GamingDayCloseRequested' && e.actor.id === e.data.requestedBy && e.actor.role === 'pit-manager')
      .map((e) => {
        const r = e.data;
        const expiresAt = new Date(Math.min(Date.parse(r.expiresAt), Date.parse(e.recordedAt) + EARLY_CLOSE_TTL_MS)).toISOString();
        const close = stream.genuine.find((c) => c.early?.requestId === r.requestId) ?? null;
        const status = close ? 'APPROVED' : now.toISOString() > expiresAt ? 'EXPIRED' : 'PENDING_APPROVAL';
        return {
          requestId: r.requestId,
          gamingDay: r.gamingDay,
          tableIds: r.tableIds ? [...r.tableIds] : null,
          reason: r.reason,
          requestedBy: r.requestedBy,
          requestedAt: e.recordedAt,
          expiresAt,
          status,
          approvedBy: close?.early?.approvedBy ?? null,
          closeEventId: close?.eventId ?? null,
        };
      });
  }

  /** Every genuine close of this ledger, by gaming day then close order, and the close events refused (forged or replayed). */
  async list(): Promise<{ closes: StoredClose[]; refused: RefusedClose[] }> {
    const { closes, refused } = await this.records.all();
    this.logRefused(refused);
    return { closes: closes.map(({ bytes: _bytes, ...c }) => c), refused };
  }

  /**
   * The genuine closes of `day` (optionally only those covering `tableId`), each with its exact stored
   * bytes, and the close events of the day that fail their check (refused: never served as closes).
   * @throws ApiError 404 `GAMING_DAY.NOT_CLOSED` (no close event at all); 500 `GAMING_DAY.CLOSE_NOT_GENUINE`
   *   when the day's only close events are refused ones
   */
  async ofDay(day: string, tableId: string | null): Promise<{ closes: StoredCloseWithBytes[]; refused: RefusedClose[] }> {
    const set = await this.records.ofDay(day);
    this.logRefused(set.refused);
    const closes = set.closes.filter((c) => tableId === null || c.tableIds.includes(tableId));
    if (set.closes.length === 0 && set.refused.length > 0) {
      const r = set.refused[0];
      throw new ApiError('GAMING_DAY.CLOSE_NOT_GENUINE', `a close of gaming day ${day} (event ${r.eventId}) is not genuine (${r.problem}): it is not served; see npm run -s verify`, { day, eventId: r.eventId, problem: r.problem });
    }
    if (set.closes.length === 0) throw new ApiError('GAMING_DAY.NOT_CLOSED', `gaming day ${day} has no close${tableId ? ` for table ${tableId}` : ''}`, { day });
    return { closes, refused: set.refused };
  }

  private logRefused(refused: readonly RefusedClose[]): void {
    for (const r of refused.slice(0, 5)) this.logger.warn(`refused close event ${r.eventId} of gaming day ${r.gamingDay}: ${r.problem} (${r.detail.slice(0, 120)})`);
  }

  /**
   * The canonical bytes of a stored close computed again from the events at its position, in the
   * layout of its stored bytes when given (else the current one): they must equal the stored bytes
   * (docs/reports.md §2).
   */
  async recompute(close: StoredClose & { bytes?: string }): Promise<Buffer> {
    const reportVersion = close.bytes === undefined ? undefined : (closeReportVersionOf(close.bytes) ?? undefined);
    return canonicalReportBytes(await this.computation.body({ ...close, throughPosition: BigInt(close.throughPosition), reportVersion }));
  }

  /**
   * A day that has ended is closed only at a position covering every event recorded before its end
   * (the sweeper tries again at its next sweep).
   * @throws ApiError 409 `ASOF.NOT_PROJECTED` when the read model has not applied them all yet
   */
  private async assertDayProjected(day: string, position: bigint): Promise<void> {
    const needed = await this.positions.lastRecordedBefore(gamingDayEnd(day, this.dayRule));
    if (needed > position) {
      throw new ApiError('ASOF.NOT_PROJECTED', `the read model has not yet applied every event of gaming day ${day} (through ${needed}; applied through ${position}); retry later`, { position: needed.toString() });
    }
  }

  /** @returns the current gaming day @throws ApiError 422 `GAMING_DAY.NOT_STARTED` for a later day */
  private assertStarted(day: string, now: Date): string {
    const current = this.dayOf(now);
    if (day > current) throw new ApiError('GAMING_DAY.NOT_STARTED', `gaming day ${day} has not started yet (the current gaming day is ${current})`, { day, currentDay: current });
    return current;
  }

  private async closeNow(day: string, tableIds: readonly string[] | null, actor: CloseActor, early: EarlyCloseApproval | null): Promise<StoredCloseWithBytes & { report: CloseReportBody }> {
    const configured = this.tables.list().map((t) => t.tableId);
    for (const t of tableIds ?? []) this.tables.get(t); // TABLE.UNKNOWN
    const signer = await this.key.signer();
    let out: (StoredCloseWithBytes & { report: CloseReportBody }) | null = null;
    const role: Role = actor.trigger === 'AUTOMATIC' ? 'system' : 'pit-manager';
    const recorded = await this.appendToDay(day, { id: actor.id, role }, async (stream) => {
      const closed = closedTables(stream.genuine);
      const set = [...new Set(tableIds ?? configured.filter((t) => !closed.has(t)))].sort();
      const already = set.filter((t) => closed.has(t));
      if (set.length === 0 || already.length > 0) throw alreadyClosed(day, already.length ? already : [...closed].sort());
      const position = await this.positions.latestProjected();
      if (!early) await this.assertDayProjected(day, position);
      const report = await this.verifiedReport({ gamingDay: day, tableIds: set, throughPosition: position, trigger: actor.trigger, early });
      const bytes = canonicalReportBytes(report);
      const signature = await signer.sign('gaming-day-close', report);
      const data = {
        gamingDay: day,
        tableIds: set,
        throughPosition: position.toString(),
        reportSha256: sha256Hex(bytes),
        signature,
        keyId: signer.keyId,
        trigger: actor.trigger,
        ...(early ? { early } : {}),
        ...(report.clockSkew ? { clockSkew: report.clockSkew } : {}),
      };
      out = { report, bytes: bytes.toString('utf8') } as StoredCloseWithBytes & { report: CloseReportBody };
      return { eventId: randomUUID(), type: 'GamingDayClosed', data };
    });
    const close = storedClose(recorded as LedgerEvent<'GamingDayClosed'>);
    const { report, bytes } = out as unknown as { report: CloseReportBody; bytes: string };
    await this.records.storeReport(close, bytes);
    return { ...close, bytes, report };
  }

  /**
   * The report of `day` for `tables` at `position`, computed from the read model in one snapshot in
   * which the entries it sums are checked against the verified events ({@link CloseEntriesCheck}):
   * what is signed is what the events say, or nothing (docs/reports.md §2).
   * @throws ApiError 500 `GAMING_DAY.READ_MODEL_DIVERGED` (an incident is recorded)
   */
  private async verifiedReport(scope: CloseScope): Promise<CloseReportBody> {
    const { gamingDay: day, tableIds: tables, throughPosition: position } = scope;
    const closes = await this.records.genuineBefore(position);
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction('REPEATABLE READ');
      const report = await this.computation.body(scope, qr.manager);
      await this.check.assertAgrees(qr.manager, { day, tableIds: tables, position, closes, adjustments: report.adjustments });
      await qr.commitTransaction();
      return report;
    } finally {
      if (qr.isTransactionActive) await qr.rollbackTransaction();
      await qr.release();
    }
  }

  /**
   * Appends the event `decide` returns to the stream of `day`, at the version it read; on a lost race
   * (another close or request of the day appended first) reads the stream again and decides again.
   */
  private async appendToDay(day: string, actor: { id: string; role: Role }, decide: (stream: Awaited<ReturnType<CloseRecords['dayStream']>>) => Promise<NewEvent>): Promise<LedgerEvent> {
    for (let attempt = 1; ; attempt++) {
      const stream = await this.records.dayStream(day);
      const event = await decide(stream);
      try {
        const result = await this.store.append({
          streamId: this.records.streamOf(day),
          tableId: LEDGER_WIDE_TABLE_ID,
          expectedVersion: stream.version,
          events: [event],
          metadata: { actor, correlationId: event.eventId },
        });
        return result.events[0];
      } catch (err) {
        if (err instanceof ConcurrencyError && attempt < APPEND_TRIES) continue;
        throw err;
      }
    }
  }
}

function closedTables(closes: readonly StoredClose[]): Set<string> {
  return new Set(closes.flatMap((c) => c.tableIds));
}

function alreadyClosed(day: string, tableIds: readonly string[]): ApiError {
  return new ApiError('GAMING_DAY.ALREADY_CLOSED', `gaming day ${day} is already closed for table(s) ${tableIds.join(', ') || '(all)'}`, { day, tableIds: tableIds.join(',') });
}
