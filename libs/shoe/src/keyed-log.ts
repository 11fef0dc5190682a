/**
 * A persistent, append-only keyed log: the structure that lets `evolve` add the 10,000th bet of a
 * round in O(1) without mutating any state a caller still holds.
 *
 * Why: a round can hold ~10,000 bets and a shoe ~80 rounds. Copying a Map of bets on every
 * BetPlaced would make a fold O(n²) (50 million entry copies for one busy round). Mutating in place
 * would make `evolve` impure: a state a caller kept (a test's "given", a handler's snapshot)
 * would change under it.
 *
 * How: a {@link KeyedLog} is a *view* — a size — over a shared, append-only store. The view sees
 * entries `0 .. size-1` only. Appending through the view whose size equals the store's length
 * pushes in place (amortised O(1)); every older view still sees exactly what it saw, because the
 * store never changes an entry it holds. Appending through an older view (a fork: the same state
 * evolved twice) copies the visible prefix into a fresh store first (O(size), rare). Entries are
 * never updated: whatever changes (a bet's settlement) lives in a new log (see `state.ts`).
 */

interface Store<V> {
  readonly keys: string[];
  readonly values: V[];
  readonly index: Map<string, number>;
}

/** A persistent view of `size` entries over a shared append-only store. Treat as opaque. */
export interface KeyedLog<V> {
  /** @internal shared storage; never read it directly */
  readonly store: Store<V>;
  /** Number of entries this view sees. */
  readonly size: number;
}

/** A log with no entries. */
export function emptyLog<V>(): KeyedLog<V> {
  return { store: { keys: [], values: [], index: new Map() }, size: 0 };
}

/** The entry under `key`, if this view sees one. O(1). */
export function logGet<V>(log: KeyedLog<V>, key: string): V | undefined {
  const i = log.store.index.get(key);
  return i !== undefined && i < log.size ? log.store.values[i] : undefined;
}

/** Whether this view holds an entry under `key`. O(1). */
export function logHas(log: KeyedLog<unknown>, key: string): boolean {
  const i = log.store.index.get(key);
  return i !== undefined && i < log.size;
}

/** The `i`-th entry (0-based, insertion order). */
export function logAt<V>(log: KeyedLog<V>, i: number): V {
  if (i < 0 || i >= log.size) throw new RangeError(`index ${i} outside 0..${log.size - 1}`);
  return log.store.values[i];
}

/** The entries in insertion order. */
export function* logValues<V>(log: KeyedLog<V>): IterableIterator<V> {
  const { values } = log.store;
  for (let i = 0; i < log.size; i++) yield values[i];
}

/** The entries in insertion order, as a new array. */
export function logToArray<V>(log: KeyedLog<V>): V[] {
  return log.store.values.slice(0, log.size);
}

/**
 * A new view with `value` appended under `key`; `log` itself is unchanged.
 * @throws Error when this view already holds `key` (keys are unique within a log)
 */
export function logAppend<V>(log: KeyedLog<V>, key: string, value: V): KeyedLog<V> {
  let store = log.store;
  if (store.values.length !== log.size) {
    // Fork: another view already appended past our size. Copy what we see into a fresh store.
    const keys = store.keys.slice(0, log.size);
    const values = store.values.slice(0, log.size);
    const index = new Map<string, number>();
    for (let i = 0; i < keys.length; i++) index.set(keys[i], i);
    store = { keys, values, index };
  }
  // Here the view sees the whole store, so any key in the index is visible to it.
  if (store.index.has(key)) throw new Error(`duplicate key ${key} in keyed log`);
  store.index.set(key, store.values.length);
  store.keys.push(key);
  store.values.push(value);
  return { store, size: log.size + 1 };
}

/**
 * A running fold of a log's entries, kept with the log's shared store so that the next, longer
 * view extends it instead of folding every entry again: folding a view of `size` entries costs
 * O(size − entries already folded) when views grow one append at a time (a round taking one bet a
 * request), and O(size) otherwise (an older view, a fork). The fold is derived data: it never
 * changes what any view sees.
 *
 * Bounded: at most `keep` stores carry a fold (the least recently folded lose theirs first), so a
 * shoe cache full of past rounds does not also hold a fold per round.
 */
export class LogFold<V, A> {
  private readonly folds = new WeakMap<object, { upTo: number; acc: A }>();
  /** Stores that carry a fold, least recently folded first. */
  private readonly recent: WeakRef<object>[] = [];

  /**
   * @param init a fresh accumulator (of no entries)
   * @param step adds one entry to an accumulator, in place
   * @param keep most stores that carry a fold (a positive integer)
   */
  constructor(
    private readonly init: () => A,
    private readonly step: (acc: A, value: V) => void,
    private readonly keep = 256,
  ) {}

  /** The fold of the entries `log` sees. Read it, never change it (it is shared with later calls). */
  of(log: KeyedLog<V>): A {
    const { store } = log;
    let f = this.folds.get(store);
    if (!f || f.upTo > log.size) {
      if (f) return this.foldRange(log, this.init(), 0); // an older, shorter view: folded afresh, not kept
      f = { upTo: 0, acc: this.init() };
      this.folds.set(store, f);
      this.recent.push(new WeakRef(store));
      if (this.recent.length > this.keep) {
        const oldest = this.recent.shift()!.deref();
        if (oldest) this.folds.delete(oldest);
      }
    }
    this.foldRange(log, f.acc, f.upTo);
    f.upTo = log.size;
    return f.acc;
  }

  private foldRange(log: KeyedLog<V>, acc: A, from: number): A {
    const { values } = log.store;
    for (let i = from; i < log.size; i++) this.step(acc, values[i]);
    return acc;
  }
}
