import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { evolve, initialState, ShoeState } from '@ledger/shoe';
import type { LedgerEvent } from '@ledger/events';
import { PgEventStore } from '@ledger/event-store';
import { EVENT_STORE } from '../persistence/persistence.module';

interface Cached {
  version: number;
  tableId: string | null;
  /** `occurredAt` of the stream's ShoeOpened (ISO-8601), null while the stream is empty: bounds later `occurredAt`s. */
  openedAt: string | null;
  state: ShoeState;
}

/**
 * In-process cache of folded shoe states, caught up from the store on every load (only the
 * events after the cached version are read), so a shoe of 80 rounds and thousands of bets is not
 * re-folded per command. Safe with several API instances: the store's expected-version check is
 * the arbiter; the cache is only a read shortcut. Bounded LRU of `SHOE_CACHE_SIZE` (default 256).
 */
@Injectable()
export class ShoeStateCache {
  private readonly cache = new Map<string, Cached>();
  private readonly max: number;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.max = config.get('SHOE_CACHE_SIZE', { infer: true });
  }

  /** Current state, version, table and opening time of a stream (version 0 = no such shoe yet). */
  async load(streamId: string): Promise<Cached> {
    const hit = this.cache.get(streamId) ?? { version: 0, tableId: null, openedAt: null, state: initialState() };
    const newer = await this.store.readStream(streamId, hit.version + 1);
    const next = this.apply(hit, newer);
    this.put(streamId, next);
    return next;
  }

  /** Folds events just appended into the cached state (they directly follow the cached version). */
  remember(streamId: string, base: Cached, appended: readonly LedgerEvent[]): void {
    this.put(streamId, this.apply(base, appended));
  }

  private apply(base: Cached, events: readonly LedgerEvent[]): Cached {
    let { state, version, tableId, openedAt } = base;
    for (const e of events) {
      state = evolve(state, e);
      version = e.streamVersion;
      tableId = e.tableId;
      if (e.type === 'ShoeOpened') openedAt = e.occurredAt;
    }
    return { state, version, tableId, openedAt };
  }

  private put(streamId: string, c: Cached): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, c);
    if (this.cache.size > this.max) this.cache.delete(this.cache.keys().next().value as string);
  }
}
