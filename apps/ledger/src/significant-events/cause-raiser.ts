import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import type { PgEventStore } from '@ledger/event-store';
import { withTimeout } from '@ledger/infra';
import type { LedgerEvent, SignificantEventRaisedData } from '@ledger/events';
import type { ReadModel } from '@ledger/read-model';
import {
  FloodWindows,
  PROJECTOR_RECORD_CODES,
  RAISER_ACTORS,
  refusalCodeFor,
  STORM_CODE,
  StormCounter,
  verifierCodeFor,
  type DueWindow,
  type FloodOutcome,
  type SignificantEventCode,
  type SignificantEventDraft,
} from '@ledger/significant-events';
import { setSignificantTaps, type DivergenceSeen, type RefusalSeen } from '../kernel/significant-taps';
import { EVENT_STORE, READ_MODEL } from '../kernel/tokens';
import { appendRaiseData, nonEventRaiseData, windowedRaiseData } from './raise';
import { significantMetrics } from './significant-metrics';

/** The most (code, subject, window) windows open at once; a cause that would open one more is dropped and counted. */
export const MAX_OPEN_WINDOWS = 10_000;
/** The most raises waiting to be appended (storms, divergences, projector records); beyond it they are dropped and counted. */
export const MAX_PENDING_RAISES = 1_000;
/** How often the raiser appends what is due, in ms (a window is raised at most this long after it ends). */
const FLUSH_MS = 500;
/** The most quarantined records or incidents read per poll. */
const POLL_LIMIT = 200;

/** The first cause of a window: a refusal, or a device's skewed fact (its draft and dealer). */
type FirstCause =
  | { readonly kind: 'refusal'; readonly r: RefusalSeen & { readonly actor: { readonly id: string; readonly role: string } } }
  | { readonly kind: 'event'; readonly e: LedgerEvent; readonly draft: SignificantEventDraft; readonly dealer: string | null };

/** A raise waiting to be appended. */
interface Pending {
  readonly data: SignificantEventRaisedData;
  readonly tableId: string | null;
  readonly correlationId?: string;
  readonly causationId?: string;
}

/** The data of a window's raise, with the metadata of its append; a refusal's table, when only its shoe is known, read from the store. */
async function windowRaise(w: DueWindow<FirstCause>, store: PgEventStore): Promise<Pending> {
  const f = w.first;
  if (f.kind === 'event') return { data: windowedRaiseData(f.e, f.draft, f.dealer, w.window), tableId: f.e.tableId, correlationId: f.e.correlationId, causationId: f.e.eventId };
  const r = f.r.tableId === null && f.r.shoeId !== null ? { ...f.r, tableId: await store.tableOfStream(`shoe-${f.r.shoeId}`) } : f.r;
  const cause = {
    kind: 'refusal',
    errorCode: r.code,
    ...(r.reason ? { reason: r.reason } : {}),
    requestId: r.requestId ?? 'unknown',
    actorId: r.actor.id,
    actorRole: r.actor.role,
    ...(r.tableId ? { tableId: r.tableId } : {}),
    window: w.window,
  } as const;
  const details = { errorCode: r.code, ...(r.reason ? { reason: r.reason } : {}), count: String(w.window.count), windowStart: w.window.start, windowSeconds: String(w.window.seconds) };
  return { data: nonEventRaiseData({ code: w.code, cause, actor: r.actor.id, tableId: r.tableId, details }), tableId: r.tableId };
}

/** Where a divergence is: `anchor <seq>`, else `stream@version#event`. */
function whereOf(d: DivergenceSeen): string {
  return d.anchorSeq !== null && d.streamId === null ? `anchor ${d.anchorSeq}` : `${d.streamId ?? '-'}@${d.version ?? '-'}#${d.eventId ?? '-'}`;
}

/**
 * The significant events whose cause is not a ledger event (docs/significant-events.md, "Causes"),
 * raised by the API (its role may append), when `SIGNIFICANT_MONITOR` is true:
 * - refusals (`tapRefusal` of the exception filter) whose code the catalogue lists (`CARD.WRONG`,
 *   `CARD.ACCOUNTING_ANOMALY`, `DEVICE.CLOCK_SKEW`, `READ_MODEL.DIVERGED`), and the monitor's skewed
 *   device facts: gathered per (code, caller or device, window of `SIGNIFICANT_FLOOD_WINDOW_SECONDS`)
 *   in bounded memory, one raise per window when it ends, with the count;
 * - 429 refusals: `RATE.LIMIT_STORM` once per minute when they reach `RATE_LIMIT_STORM_PER_MINUTE`;
 * - the verifier's divergences (`GET /audit/anchors/verify`): `CHAIN.DIVERGED` / `ANCHOR.DIVERGED`,
 *   the first divergence of each (kind, source) of a report with how many there were, keyed by it
 *   (the same divergence found again raises nothing new);
 * - the projector's quarantined records and incidents, read every `SIGNIFICANT_PROJECTOR_POLL_MS`.
 * Everything is appended in the background (never on a request's path), a bounded queue; a cause
 * not raised (queue full, the append failed) is counted (`ledger_significant_event_causes_dropped_total`)
 * and logged once per flush. A window still open when the API stops is raised at stop.
 */
