import { Injectable } from '@nestjs/common';

/**
 * Serialises commands on one stream inside this process (a promise chain per stream), so
 * concurrent requests for one shoe queue instead of losing optimistic-concurrency races to each
 * other. Across processes, the store's expected-version check still decides.
 */
@Injectable()
export class StreamLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier `run` on the same key has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
