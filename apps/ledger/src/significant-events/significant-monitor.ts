import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { eventDataProblem, type PgEventStore } from '@ledger/event-store';
import { upcast, type EventEnvelope, type LedgerEvent } from '@ledger/events';
import { withTimeout } from '@ledger/infra';
import { createKafka, type IncomingMessage, type KafkaConsumer } from '@ledger/kafka';
import {
  configurationDrafts,
  CONTEXT_CAUSE_TYPES,
  dealerChangeDraft,
  detectionThresholds,
  detectSignificantEvents,
  WINDOWED_EVENT_CODES,
  type DetectionContext,
  type DetectionThresholds,
  type SignificantEventDraft,
} from '@ledger/significant-events';
import { EVENT_STORE } from '../kernel/tokens';
import { FairnessAlerts } from './fairness-alerts';
import { appendRaise, raiseData } from './raise';
import { significantMetrics } from './significant-metrics';
import { SignificantCauseRaiser } from './cause-raiser';

/** The longest the API's stop waits for the monitor to leave its group, in ms. */
const STOP_WAIT_MS = 3_000;

/** The longest a fetch of the monitor waits for records, in ms: bounds the raise's latency when the topic is quiet. */
const MONITOR_MAX_WAIT_MS = 100;

/** The event of a record's value, as far as the detector reads it (the truth is then read from PostgreSQL); null when it is not JSON. */
function recordEvent(m: IncomingMessage): LedgerEvent | null {
  try {
    const e = JSON.parse(m.value?.toString('utf8') ?? 'null') as LedgerEvent | null;
    return e && typeof e === 'object' && typeof e.eventId === 'string' && typeof e.type === 'string' && e.actor && e.data ? e : null;
  } catch {
    return null;
  }
}

/**
 * Whether the detector may read `e`: upcast, its data what its type's schema admits (`eventDataProblem`,
 * as the projector and verify check it). A malformed event (a login that may append can store a
 * `ShoeVoided` without `roundIds`) raises nothing — verify's completeness owes it nothing either —
 * instead of failing its batch again and again and stalling every cause after it.
 */
function readable(e: LedgerEvent): boolean {
  try {
    const current = upcast(e as unknown as EventEnvelope<string, unknown>);
    return eventDataProblem(current.type, current.data) === null;
  } catch {
    return false;
  }
}

/**
 * The significant-event monitor (docs/significant-events.md, "Raised as facts"; docs/architecture.md
 * §6): a consumer of `LEDGER_EVENTS_TOPIC` in group `SIGNIFICANT_MONITOR_GROUP`, run in the API
 * process when `SIGNIFICANT_MONITOR` is true (the API's role is the one that may append). For each
 * batch: the records whose event the detector ({@link detectSignificantEvents}) finds significant,
 * or whose type needs the store's context ({@link CONTEXT_CAUSE_TYPES}: a dealer change, a
 * configuration attestation), are read again from PostgreSQL by event id (a record that is not a
 * stored event, or whose data its type's schema refuses ({@link readable}), raises nothing), detected again on the stored event (with the shoe's first round, or
 * the previous configuration attestation), and each draft appended as a `SignificantEventRaised`
 * ({@link appendRaise}: deterministic id, so a redelivered cause raises once). Its own types raise
 * nothing. The offsets are committed once the batch's raises are appended (at least once). A
 * device's clock skew is handed to the {@link SignificantCauseRaiser} instead: one raise per
 * (device, window of `SIGNIFICANT_FLOOD_WINDOW_SECONDS`) with the count, when the window ends (a
 * window not raised when the API stops abruptly is lost; docs/significant-events.md).
 * A `ShoeClosed` is looked at for fairness ({@link FairnessAlerts}: a `STATISTICS.OUT_OF_BOUNDS` per
 * failing scope, from the stored events).
 * Starting fails softly: the API serves without it and logs why.
 */