@Injectable()
export class SignificantCauseRaiser implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SignificantCauseRaiser');
  private readonly windows: FloodWindows<FirstCause>;
  private readonly storm: StormCounter;
  private readonly pending: Pending[] = [];
  /** The first cause of each window opened since the last flush: raised at once. */
  private readonly firsts: DueWindow<FirstCause>[] = [];
  private timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> | null = null;
  private polling = false;
  private quarantineCursor = { atUs: '-1', key: '' };
  private incidentCursor = '0';

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(READ_MODEL) private readonly read: ReadModel,
    @Inject(ConfigService) private readonly config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.windows = new FloodWindows({ seconds: config.get('SIGNIFICANT_FLOOD_WINDOW_SECONDS', { infer: true }), maxOpen: MAX_OPEN_WINDOWS });
    this.storm = new StormCounter(config.get('RATE_LIMIT_STORM_PER_MINUTE', { infer: true }));
  }

  /** Whether it raises (`SIGNIFICANT_MONITOR`). */
  get enabled(): boolean {
    return this.config.get('SIGNIFICANT_MONITOR', { infer: true });
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    setSignificantTaps({ refusal: (r) => this.refusal(r), divergences: (d) => this.divergences(d) });
    this.timers = [setInterval(() => void this.flush(), FLUSH_MS), setInterval(() => void this.pollProjector(), this.config.get('SIGNIFICANT_PROJECTOR_POLL_MS', { infer: true }))];
    for (const t of this.timers) t.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (!this.enabled) return;
    setSignificantTaps(null);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    // the open windows' rest is raised at the stop, waiting 3 s at most: the API's stop is never held by it
    await withTimeout(this.flush(true), 3_000, 'significant events: the last flush').catch((err: unknown) => this.logger.warn((err as Error).message));
  }

  /** Counts a refusal (constant time): a 429 towards the storm, a catalogued refusal of a caller into its window. */
  refusal(r: RefusalSeen): void {
    if (r.status === 429) {
      const w = this.storm.add(r.atMs);
      const threshold = this.config.get('RATE_LIMIT_STORM_PER_MINUTE', { infer: true });
      if (w)
        this.enqueue(STORM_CODE, {
          data: nonEventRaiseData({
            code: STORM_CODE,
            cause: { kind: 'rate-limit-window', window: w, threshold },
            actor: RAISER_ACTORS['rate-limit-window'],
            details: { count: String(w.count), threshold: String(threshold), windowStart: w.start },
          }),
          tableId: null,
        });
      return;
    }
    const code = refusalCodeFor(r.code, r.reason);
    if (!code || !r.actor) return;
    const actor = r.actor;
    const first: FirstCause = { kind: 'refusal', r: { ...r, actor } };
    this.admit(code, first, this.windows.add({ code, subject: `${actor.role}:${actor.id}`, atMs: r.atMs, first }));
  }

  /** Counts a device's skewed fact (the monitor's `DEVICE.CLOCK_SKEW` draft) into its device's window of its `recordedAt`. */
  skewedFact(e: LedgerEvent, draft: SignificantEventDraft, dealer: string | null): void {
    const first: FirstCause = { kind: 'event', e, draft, dealer };
    this.admit(draft.code, first, this.windows.add({ code: draft.code, subject: `${e.actor.role}:${e.actor.id}`, atMs: Date.parse(e.recordedAt), first }));
  }

  /** Queues one raise per (divergence kind, source) of a verification's report that raises a code, named by its first divergence. */
  divergences(found: readonly DivergenceSeen[]): void {
    const firsts = new Map<string, { d: DivergenceSeen; n: number }>();
    for (const d of found) {
      if (!verifierCodeFor(d.kind)) continue;
      const k = `${d.kind}|${d.source}`;
      const f = firsts.get(k);
      if (f) f.n++;
      else firsts.set(k, { d, n: 1 });
    }
    for (const { d, n } of firsts.values()) {
      const code = verifierCodeFor(d.kind)!;
      const cause = { kind: 'verifier', divergence: d.kind, source: d.source, where: whereOf(d) } as const;
      this.enqueue(code, { data: nonEventRaiseData({ code, cause, actor: RAISER_ACTORS.verifier, details: { reason: d.reason.slice(0, 500), found: String(n) } }), tableId: null });
    }
  }

  /** Appends every due window and queued raise (all open windows too with `all`). One flush at a time. */
  flush(all = false): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.appendDue(all).finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async appendDue(all: boolean): Promise<void> {
    const jobs: (Pending | DueWindow<FirstCause>)[] = [...this.firsts.splice(0), ...this.windows.due(Date.now(), all), ...this.pending.splice(0)];
    let failed = 0;
    let lastError = '';
    for (const job of jobs) {
      const code = 'data' in job ? job.data.code : job.code;
      try {
        const j = 'data' in job ? job : await windowRaise(job, this.store);
        if (!(await appendRaiseData(this.store, j.data, j))) continue;
        significantMetrics.raised.inc({ code: j.data.code, severity: j.data.severity });
        const count = Number((j.data.cause as { window?: { count?: number } }).window?.count ?? 1);
        if (count > 1) significantMetrics.causesCoalesced.inc({ code: j.data.code }, count - 1);
      } catch (err) {
        failed++;
        lastError = (err as Error).message;
        significantMetrics.causesDropped.inc({ code });
      }
    }
    // bounded logging: one line per flush whatever failed
    if (failed > 0) this.logger.warn(`significant events: ${failed} raise(s) not appended (counted in ledger_significant_event_causes_dropped_total): ${lastError}`);
  }

  /** Reads the projector's new quarantined records and incidents and queues their raises (one poll at a time; each read on its own). */
  async pollProjector(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.readQuarantine().catch((err: unknown) => this.logger.warn(`significant events: the projector's quarantine not read: ${(err as Error).message}`));
      await this.readIncidents().catch((err: unknown) => this.logger.warn(`significant events: the projector's incidents not read: ${(err as Error).message}`));
    } finally {
      this.polling = false;
    }
  }

  private async readQuarantine(): Promise<void> {
    for (const q of await this.read.health.quarantinedAfter(this.quarantineCursor, POLL_LIMIT)) {
      const key = `${q.topic}/${q.partition}/${q.kafka_offset}`;
      this.quarantineCursor = { atUs: q.at_us, key };
      // the record's place and when it was quarantined: a topic re-created reuses offsets
      const cause = { kind: 'projector', record: 'quarantine', key: `${key}@${q.at_us}`, consumerGroup: q.consumer_group, reason: q.reason } as const;
      const details = { reason: q.reason, ...(q.stream_id ? { streamId: q.stream_id } : {}) };
      this.enqueue(PROJECTOR_RECORD_CODES.quarantine, { data: nonEventRaiseData({ code: PROJECTOR_RECORD_CODES.quarantine, cause, actor: RAISER_ACTORS.projector, details }), tableId: null });
    }
  }

  private async readIncidents(): Promise<void> {
    for (const i of await this.read.health.incidentsAfter(this.incidentCursor, POLL_LIMIT)) {
      this.incidentCursor = i.id;
      // the partition, when it halted and the incident's id: a read model rebuilt numbers its incidents from 1 again
      const cause = { kind: 'projector', record: 'incident', key: `${i.topic}/${i.partition}@${i.at_us}#${i.id}`, consumerGroup: i.consumer_group, reason: i.code } as const;
      const details = { code: i.code, partition: `${i.topic}/${i.partition}`, ...(i.projection ? { projection: i.projection } : {}) };
      this.enqueue(PROJECTOR_RECORD_CODES.incident, { data: nonEventRaiseData({ code: PROJECTOR_RECORD_CODES.incident, cause, actor: RAISER_ACTORS.projector, details }), tableId: null });
    }
  }

  private enqueue(code: SignificantEventCode, p: Pending): void {
    if (this.pending.length >= MAX_PENDING_RAISES) significantMetrics.causesDropped.inc({ code });
    else this.pending.push(p);
  }

  /** A window's first cause is raised at once (the next flush, started now); a dropped one is counted. */
  private admit(code: SignificantEventCode, first: FirstCause, o: FloodOutcome): void {
    if (o.outcome === 'dropped') significantMetrics.causesDropped.inc({ code });
    if (o.outcome !== 'opened') return;
    this.firsts.push({ code, first, window: o.first });
    void this.flush();
  }
}
