import { getHeapStatistics } from 'node:v8';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { estimateStateBytes, evolve, initialState } from '@ledger/shoe';
import type { LedgerEvent } from '@ledger/events';
import { PgEventStore } from '@ledger/event-store';
import { ByteLru } from '../kernel/byte-lru';
import { EVENT_STORE } from '../kernel/tokens';
import { ShoeSnapshots, type FoldedShoe } from './shoe-snapshots';

/** Event types that end a round (or the shoe): the moments a snapshot is worth writing. */
const ROUND_ENDS: ReadonlySet<string> = new Set(['RoundResulted', 'RoundVoided', 'ShoeClosed', 'ShoeVoided']);

/**
 * In-process cache of folded shoe states (docs/architecture.md §3, "The shoe cache"), caught up
 * from the store on every load (only the events after the cached version are read), so a shoe of
 * 80 rounds and thousands of bets is not re-folded per command. Safe with several API instances:
 * the store's expected-version check is the arbiter; the cache is only a read shortcut.
 *
 * Bounded by bytes: an LRU whose entries' estimated sizes ({@link estimateStateBytes}) sum to at
 * most `SHOE_CACHE_MAX_BYTES`, and to at most `SHOE_CACHE_SIZE` shoes. A miss restores the stream's
 * latest genuine snapshot ({@link ShoeSnapshots}) and folds only the events after it; a snapshot is
 * written after an append that ends a round once `SHOE_SNAPSHOT_EVERY` events were appended since
 * the last one (or after any append past four times that), on the next turn of the event loop, never
 * inside the append's transaction.
 */
@Injectable()
export class ShoeStateCache {
  private readonly logger = new Logger(ShoeStateCache.name);
  private readonly cache: ByteLru<FoldedShoe>;
  private readonly snapshotEvery: number;
  /** Streams with a snapshot being written (one at a time per stream). */
  private readonly writing = new Set<string>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly snapshots: ShoeSnapshots,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const maxBytes = config.get('SHOE_CACHE_MAX_BYTES', { infer: true });
    this.cache = new ByteLru(maxBytes, config.get('SHOE_CACHE_SIZE', { infer: true }));
    const heap = getHeapStatistics().heap_size_limit;
    if (maxBytes * 3 > heap) {
      this.logger.warn({ shoeCacheMaxBytes: maxBytes, heapSizeLimit: heap }, 'SHOE_CACHE_MAX_BYTES is over a third of the heap (--max-old-space-size): a 10,000-bet batch may not fit beside it');
    }
    this.snapshotEvery = config.get('SHOE_SNAPSHOT_EVERY', { infer: true });
  }

  /** Current state, version, table and opening time of a stream (version 0 = no such shoe yet). */
  async load(streamId: string): Promise<FoldedShoe> {
    const base = this.cache.get(streamId) ?? (await this.fromSnapshot(streamId)) ?? empty();
    const newer = await this.store.readStream(streamId, base.version + 1);
    const next = apply(base, newer);
    this.put(streamId, next);
    return next;
  }

  /**
   * The cached state as this process last left it, without asking the store (null when not cached).
   * Current unless another API instance (or a tool) appended since: the append's version and head
   * check (`ledger_append`) is the arbiter, and a writer that gets a conflict {@link load}s afresh.
   */
  peek(streamId: string): FoldedShoe | null {
    return this.cache.get(streamId) ?? null;
  }

  /** Drops the cached state (the next {@link load} catches up from the snapshot or the stream). */
  forget(streamId: string): void {
    this.cache.delete(streamId);
  }

  /** The stream's latest genuine snapshot, or null (none, refused, snapshots off, or unreadable: logged). */
  private async fromSnapshot(streamId: string): Promise<FoldedShoe | null> {
    if (this.snapshotEvery === 0) return null;
    try {
      return await this.snapshots.load(streamId);
    } catch (e) {
      this.logger.warn({ streamId, err: String(e) }, 'shoe snapshot unreadable; folding the stream from its events');
      return null;
    }
  }

  /** Folds events just appended into the cached state (they directly follow `base`'s version). */
  remember(streamId: string, base: FoldedShoe, appended: readonly LedgerEvent[]): void {
    const next = apply(base, appended);
    this.put(streamId, next);
    if (this.snapshotDue(next, appended)) this.snapshotLater(streamId, next);
  }

  /** Sum of the estimated sizes of the states held, in bytes (for tests and metrics). */
  get bytes(): number {
    return this.cache.bytes;
  }

  private put(streamId: string, shoe: FoldedShoe): void {
    this.cache.set(streamId, shoe, estimateStateBytes(shoe.state));
  }

  /**
   * Whether the append that left `shoe` makes a snapshot due: after {@link snapshotGap} events since
   * the last one at a round's end, or after four times as many at any append.
   */
  private snapshotDue(shoe: FoldedShoe, appended: readonly LedgerEvent[]): boolean {
    if (this.snapshotEvery === 0 || shoe.lastHash === null) return false;
    const since = shoe.version - shoe.snapshotVersion;
    const gap = snapshotGap(this.snapshotEvery, shoe.snapshotVersion);
    return since >= 4 * gap || (since >= gap && appended.some((e) => ROUND_ENDS.has(e.type)));
  }

  /** Writes a snapshot of `shoe` after the current request's answer; a failure is logged, never thrown. */
  private snapshotLater(streamId: string, shoe: FoldedShoe): void {
    if (this.writing.has(streamId)) return;
    this.writing.add(streamId);
    // The next append starts from the cached entry: mark it, so no second snapshot is due at once.
    shoe.snapshotVersion = shoe.version;
    setImmediate(() => {
      this.snapshots
        .write(streamId, shoe)
        .catch((e: unknown) => this.logger.warn({ streamId, version: shoe.version, err: String(e) }, 'shoe snapshot not written'))
        .finally(() => this.writing.delete(streamId));
    });
  }
}

/**
 * Events between two snapshots of a stream: `SHOE_SNAPSHOT_EVERY`, or half the stream's version at
 * its last snapshot if more. A snapshot encodes the whole state (every round's bets), so a fixed gap
 * made a shoe of 10,000-bet rounds re-encode all its rounds at every round's end (6 % of the API's
 * CPU under the bench's batched ingest, and its largest strings); a gap growing with the stream keeps
 * the encoding at O(1) per event amortised (versions 2,000, 4,000, 6,000, 9,000, 13,500, …) while a
 * miss still folds at most a third of the stream past its snapshot.
 * @param every `SHOE_SNAPSHOT_EVERY` (> 0)
 * @param lastVersion the stream's version at its last snapshot (0: none)
 */
export function snapshotGap(every: number, lastVersion: number): number {
  return Math.max(every, Math.floor(lastVersion / 2));
}

function empty(): FoldedShoe {
  return { version: 0, tableId: null, openedAt: null, lastHash: null, snapshotVersion: 0, state: initialState() };
}

function apply(base: FoldedShoe, events: readonly LedgerEvent[]): FoldedShoe {
  let { state, version, tableId, openedAt, lastHash } = base;
  for (const e of events) {
    state = evolve(state, e);
    version = e.streamVersion;
    tableId = e.tableId;
    lastHash = e.hash;
    if (e.type === 'ShoeOpened') openedAt = e.occurredAt;
  }
  return { state, version, tableId, openedAt, lastHash, snapshotVersion: base.snapshotVersion };
}
