import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { PgEventStore, SignificantChange, SignificantChangesPage } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { significantEventRowOf } from '@ledger/read-model';
import { camel } from '../kernel/camel';
import { EVENT_STORE } from '../kernel/tokens';
import { significantMetrics } from './significant-metrics';

/** How often the feed reads the event store for raises and acknowledgements it has not sent yet, in ms (only while someone listens). */
export const FEED_POLL_MS = 200;

/**
 * A change of a significant event the live stream sends: `raised` or `acknowledged`, with the
 * significant event as the list answers it, and the ledger's global position of the event that made
 * it (decimal string: the stream's SSE `id`, which a client sends back as `Last-Event-ID` to resume).
 */
export interface SignificantEventChange {
  readonly kind: 'raised' | 'acknowledged';
  readonly event: Record<string, unknown>;
  readonly position: string;
}

/** The most changes a resumed stream is sent from before it joins the live ones (`Last-Event-ID`); further back, the list has them. */
export const RESUME_MAX_CHANGES = 5_000;

/** How a subscription began: `resumed` after its `Last-Event-ID`, or `gap` when that lies more than {@link RESUME_MAX_CHANGES} changes back (it then starts from now). */
export type SubscriptionStart = 'live' | 'resumed' | 'gap';

/** A subscriber of the feed. */
export type SignificantEventListener = (change: SignificantEventChange) => void;

/**
 * One poller per API process for `GET /significant-events/live` (docs/significant-events.md): while
 * at least one stream is open it reads, every {@link FEED_POLL_MS} ms, the raises and
 * acknowledgements the event store holds after the last position it sent, up to the relay's
 * published position (below it positions are final: none is skipped by a late commit; one indexed
 * query for every subscriber), and hands each change to every subscriber. The read model plays no
 * part: a write to it can neither hide nor forge a change. It starts at the published position when
 * the first subscriber comes: a stream carries what happens after it opened (the list has the past),
 * or, resumed with `Last-Event-ID`, what happened after the last change it was sent ({@link subscribe}).
 */
@Injectable()
export class SignificantEventFeed implements OnModuleDestroy {
  private readonly logger = new Logger('SignificantEventFeed');
  private readonly listeners = new Set<SignificantEventListener>();
  private timer: NodeJS.Timeout | null = null;
  private since: string | null = null;
  private busy = false;

  constructor(@Inject(EVENT_STORE) private readonly store: PgEventStore) {}

  /**
   * Adds a listener (starting the poller for the first). With `after` (a client's `Last-Event-ID`: a
   * global position), the listener is first sent, in order, the changes after it up to the published
   * position, then the live ones, none twice and none skipped: live changes that come meanwhile wait,
   * and only those past the last one sent are passed on. More than {@link RESUME_MAX_CHANGES} back:
   * nothing of the past is sent (`start: 'gap'`).
   * @returns the function that removes it, and how the subscription began
   */
  async subscribe(fn: SignificantEventListener, after?: string): Promise<{ unsubscribe: () => void; start: SubscriptionStart }> {
    let waiting: SignificantEventChange[] | null = after === undefined ? null : [];
    let sent = after === undefined ? null : BigInt(after);
    const listener: SignificantEventListener = (c) => {
      if (waiting) waiting.push(c);
      else if (sent === null || BigInt(c.position) > sent) fn(c);
    };
    this.listeners.add(listener);
    if (!this.timer) {
      this.since = null;
      this.timer = setInterval(() => void this.poll(), FEED_POLL_MS);
      this.timer.unref();
    }
    const unsubscribe = () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
    if (after === undefined) return { unsubscribe, start: 'live' };
    try {
      const through = await this.store.significant.publishedThrough();
      // a poller started by this subscription goes on from here, not from a later position
      if (this.since === null) this.since = through;
      const past = await this.changesBetween(after, through);
      const start: SubscriptionStart = past === null ? 'gap' : 'resumed';
      if (past === null) sent = BigInt(through);
      for (const c of past ?? []) {
        fn(c);
        sent = BigInt(c.position);
      }
      const live = waiting ?? [];
      waiting = null;
      for (const c of live) listener(c);
      return { unsubscribe, start };
    } catch (err) {
      unsubscribe();
      throw err;
    }
  }

  /** The changes in (`after`, `through`], in order; null when there are more than {@link RESUME_MAX_CHANGES}. */
  private async changesBetween(after: string, through: string): Promise<SignificantEventChange[] | null> {
    const out: SignificantEventChange[] = [];
    let from = after;
    while (BigInt(from) < BigInt(through)) {
      const page = this.passOver(await this.store.significant.changes({ after: from, through }));
      if (page.last === null) break;
      out.push(...(await this.changesOf(page.items)));
      if (out.length > RESUME_MAX_CHANGES) return null;
      from = page.last;
    }
    return out;
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const through = await this.store.significant.publishedThrough();
      if (this.since === null) {
        this.since = through;
        return;
      }
      await this.emit(this.passOver(await this.store.significant.changes({ after: this.since, through })));
    } catch (err) {
      this.logger.warn(`significant-event feed: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Sends each change (an acknowledgement with its raise, read from the store) and moves the feed's position past the page. */
  private async emit(page: SignificantChangesPage): Promise<void> {
    if (page.last === null) return;
    for (const change of await this.changesOf(page.items)) for (const fn of [...this.listeners]) fn(change);
    this.since = page.last;
  }

  /** The page, once the raises and acknowledgements its data schema refuses are logged (each once: the feed moves past them) and counted. */
  private passOver(page: SignificantChangesPage): SignificantChangesPage {
    for (const m of page.malformed) {
      significantMetrics.readModelMismatches.inc({ kind: 'malformed' });
      this.logger.warn(`significant-event feed: event ${m.eventId} at ${m.globalPosition} passed over, its data does not match its schema: ${m.problem}`);
    }
    return page;
  }

  /** The stored changes shaped as the stream sends them (an acknowledgement with its raise, read from the store). */
  private async changesOf(changes: readonly SignificantChange[]): Promise<SignificantEventChange[]> {
    const acked = changes.flatMap((e) => (e.type === 'SignificantEventAcknowledged' ? [e.data.significantEventId] : []));
    const raises = new Map((await this.store.significant.byIds(acked)).map((s) => [s.raise.data.significantEventId, s.raise]));
    return changes.flatMap((e) => changeOf(e, raises) ?? []);
  }
}

/** The change `e` makes, shaped as the list answers it (an acknowledgement whose raise is not in `raises`: null). */
function changeOf(e: SignificantChange, raises: ReadonlyMap<string, LedgerEvent<'SignificantEventRaised'>>): SignificantEventChange | null {
  if (e.type === 'SignificantEventRaised') return { kind: 'raised', event: camel(significantEventRowOf(e, null)), position: e.globalPosition };
  const raise = raises.get(e.data.significantEventId);
  return raise ? { kind: 'acknowledged', event: camel(significantEventRowOf(raise, e)), position: e.globalPosition } : null;
}
