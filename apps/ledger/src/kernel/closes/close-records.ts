import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import type { KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { checkGamingDayClose, sha256OfText, type CloseProblem } from '@ledger/anchors';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import { PgEventStore } from '@ledger/event-store';
import { gamingDayStreamId, type EarlyCloseApproval, type GamingDayClosedData, type LedgerEvent } from '@ledger/events';
import { DATA_SOURCE, EVENT_STORE } from '../tokens';
import { canonicalReportBytes, type CloseReportBody } from './close-report';
import { ReportSigningKey } from './report-signing-key';

/**
 * The injection token of the report computation (`CloseComputation`, close-computation.service.ts): it
 * computes a close's report from the events at a position. Looked up when a close's bytes are missing.
 */
export const CLOSE_REPORT_COMPUTATION = Symbol('CLOSE_REPORT_COMPUTATION');

/** What {@link CLOSE_REPORT_COMPUTATION} provides. */
export interface ReportComputation {
  body(day: string, tableIds: readonly string[], position: bigint): Promise<CloseReportBody>;
}

/** A genuine close (docs/reports.md §2): its `GamingDayClosed` event, checked against its signed report. */
export interface StoredClose {
  /** The global position of the close's event (decimal string): the close's id. */
  closeId: string;
  /** The `GamingDayClosed` event. */
  eventId: string;
  gamingDay: string;
  tableIds: string[];
  throughPosition: string;
  trigger: 'MANAGER' | 'AUTOMATIC';
  closedBy: string;
  closedByRole: string;
  /** The event's `recordedAt` (ledger clock; not signed). */
  closedAt: string;
  keyId: string;
  signature: string;
  sha256: string;
  /** An early close's request and approval (four eyes), else null. */
  early: EarlyCloseApproval | null;
}

/** A genuine close with its exact signed bytes. */
export type StoredCloseWithBytes = StoredClose & { bytes: string };

/** A close event that failed its check ({@link checkGamingDayClose}): refused, never served as a close. */
export interface RefusedClose {
  readonly eventId: string;
  readonly gamingDay: string;
  /** The check's code (`BAD_SIGNATURE`, `REPLAYED`, …). */
  readonly problem: CloseProblem;
  readonly detail: string;
}

/** Genuine closes and refused close events. */
export interface CloseSet {
  readonly closes: StoredCloseWithBytes[];
  readonly refused: RefusedClose[];
}

interface ReportRow {
  event_id: string;
  report: string;
}

/**
 * The gaming-day closes as the ledger records them (docs/reports.md §2): each is a `GamingDayClosed`
 * event of the stream `gaming-day-<day>` (append-only, hash-chained, anchored); its report bytes are
 * kept in `gaming_day_closes` by event id. Every read checks every close it returns
 * ({@link checkGamingDayClose}: bytes hash to the event's SHA-256, the signature verifies, the bytes
 * name the event's day, tables and position). A close whose bytes are missing is computed again from
 * the events at its position (the report is a function of them) and stored again when it matches.
 * Rows of `gaming_day_closes` that no event names are never read: a forged row is not a close.
 */
@Injectable()
export class CloseRecords {
  private readonly scope: string;
  /** The ledger's scope in its day streams: null for the default events topic (see `gamingDayStreamId`). */
  private readonly streamScope: string | null;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly key: ReportSigningKey,
    // the computation reads the closes too (adjustments): resolved when first needed, not at construction
    private readonly moduleRef: ModuleRef,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.scope = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    this.streamScope = this.scope === DEFAULT_EVENTS_TOPIC ? null : this.scope;
  }

  /** The stream of this ledger's gaming day `day`. */
  streamOf(day: string): string {
    return gamingDayStreamId(day, this.streamScope);
  }

  /**
   * The stream of `day` as it stands: its version, its close requests and its events (for the caller's
   * optimistic append), and its closes split into genuine ones and the others (not checked further).
   */
  async dayStream(day: string): Promise<{ version: number; events: LedgerEvent[]; genuine: StoredCloseWithBytes[]; notGenuine: NotGenuine[] }> {
    const events = await this.store.readStream(this.streamOf(day));
    const { genuine, notGenuine } = await this.check(events.filter(isClose));
    return { version: events.length, events, genuine, notGenuine };
  }

  /**
   * The closes of `day`: the genuine ones, each with its exact signed bytes, in close order, and the
   * close events that fail their check (forged or replayed: refused, never served as closes).
   */
  async ofDay(day: string): Promise<CloseSet> {
    const { genuine, notGenuine } = await this.dayStream(day);
    return { closes: genuine, refused: notGenuine.map(refusedClose) };
  }

  /** Every close of the ledger, genuine ones by gaming day then close order, and those refused. */
  async all(): Promise<CloseSet> {
    const events = await this.ownCloses();
    const { genuine, notGenuine } = await this.check(events);
    const closes = genuine.sort((a, b) => (a.gamingDay < b.gamingDay ? -1 : a.gamingDay > b.gamingDay ? 1 : Number(BigInt(a.closeId) - BigInt(b.closeId))));
    return { closes, refused: notGenuine.map(refusedClose) };
  }

  /**
   * The genuine closes with a position below `position` (the closes an adjustment at `position` can
   * follow), as (day, table set, position). Closes that fail their check are left out.
   */
  async genuineBefore(position: bigint): Promise<{ gamingDay: string; tableIds: string[]; throughPosition: bigint; closeId: string }[]> {
    const events = (await this.ownCloses()).filter((e) => BigInt(e.data.throughPosition) < position);
    const { genuine } = await this.check(events);
    return genuine.map((c) => ({ gamingDay: c.gamingDay, tableIds: c.tableIds, throughPosition: BigInt(c.throughPosition), closeId: c.closeId }));
  }

  /** Stores the report bytes of a close beside its event (idempotent by event id). */
  async storeReport(close: StoredClose, bytes: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO gaming_day_closes (scope, gaming_day, table_ids, through_position, report, report_sha256, signature, key_id, trigger, closed_by, closed_by_role, event_id)
       VALUES ($1, $2::date, $3::text[], $4::bigint, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (event_id) DO NOTHING`,
      [this.scope, close.gamingDay, close.tableIds, close.throughPosition, bytes, close.sha256, close.signature, close.keyId, close.trigger, close.closedBy, close.closedByRole, close.eventId],
    );
  }

  /** This ledger's close events (its scope's day streams), in global order. */
  private async ownCloses(): Promise<LedgerEvent<'GamingDayClosed'>[]> {
    return (await this.store.readByTypes(['GamingDayClosed'])).filter(isClose).filter((e) => e.streamId === this.streamOf(String(e.data?.gamingDay)));
  }

  private keys(): Map<string, KeyObject> {
    const k = this.key.get();
    return new Map([[k.keyId, k.publicKey]]);
  }

  private async check(events: LedgerEvent<'GamingDayClosed'>[]): Promise<{ genuine: StoredCloseWithBytes[]; notGenuine: NotGenuine[] }> {
    if (events.length === 0) return { genuine: [], notGenuine: [] };
    const keys = this.keys();
    const rows: ReportRow[] = await this.ds.query(`SELECT event_id, report FROM gaming_day_closes WHERE event_id = ANY($1::text[])`, [events.map((e) => e.eventId)]);
    const bytesOf = new Map(rows.map((r) => [r.event_id, r.report]));
    const genuine: StoredCloseWithBytes[] = [];
    const notGenuine: NotGenuine[] = [];
    for (const e of events) {
      let bytes = bytesOf.get(e.eventId) ?? null;
      if (bytes === null) bytes = await this.recomputed(e.data);
      const c = checkGamingDayClose({ streamId: e.streamId, data: e.data, bytes }, keys);
      const close = storedClose(e);
      if (c.problem === null && bytes !== null) {
        if (!bytesOf.has(e.eventId)) await this.storeReport(close, bytes);
        genuine.push({ ...close, bytes });
      } else notGenuine.push({ eventId: e.eventId, day: String(e.data?.gamingDay), problem: c.problem ?? 'MALFORMED', detail: c.detail });
    }
    return { genuine, notGenuine };
  }

  /** The report of a close whose bytes are not stored, computed again from the events at its position; null when they do not hash to the event's. */
  private async recomputed(d: GamingDayClosedData): Promise<string | null> {
    try {
      const computation = this.moduleRef.get<ReportComputation>(CLOSE_REPORT_COMPUTATION, { strict: false });
      const text = canonicalReportBytes(await computation.body(d.gamingDay, d.tableIds, BigInt(d.throughPosition))).toString('utf8');
      return sha256OfText(text) === d.reportSha256 ? text : null;
    } catch {
      return null;
    }
  }
}

function isClose(e: LedgerEvent): e is LedgerEvent<'GamingDayClosed'> {
  return e.type === 'GamingDayClosed';
}

/** The close record of a `GamingDayClosed` event. */
export function storedClose(e: LedgerEvent<'GamingDayClosed'>): StoredClose {
  const d = e.data;
  return {
    closeId: e.globalPosition,
    eventId: e.eventId,
    gamingDay: d.gamingDay,
    tableIds: [...d.tableIds],
    throughPosition: d.throughPosition,
    trigger: d.trigger,
    closedBy: e.actor.id,
    closedByRole: e.actor.role,
    closedAt: e.recordedAt,
    keyId: d.keyId,
    signature: d.signature,
    sha256: d.reportSha256,
    early: d.early ?? null,
  };
}

interface NotGenuine {
  eventId: string;
  day: string;
  problem: CloseProblem;
  detail: string;
}

function refusedClose(n: NotGenuine): RefusedClose {
  return { eventId: n.eventId, gamingDay: n.day, problem: n.problem, detail: n.detail };
}
