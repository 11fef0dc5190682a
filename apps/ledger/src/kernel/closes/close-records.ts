import { Inject, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import type { KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import { checkDayStream, readPublicKeys, sha256OfText, type CloseCheck, type CloseProblem } from '@ledger/anchors';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import { PgEventStore } from '@ledger/event-store';
import { gamingDayStreamId, type EarlyCloseApproval, type GamingDayClosedData, type LedgerEvent } from '@ledger/events';
import { DATA_SOURCE, EVENT_STORE } from '../tokens';
import { exec, rows as sqlRows } from '../sql';
import { canonicalReportBytes, CLOSE_REPORT_VERSIONS, type CloseReportBody } from './close-report';
import { ReportSigningKey } from './report-signing-key';

/**
 * The injection token of the report computation (`CloseComputation`, close-computation.service.ts): it
 * computes a close's report from the events at a position. Looked up when a close's bytes are missing.
 */
export const CLOSE_REPORT_COMPUTATION = Symbol('CLOSE_REPORT_COMPUTATION');

/** What a close's report is computed for: the day, the table set, the last position covered, and what is signed with the figures. */
export interface CloseScope {
  /** `YYYY-MM-DD`. */
  readonly gamingDay: string;
  readonly tableIds: readonly string[];
  readonly throughPosition: bigint;
  readonly trigger: 'MANAGER' | 'AUTOMATIC';
  readonly early: EarlyCloseApproval | null;
  /** The report's layout (`CLOSE_REPORT_VERSIONS`); absent: the current one, `CLOSE_REPORT_VERSION`. */
  readonly reportVersion?: number;
}

/** What {@link CLOSE_REPORT_COMPUTATION} provides. */
export interface ReportComputation {
  body(close: CloseScope): Promise<CloseReportBody>;
}

/** Close events whose missing bytes one read computes again at most (each is a whole report). */
const RECOMPUTES_PER_READ = 2;
/** Refusals remembered by event id (a refused close stays refused: its event and signature are immutable). */
const REFUSALS_REMEMBERED = 1_000;

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
  private readonly logger = new Logger('CloseRecords');
  private readonly scope: string;
  private readonly publicKeyFiles: string[];
  private publicKeys: Map<string, KeyObject> | null = null;
  /** Close events refused for good (by event id, bounded): their bytes are not computed again. */
  private readonly refusals = new Map<string, NotGenuine>();
  /** Close events whose bytes the running check computed again (stored when the close is genuine). */
  private readonly recomputedIds = new Set<string>();
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
    this.publicKeyFiles = config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }).map((f) => resolve(f));
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
    const { genuine, notGenuine } = await this.check(events);
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
    const { genuine, notGenuine } = await this.check(await this.ownDayEvents());
    const closes = genuine.sort((a, b) => (a.gamingDay < b.gamingDay ? -1 : a.gamingDay > b.gamingDay ? 1 : Number(BigInt(a.closeId) - BigInt(b.closeId))));
    return { closes, refused: notGenuine.map(refusedClose) };
  }

  /**
   * The genuine closes with a position below `position` (the closes an adjustment at `position` can
   * follow), as (day, table set, position). Closes that fail their check are left out.
   */
  async genuineBefore(position: bigint): Promise<{ gamingDay: string; tableIds: string[]; throughPosition: bigint; closeId: string }[]> {
    const { genuine } = await this.check(await this.ownDayEvents());
    return genuine.filter((c) => BigInt(c.throughPosition) < position).map((c) => ({ gamingDay: c.gamingDay, tableIds: c.tableIds, throughPosition: BigInt(c.throughPosition), closeId: c.closeId }));
  }

  /** Stores the report bytes of a close beside its event (idempotent by event id). */
  async storeReport(close: StoredClose, bytes: string): Promise<void> {
    await exec(
      this.ds,
      `INSERT INTO gaming_day_closes (scope, gaming_day, table_ids, through_position, report, report_sha256, signature, key_id, trigger, closed_by, closed_by_role, event_id)
       VALUES ($1, $2::date, $3::text[], $4::bigint, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (event_id) DO NOTHING`,
      [this.scope, close.gamingDay, close.tableIds, close.throughPosition, bytes, close.sha256, close.signature, close.keyId, close.trigger, close.closedBy, close.closedByRole, close.eventId],
    );
  }

  /** This ledger's day-stream events (its scope's requests and closes), in global order. */
  private async ownDayEvents(): Promise<LedgerEvent[]> {
    return (await this.store.readByTypes(['GamingDayCloseRequested', 'GamingDayClosed'])).filter((e) => e.streamId === this.streamOf(String((e.data as { gamingDay?: unknown })?.gamingDay)));
  }

  /**
   * The public keys a close may be signed with: the anchor public keys (`ANCHOR_PUBLIC_KEY_FILE`,
   * several files for rotated-out keys), and the current signing key's where one is configured. Reads
   * need no private key.
   */
  private async keys(): Promise<Map<string, KeyObject>> {
    if (this.publicKeys) return this.publicKeys;
    const keys = new Map<string, KeyObject>();
    try {
      for (const [id, k] of readPublicKeys(this.publicKeyFiles)) keys.set(id, k);
    } catch (err) {
      this.logger.warn(`close checks: ${(err as Error).message.slice(0, 200)}`);
    }
    // the signing key's (from the key file, or asked of the report signer); none here: the public keys alone check closes
    const k = await this.key.publicKey();
    if (k) keys.set(k.keyId, k.publicKey);
    if (keys.size > 0 && (k || !this.key.remote)) this.publicKeys = keys; // a signer not reached now is asked again
    return keys;
  }

  /**
   * Checks every close among `events` (requests and closes of one or more day streams) in its stream's
   * order ({@link checkDayStream}); the bytes of a close not stored are computed again (at most
   * {@link RECOMPUTES_PER_READ} a read) and stored when they hash to the event's.
   */
  private async check(events: readonly LedgerEvent[]): Promise<{ genuine: StoredCloseWithBytes[]; notGenuine: NotGenuine[] }> {
    const closes = events.filter(isClose);
    if (closes.length === 0) return { genuine: [], notGenuine: [] };
    const bytesOf = await this.bytesOf(closes);
    const checks = new Map<string, CloseCheck>();
    const byStream = new Map<string, LedgerEvent[]>();
    for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
    const keys = await this.keys();
    for (const stream of byStream.values()) {
      const ordered = stream.sort((a, b) => a.streamVersion - b.streamVersion);
      for (const [id, c] of checkDayStream(ordered, (id) => bytesOf.get(id) ?? null, keys)) checks.set(id, c);
    }
    const genuine: StoredCloseWithBytes[] = [];
    const notGenuine: NotGenuine[] = [];
    for (const e of closes) {
      const c = checks.get(e.eventId) ?? { problem: 'MALFORMED' as const, detail: 'not checked' };
      const bytes = bytesOf.get(e.eventId) ?? null;
      const close = storedClose(e);
      if (c.problem === null && bytes !== null) {
        if (this.recomputedIds.has(e.eventId)) await this.storeReport(close, bytes);
        genuine.push({ ...close, bytes });
      } else {
        const refused = { eventId: e.eventId, day: String(e.data?.gamingDay), problem: c.problem ?? 'MALFORMED', detail: c.detail };
        if (refused.problem !== 'REPORT_MISSING') this.remember(refused);
        notGenuine.push(refused);
      }
    }
    this.recomputedIds.clear();
    return { genuine, notGenuine };
  }

  /** The stored bytes of each close, and those computed again for closes stored without them (see {@link check}). */
  private async bytesOf(closes: readonly LedgerEvent<'GamingDayClosed'>[]): Promise<Map<string, string>> {
    const rows = await sqlRows<ReportRow>(this.ds, `SELECT event_id, report FROM gaming_day_closes WHERE event_id = ANY($1::text[])`, [closes.map((e) => e.eventId)]);
    const bytes = new Map(rows.map((r) => [r.event_id, r.report]));
    let budget = RECOMPUTES_PER_READ;
    for (const e of closes) {
      if (bytes.has(e.eventId) || this.refusals.has(e.eventId) || budget <= 0) continue;
      budget--;
      const text = await this.recomputed(e.data);
      if (text !== null) {
        bytes.set(e.eventId, text);
        this.recomputedIds.add(e.eventId);
      }
    }
    return bytes;
  }

  private remember(refused: NotGenuine): void {
    if (this.refusals.size >= REFUSALS_REMEMBERED) this.refusals.delete(this.refusals.keys().next().value as string);
    this.refusals.set(refused.eventId, refused);
  }

  /** The report of a close whose bytes are not stored, computed again from the events at its position; null when they do not hash to the event's. */
  private async recomputed(d: GamingDayClosedData): Promise<string | null> {
    try {
      const computation = this.moduleRef.get<ReportComputation>(CLOSE_REPORT_COMPUTATION, { strict: false });
      // in the layout the close was signed in: the newest first (a close without clockSkew is of layout 1)
      for (const reportVersion of CLOSE_REPORT_VERSIONS.filter((v) => (d.clockSkew === undefined ? v < 2 : v >= 2))) {
        const body = await computation.body({ gamingDay: d.gamingDay, tableIds: d.tableIds, throughPosition: BigInt(d.throughPosition), trigger: d.trigger, early: d.early ?? null, reportVersion });
        const text = canonicalReportBytes(body).toString('utf8');
        if (sha256OfText(text) === d.reportSha256) return text;
      }
      return null;
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