@Injectable()
export class SignificantEventMonitor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SignificantEventMonitor');
  private readonly thresholds: DetectionThresholds;
  private consumer: KafkaConsumer | null = null;
  private lastMalformedLog = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(ConfigService) private readonly config: ConfigService<LedgerApiEnv, true>,
    private readonly causes: SignificantCauseRaiser,
    private readonly fairness: FairnessAlerts,
  ) {
    this.thresholds = detectionThresholds({
      SIGNIFICANT_WIN_MULTIPLE: config.get('SIGNIFICANT_WIN_MULTIPLE', { infer: true }),
      SIGNIFICANT_WIN_AMOUNT_MINOR: config.get('SIGNIFICANT_WIN_AMOUNT_MINOR', { infer: true }),
      OCCURRED_AT_MAX_SKEW_MS: config.get('OCCURRED_AT_MAX_SKEW_MS', { infer: true }),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.config.get('SIGNIFICANT_MONITOR', { infer: true })) return;
    // configured on: 0 until it consumes, so a monitor that never starts is seen (alert LedgerSignificantMonitorDown)
    significantMetrics.monitorUp.set(0);
    void this.start().then(
      () => significantMetrics.monitorUp.set(1),
      (err: unknown) => this.logger.error(`significant-event monitor not started: ${(err as Error).message}`),
    );
  }

  /** Leaves the group, waiting {@link STOP_WAIT_MS} at most (a consumer still joining may not answer): the API's stop is never held by it. */
  async onModuleDestroy(): Promise<void> {
    const c = this.consumer;
    this.consumer = null;
    if (c) await withTimeout(c.disconnect(), STOP_WAIT_MS, 'significant-event monitor disconnect').catch((err: unknown) => this.logger.warn((err as Error).message));
  }

  private async start(): Promise<void> {
    const brokers = this.config.get('KAFKA_BROKERS', { infer: true });
    const topic = this.config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    const kafka = createKafka({ clientId: 'ledger-significant-monitor', brokers: [...brokers], logLevel: 'nothing' });
    const consumer = kafka.consumer({ groupId: this.config.get('SIGNIFICANT_MONITOR_GROUP', { infer: true }), maxWaitTimeInMs: MONITOR_MAX_WAIT_MS });
    consumer.onCrash((c) => {
      this.logger.error(`significant-event monitor crashed (restart: ${c.restart}): ${c.error.message}`);
      if (!c.restart) significantMetrics.monitorUp.set(0);
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        await this.handle(batch.messages);
      },
    });
    this.logger.log(`significant-event monitor consuming ${topic}`);
  }

  /** {@link readable}, counting and logging what it passes over. */
  private readable(e: LedgerEvent): boolean {
    if (readable(e)) return true;
    this.passOver(e, "data not what its type's schema admits");
    return false;
  }

  /** Counts a cause passed over as malformed, and logs it (once per 10 s at most). */
  private passOver(e: LedgerEvent, why: string): void {
    significantMetrics.monitorMalformed.inc();
    const now = Date.now();
    if (now - this.lastMalformedLog < 10_000) return;
    this.lastMalformedLog = now;
    this.logger.warn(`significant-event monitor: passed over malformed ${String(e.type).slice(0, 80)} ${String(e.eventId).slice(0, 40)} (${why.slice(0, 200)}; counted in ledger_significant_monitor_malformed_total)`);
  }

  /** What the detector reads beside `cause`: for a resettlement, the decision of the correction it carries out; for a void labelled `SHOE_VOIDED`, whether a shoe void says so. */
  private async contextOf(cause: LedgerEvent): Promise<DetectionContext> {
    if (cause.type === 'RoundVoided' && (cause as LedgerEvent<'RoundVoided'>).data.cause === 'SHOE_VOIDED') {
      const d = (cause as LedgerEvent<'RoundVoided'>).data;
      return { shoeVoid: await this.store.significant.isShoeVoidOf({ streamId: cause.streamId, roundId: d.roundId, beforeVersion: cause.streamVersion, causedBy: d.causedBy }) };
    }
    if (cause.type !== 'BetResettled') return {};
    const d = cause.data as { roundId: string };
    return { correction: await this.store.significant.correctionBefore({ streamId: cause.streamId, roundId: d.roundId, beforeVersion: cause.streamVersion }) };
  }

  /** Raises what `messages` cause. @returns how many raises were appended (not those raised before) */
  async handle(messages: readonly IncomingMessage[]): Promise<number> {
    const events = messages.map(recordEvent).filter((e): e is LedgerEvent => e !== null && this.readable(e));
    // a shoe's close is looked at for fairness, a dealer change or a configuration attestation with the store's context
    const candidates = events.filter((e) => e.type === 'ShoeClosed' || CONTEXT_CAUSE_TYPES.includes(e.type) || detectSignificantEvents(e, this.thresholds, { shoeVoid: false }).length > 0);
    if (candidates.length === 0) return 0;
    let appended = 0;
    for (const cause of await this.store.eventsByIds(candidates.map((e) => e.eventId))) {
      if (!this.readable(cause)) continue;
      if (cause.type === 'ShoeClosed') {
        // a day that cannot be folded (a malformed event stored in it) raises nothing, as verify owes nothing for it
        const look = await this.fairness.at(cause).catch((err: unknown) => (this.passOver(cause, `its day cannot be folded: ${(err as Error).message}`), null));
        if (look) appended += await this.raise(cause, look.drafts, look.dealerId);
        continue;
      }
      const drafts = [...detectSignificantEvents(cause, this.thresholds, await this.contextOf(cause)), ...(await this.withContext(cause))];
      if (drafts.length === 0) continue;
      const dealer = cause.streamId.startsWith('shoe-') ? await this.store.dealerAt(cause.streamId, cause.streamVersion) : null;
      appended += await this.raise(cause, drafts, dealer);
    }
    return appended;
  }

  /** Appends the raises of `drafts` caused by `cause` (a device's skew goes to its window instead). @returns how many were new */
  private async raise(cause: LedgerEvent, drafts: readonly SignificantEventDraft[], dealer: string | null): Promise<number> {
    let appended = 0;
    for (const draft of drafts) {
      // a device's skew is flood-bounded: one raise per (device, window), when the window ends
      if (WINDOWED_EVENT_CODES.has(draft.code)) {
        this.causes.skewedFact(cause, draft, dealer);
        continue;
      }
      if (!(await appendRaise(this.store, cause, raiseData(cause, draft, dealer)))) continue;
      appended++;
      significantMetrics.raised.inc({ code: draft.code, severity: draft.severity });
      significantMetrics.raiseLag.observe((Date.now() - Date.parse(cause.recordedAt)) / 1000);
    }
    return appended;
  }

  /**
   * The drafts of a cause that need the store's context ({@link CONTEXT_CAUSE_TYPES}): a dealer change
   * after its shoe's first `RoundOpened`, and what a configuration attestation changed since the
   * previous one of the ledger (none for the first).
   */
  private async withContext(cause: LedgerEvent): Promise<SignificantEventDraft[]> {
    if (cause.type === 'DealerChanged') {
      const d = dealerChangeDraft(cause, await this.store.firstVersionOfType(cause.streamId, 'RoundOpened'));
      return d ? [d] : [];
    }
    if (cause.type === 'ConfigurationAttested') {
      // the last attestation before it whose data its schema admits (a malformed one is no attestation, for verify too)
      let previous = await this.store.lastLedgerWideBefore('ConfigurationAttested', cause.globalPosition);
      while (previous && !readable(previous)) previous = await this.store.lastLedgerWideBefore('ConfigurationAttested', previous.globalPosition);
      return configurationDrafts(previous?.type === 'ConfigurationAttested' ? { eventId: previous.eventId, data: previous.data } : null, cause.data);
    }
    return [];
  }
}
