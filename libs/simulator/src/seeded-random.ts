import { createHash, randomBytes } from 'node:crypto';

/**
 * A deterministic, cryptographically strong random stream from a seed: SHA-256 in counter mode
 * (block i = SHA-256(seed ‖ i)). The same seed always gives the same shuffle, so a printed seed
 * reproduces a simulated run; a seed from `newSeed()` (32 random bytes, hex) is unpredictable.
 */
export class SeededRandom {
  private counter = 0n;
  private buffer = Buffer.alloc(0);

  /** @param seed any string; conventionally 64 hex characters from {@link newSeed} */
  constructor(public readonly seed: string) {}

  /** A fresh unpredictable seed: 32 bytes from the OS CSPRNG, as 64 hex characters. */
  static newSeed(): string {
    return randomBytes(32).toString('hex');
  }

  private bytes(n: number): Buffer {
    while (this.buffer.length < n) {
      const block = createHash('sha256').update(this.seed).update(this.counter.toString()).digest();
      this.counter++;
      this.buffer = Buffer.concat([this.buffer, block]);
    }
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }

  /** An unbiased integer in [0, n) by rejection sampling on 32-bit draws. @param n 1..2^32 */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`int(n) needs 1 ≤ n ≤ 2^32, got ${n}`);
    const limit = Math.floor(2 ** 32 / n) * n;
    for (;;) {
      const x = this.bytes(4).readUInt32BE(0);
      if (x < limit) return x % n;
    }
  }

  /** True with probability `p` (in steps of 1/1,000,000). */
  chance(p: number): boolean {
    return this.int(1_000_000) < Math.round(p * 1_000_000);
  }

  /** An element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Fisher–Yates shuffle of a copy of `items`. */
  shuffle<T>(items: readonly T[]): T[] {
    const a = [...items];
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
}
