/**
 * A least-recently-used map bounded by an estimate of its values' bytes and by a count of entries
 * (docs/architecture.md §3, "The shoe cache"). Each value is stored with the size its caller
 * estimates; the total of those sizes never exceeds `maxBytes` and the number of entries never
 * exceeds `maxEntries`: storing a value evicts the least recently used entries until both hold,
 * and a value larger than `maxBytes` on its own is not stored at all (any older value under its
 * key is dropped, so a stale one is never served).
 *
 * Own code rather than `lru-cache`: only its v5 is present, as a transitive dependency (no
 * `maxSize`/`sizeCalculation`), and the whole structure is a `Map` kept in recency order.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  /**
   * @param maxBytes budget of the estimated sizes, in bytes (a positive integer)
   * @param maxEntries most entries kept (a positive integer)
   * @throws RangeError when either bound is not a positive integer
   */
  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number,
  ) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`);
    if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0)) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }

  /** The value under `key`, made the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /**
   * Stores `value` under `key` as the most recently used, `bytes` its estimated size, then evicts
   * the least recently used entries beyond the bounds.
   * @returns false when `bytes` exceeds `maxBytes` on its own: nothing is stored then, and any
   *   value under `key` is removed
   */
  set(key: string, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    while (this.total > this.maxBytes || this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
    return true;
  }

  /** Removes the entry under `key`, if any. */
  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.total -= e.bytes;
  }

  /** Sum of the estimated sizes of the entries held, in bytes. */
  get bytes(): number {
    return this.total;
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }
}
