import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { PgEventStore, SignificantChange } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { significantEventRowOf } from '@ledger/read-model';
import { camel } from '../kernel/camel';
import { EVENT_STORE } from '../kernel/tokens';

/** How often the feed reads the event store for raises and acknowledgements it has not sent yet, in ms (only while someone listens). */
export const FEED_POLL_MS = 200;

/** A change of a significant event the live stream sends: `raised` or `acknowledged`, with the significant event as the list answers it. */
export interface SignificantEventChange {
  readonly kind: 'raised' | 'acknowledged';
  readonly event: Record<string, unknown>;
}

/** A subscriber of the feed. */
export type SignificantEventListener = (change: SignificantEventChange) => void;

/**
 * One poller per API process for `GET /significant-events/live` (docs/significant-events.md): while
 * at least one stream is open it reads, every {@link FEED_POLL_MS} ms, the raises and
 * acknowledgements the event store holds after the last position it sent, up to the relay's
 * published position (below it positions are final: none is skipped by a late commit; one indexed
 * query for every subscriber), and hands each change to every subscriber. The read model plays no
 * part: a write to it can neither hide nor forge a change. It starts at the published position when
 * the first subscriber comes: a stream carries what happens after it opened (the list has the past).
 */
@Injectable()
export class SignificantEventFeed implements OnModuleDestroy {
  private readonly logger = new Logger('SignificantEventFeed');
  private readonly listeners = new Set<SignificantEventListener>();
  private timer: NodeJS.Timeout | null = null;
  private since: string | null = null;
  private busy = false;

  constructor(@Inject(EVENT_STORE) private readonly store: PgEventStore) {}

  /** Adds a listener (starting the poller for the first). @returns the function that removes it */
  subscribe(fn: SignificantEventListener): () => void {
    this.listeners.add(fn);
    if (!this.timer) {
      this.since = null;
      this.timer = setInterval(() => void this.poll(), FEED_POLL_MS);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
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
      await this.emit(await this.store.significant.changes({ after: this.since, through }));
    } catch (err) {
      this.logger.warn(`significant-event feed: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Sends each change (an acknowledgement with its raise, read from the store) and moves the feed's position past them. */
  private async emit(changes: readonly SignificantChange[]): Promise<void> {
    if (changes.length === 0) return;
    const acked = changes.flatMap((e) => (e.type === 'SignificantEventAcknowledged' ? [e.data.significantEventId] : []));
    const raises = new Map((await this.store.significant.byIds(acked)).map((s) => [s.raise.data.significantEventId, s.raise]));
    for (const e of changes) {
      const change = changeOf(e, raises);
      if (change) for (const fn of [...this.listeners]) fn(change);
    }
    this.since = changes[changes.length - 1].globalPosition;
  }
}

/** The change `e` makes, shaped as the list answers it (an acknowledgement whose raise is not in `raises`: null). */
function changeOf(e: SignificantChange, raises: ReadonlyMap<string, LedgerEvent<'SignificantEventRaised'>>): SignificantEventChange | null {
  if (e.type === 'SignificantEventRaised') return { kind: 'raised', event: camel(significantEventRowOf(e, null)) };
  const raise = raises.get(e.data.significantEventId);
  return raise ? { kind: 'acknowledged', event: camel(significantEventRowOf(raise, e)) } : null;
}
