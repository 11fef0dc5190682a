import { createHash } from 'node:crypto';
import type { RedisMinuteBudget } from '../kernel/limits/redis-limits';
import { RefusalBudget } from './refusal-budget';

describe('RefusalBudget (docs/guarantees.md §11)', () => {
  it('charges a caller up to its bytes per minute, then refuses until the next minute; callers are apart', () => {
    let now = 120_000;
    const b = new RefusalBudget({ payloadMaxBytes: 100, bytesPerMinute: 1000 }, () => now);
    expect([b.take('addr:a', 600), b.take('addr:a', 400), b.take('addr:a', 1)]).toEqual([true, true, false]);
    expect(b.take('addr:b', 1000)).toBe(true);
    now += 60_000;
    expect(b.take('addr:a', 1000)).toBe(true);
    expect(b.take('addr:a', 1)).toBe(false);
  });

  it('keeps a payload within the cap whole; a larger one as its length, Content-Length, SHA-256 and a head within the cap', () => {
    const b = new RefusalBudget({ payloadMaxBytes: 512, bytesPerMinute: 1 });
    expect(b.cap({ a: 'x' }, 9)).toEqual({ a: 'x' });
    const big = { junk: 'y'.repeat(5000) };
    const json = JSON.stringify(big);
    const capped = b.cap(big, 5012) as Record<string, unknown>;
    expect(capped).toMatchObject({ truncated: true, bytes: json.length, contentLength: 5012, sha256: createHash('sha256').update(json).digest('hex') });
    expect(json.startsWith(capped.head as string)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(512);
  });

  it('spends in memory without a shared budget; with one, in it (its budget and caller), and a shared budget that fails stores nothing', async () => {
    const local = new RefusalBudget({ payloadMaxBytes: 100, bytesPerMinute: 1000 });
    expect([await local.spend('addr:a', 1000), await local.spend('addr:a', 1)]).toEqual([true, false]);
    const asked: unknown[] = [];
    const shared = { take: async (...args: unknown[]) => (asked.push(args), true) } as unknown as RedisMinuteBudget;
    expect(await new RefusalBudget({ payloadMaxBytes: 100, bytesPerMinute: 1000 }, Date.now, shared).spend('addr:b', 5000)).toBe(true);
    expect(asked).toEqual([['addr:b', 5000, 1000]]);
    const down = { take: async () => Promise.reject(new Error('Connection is closed.')) } as unknown as RedisMinuteBudget;
    expect(await new RefusalBudget({ payloadMaxBytes: 100, bytesPerMinute: 1000 }, Date.now, down).spend('addr:c', 1)).toBe(false);
  });
});
