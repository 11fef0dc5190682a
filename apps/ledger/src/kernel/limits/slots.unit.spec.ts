import { MemorySlots } from './slots';
import { keyPart } from './redis-limits';
import { inProcessLimits, limitsBackend, redisTarget } from './limits-backend';

describe('MemorySlots (docs/architecture.md §10, "Limits at the edge")', () => {
  const claims = (caller: string) => [
    { key: `heavy|caller|${caller}`, limit: 1 },
    { key: 'heavy|api', limit: 2 },
  ];

  it('takes every claim or none, says which was full, and a release frees them once', async () => {
    const slots = new MemorySlots();
    const a = await slots.take(claims('a'));
    expect(a.taken).toBe(true);
    expect(await slots.take(claims('a'))).toEqual({ taken: false, full: 0 });
    expect((await slots.take(claims('b'))).taken).toBe(true);
    expect(await slots.take(claims('c'))).toEqual({ taken: false, full: 1 });
    expect(slots.count('heavy|caller|c')).toBe(0);
    if (a.taken) {
      a.release();
      a.release();
    }
    expect(slots.count('heavy|api')).toBe(1);
    expect(slots.count('heavy|caller|a')).toBe(0);
    expect((await slots.take(claims('c'))).taken).toBe(true);
  });

  it('decides a take before its promise settles: two takes in one tick see each other', async () => {
    const slots = new MemorySlots();
    const [one, two] = await Promise.all([slots.take(claims('a')), slots.take(claims('a'))]);
    expect([one.taken, two.taken]).toEqual([true, false]);
  });

  it('a limit of 0 is never free', async () => {
    expect(await new MemorySlots().take([{ key: 'live|role|x', limit: 0 }])).toEqual({ taken: false, full: 0 });
  });
});

describe('the limits backend', () => {
  it('counts in memory without LIMITS_REDIS_URL (the throttler keeps its own storage), and connects nothing', async () => {
    const limits = limitsBackend({ LIMITS_REDIS_URL: undefined, LIMITS_REDIS_PREFIX: 'ledger:limits:', LIMITS_LEASE_MS: 30_000, LIMITS_REDIS_TIMEOUT_MS: 1000 });
    expect(limits.mode).toBe('in-process');
    expect(limits.throttlerStorage).toBeUndefined();
    expect(limits.refusalBytes).toBeNull();
    expect(await limits.start()).toEqual({ connected: true });
    expect(inProcessLimits().slots('heavy-read')).not.toBe(inProcessLimits().slots('heavy-read'));
  });

  it('is shared with LIMITS_REDIS_URL, and never logs its password', async () => {
    const limits = limitsBackend({ LIMITS_REDIS_URL: 'redis://:s3cret@10.0.0.5:6380/2', LIMITS_REDIS_PREFIX: 'p:', LIMITS_LEASE_MS: 30_000, LIMITS_REDIS_TIMEOUT_MS: 1000 });
    try {
      expect(limits.mode).toBe('shared');
      expect(limits.throttlerStorage).toBeDefined();
      expect(limits.describe()).toEqual({ mode: 'shared', redis: 'redis://10.0.0.5:6380/2', prefix: 'p:', leaseMs: 30_000 });
      expect(JSON.stringify(limits.describe())).not.toContain('s3cret');
    } finally {
      await limits.close();
    }
    expect(redisTarget('rediss://user:pw@cache.internal:6379')).toBe('rediss://cache.internal:6379');
  });

  it('keeps a short plain key part, hashes a long or odd one', () => {
    expect(keyPart('heavy|caller|auditor|a-1'.replace(/\|/g, ':'))).toBe('heavy:caller:auditor:a-1');
    expect(keyPart('x'.repeat(200))).toMatch(/^h:[0-9a-f]{64}$/);
    expect(keyPart('a b')).toMatch(/^h:[0-9a-f]{64}$/);
  });
});
