import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { ReadModel, SignificantEventRow } from '@ledger/read-model';
import { camel } from '../kernel/camel';
import { READ_MODEL } from '../kernel/tokens';

/** How often the feed reads the read model for raises and acknowledgements it has not sent yet, in ms (only while someone listens). */
export const FEED_POLL_MS = 200;

/** A change of a significant event the live stream sends: `raised` or `acknowledged`, with the row as the list answers it. */
export interface SignificantEventChange {
  readonly kind: 'raised' | 'acknowledged';
  readonly event: Record<string, unknown>;
}

/** A subscriber of the feed. */
export type SignificantEventListener = (change: SignificantEventChange) => void;

/**
 * One poller per API process for `GET /significant-events/live` (docs/significant-events.md): while
 * at least one stream is open it reads, every {@link FEED_POLL_MS} ms, the rows of the read model
 * raised or acknowledged after the last position it saw (one indexed query for every subscriber),
 * and hands each change to every subscriber. It starts at the read model's newest position when the
 * first subscriber comes: a stream carries what happens after it opened (the list has the past).
 */
@Injectable()
export class SignificantEventFeed implements OnModuleDestroy {
  private readonly logger = new Logger('SignificantEventFeed');
  private readonly listeners = new Set<SignificantEventListener>();
  private timer: NodeJS.Timeout | null = null;
  private since: string | null = null;
  private busy = false;

  constructor(@Inject(READ_MODEL) private readonly read: ReadModel) {}

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
      if (this.since === null) {
        this.since = await this.read.significantEvents.latestPosition();
        return;
      }
      const since = this.since;
      for (const r of await this.read.significantEvents.changedAfter(since)) this.emit(r, since);
    } catch (err) {
      this.logger.warn(`significant-event feed: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Sends `r`'s changes after position `since` and moves the feed's position past them. */
  private emit(r: SignificantEventRow, since: string): void {
    const raisedNow = BigInt(r.raised_position) > BigInt(since);
    const ackedNow = r.ack_position !== null && BigInt(r.ack_position) > BigInt(since);
    const next = [r.raised_position, r.ack_position ?? '0'].reduce((a, b) => (BigInt(a) > BigInt(b) ? a : b));
    const event = camel(r);
    for (const fn of [...this.listeners]) {
      if (raisedNow) fn({ kind: 'raised', event });
      if (ackedNow) fn({ kind: 'acknowledged', event });
    }
    if (BigInt(next) > BigInt(this.since!)) this.since = next;
  }
}
