/**
 * Counting semaphores of the API's limits (docs/architecture.md §10, "Limits at the edge"): the
 * heavy-read slots and the live-stream places. One {@link Slots} counts in this process's memory
 * ({@link MemorySlots}, one API instance) or in a Redis every API instance shares
 * (`RedisSlots`, redis-limits.ts, when `LIMITS_REDIS_URL` is set).
 */

/** One count a take must fit in: at most `limit` holders of `key` at once. */
export interface SlotClaim {
  /** What is counted, e.g. `heavy|caller|auditor|a-1` (no prefix: the store adds its own). */
  readonly key: string;
  /** Holders at most, ≥ 0 (0: never free). */
  readonly limit: number;
}

/**
 * The outcome of {@link Slots.take}: taken (with its release, which frees every claim once however
 * often it is called), or not, with the index in the claims of the first one that was full.
 */
export type SlotGrant = { readonly taken: true; release(): void } | { readonly taken: false; readonly full: number };

/** A set of counting semaphores; a take of several claims takes all of them or none. */
export interface Slots {
  /**
   * Takes one place of every claim, or none when one of them is full (checked in order).
   * @throws ApiError `LIMITS.UNAVAILABLE` (503) when the shared store does not answer (never by {@link MemorySlots})
   */
  take(claims: readonly SlotClaim[]): Promise<SlotGrant>;
}

/**
 * {@link Slots} in this process's memory: the count of each key, dropped at 0. A take is decided
 * synchronously (before the returned promise settles), so two takes called one after the other in
 * the same tick see each other.
 */
export class MemorySlots implements Slots {
  private readonly held = new Map<string, number>();

  /** Holders of `key` now (tests, metrics). */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }

  take(claims: readonly SlotClaim[]): Promise<SlotGrant> {
    const full = claims.findIndex((c) => this.count(c.key) >= c.limit);
    if (full >= 0) return Promise.resolve({ taken: false, full });
    for (const c of claims) this.held.set(c.key, this.count(c.key) + 1);
    let freed = false;
    const release = () => {
      if (freed) return;
      freed = true;
      for (const c of claims) {
        const left = this.count(c.key) - 1;
        if (left <= 0) this.held.delete(c.key);
        else this.held.set(c.key, left);
      }
    };
    return Promise.resolve({ taken: true, release });
  }
}
