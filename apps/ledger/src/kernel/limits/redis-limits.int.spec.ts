/**
 * The shared limits' Redis parts against a real Redis of this spec's own (test/support/redis-server.ts;
 * docs/architecture.md §10, "Limits at the edge"): the counting semaphores with leases
 * ({@link RedisSlots}), the per-minute byte budget ({@link RedisMinuteBudget}), and what a Redis
 * that does not answer does to them (503 `LIMITS.UNAVAILABLE`, nothing taken).
 */
import Redis from 'ioredis';
import { ApiError } from '../api-error';
import { limitsBackend } from './limits-backend';
import { RedisMinuteBudget, RedisSlots } from './redis-limits';
import type { SlotGrant } from './slots';
import { startRedis, type TestRedis } from '../../../../../test/support/redis-server';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const release = (g: SlotGrant) => (g.taken ? g.release() : undefined);

describe('RedisSlots and RedisMinuteBudget', () => {
  let server: TestRedis;
  let redis: Redis;
  const prefix = `t:${Date.now()}:`;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url, { keyPrefix: prefix, maxRetriesPerRequest: 0 });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('two instances (two slot sets on one Redis) share the places; a take of several claims takes all or none; a release frees them', async () => {
    const one = new RedisSlots(redis, { limit: 'heavy-read', leaseMs: 5_000 });
    const two = new RedisSlots(redis, { limit: 'heavy-read', leaseMs: 5_000 });
    const claims = (caller: string) => [
      { key: `heavy|caller|${caller}`, limit: 1 },
      { key: 'heavy|api', limit: 2 },
    ];
    const a = await one.take(claims('a'));
    expect(a.taken).toBe(true);
    expect(await two.take(claims('a'))).toEqual({ taken: false, full: 0 });
    const b = await two.take(claims('b'));
    expect(b.taken).toBe(true);
    expect(await one.take(claims('c'))).toEqual({ taken: false, full: 1 });
    // the refused take of c took nothing: its caller key is empty
    expect(await redis.zcard('heavy|caller|c')).toBe(0);
    release(a);
    release(a); // once, however often
    for (let i = 0; i < 20 && (await redis.zcard('heavy|api')) !== 1; i++) await sleep(25);
    const c = await two.take(claims('c'));
    expect(c.taken).toBe(true);
    release(b);
    release(c);
  });

  it('a place held is renewed past its lease; the place of an instance that stops renewing (died) is free one lease later', async () => {
    const LEASE = 600;
    const live = new RedisSlots(redis, { limit: 'live-stream', leaseMs: LEASE });
    const held = await live.take([{ key: 'live|role|auditor', limit: 1 }]);
    expect(held.taken).toBe(true);
    await sleep(3 * LEASE);
    expect(await live.take([{ key: 'live|role|auditor', limit: 1 }])).toEqual({ taken: false, full: 0 });
    // an instance that dies: its place is written with a lease and never renewed nor released
    const dead = new Redis(server.url, { keyPrefix: prefix, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    await new Promise((ready) => dead.once('ready', ready));
    const ghost = await new RedisSlots(dead, { limit: 'live-stream', leaseMs: LEASE }).take([{ key: 'live|role|pit-manager', limit: 1 }]);
    expect(ghost.taken).toBe(true);
    dead.disconnect(); // its renewals fail from now on
    expect((await live.take([{ key: 'live|role|pit-manager', limit: 1 }])).taken).toBe(false);
    await sleep(LEASE + 200);
    const after = await live.take([{ key: 'live|role|pit-manager', limit: 1 }]);
    expect(after.taken).toBe(true);
    release(after);
    release(held);
    if (ghost.taken) ghost.release();
  });

  it('the refusal bytes per minute: one budget across instances, a new one the next minute', async () => {
    let now = 600_000;
    const one = new RedisMinuteBudget(redis, () => now);
    const two = new RedisMinuteBudget(redis, () => now);
    expect([await one.take('addr:x', 600, 1000), await two.take('addr:x', 400, 1000), await one.take('addr:x', 1, 1000)]).toEqual([true, true, false]);
    expect(await two.take('addr:y', 1000, 1000)).toBe(true);
    now += 60_000;
    expect(await two.take('addr:x', 1000, 1000)).toBe(true);
  });
});

describe('the shared backend on a live Redis', () => {
  it('counts the rate budget across two backends (two instances), every key under LIMITS_REDIS_PREFIX', async () => {
    const server = await startRedis();
    const settings = { LIMITS_REDIS_URL: server.url, LIMITS_REDIS_PREFIX: 'ledger:limits:t:', LIMITS_LEASE_MS: 5_000, LIMITS_REDIS_TIMEOUT_MS: 1000 };
    const [one, two] = [limitsBackend(settings), limitsBackend(settings)];
    const plain = new Redis(server.url);
    try {
      expect((await one.start()).connected).toBe(true);
      expect((await two.start()).connected).toBe(true);
      const hits = [];
      for (let i = 0; i < 3; i++) hits.push(await [one, two][i % 2].throttlerStorage!.increment('caller|auditor|a', 60_000, 2, 60_000, 'caller'));
      expect(hits.map((h) => [h.totalHits, h.isBlocked])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
      const grant = await one.slots('heavy-read').take([{ key: 'heavy|api', limit: 1 }]);
      expect(await two.refusalBytes!.take('addr:z', 10, 100)).toBe(true);
      const keys = await plain.keys('*');
      expect(keys.length).toBeGreaterThanOrEqual(3);
      expect(keys.every((k) => k.startsWith('ledger:limits:t:'))).toBe(true);
      if (grant.taken) grant.release();
    } finally {
      plain.disconnect();
      await one.close();
      await two.close();
      await server.stop();
    }
  });
});

describe('a shared limits store that does not answer', () => {
  it('answers 503 LIMITS.UNAVAILABLE at once (nothing taken, no request left waiting), and the backend says it is not connected', async () => {
    const server = await startRedis();
    const port = server.port;
    await server.stop();
    const limits = limitsBackend({ LIMITS_REDIS_URL: `redis://127.0.0.1:${port}`, LIMITS_REDIS_PREFIX: 'x:', LIMITS_LEASE_MS: 1000, LIMITS_REDIS_TIMEOUT_MS: 200 });
    try {
      expect((await limits.start()).connected).toBe(false);
      const started = Date.now();
      const err = await limits
        .slots('heavy-read')
        .take([{ key: 'heavy|api', limit: 4 }])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'LIMITS.UNAVAILABLE', details: { limit: 'heavy-read' } });
      const rate = await limits.throttlerStorage!.increment('caller|auditor|a', 60_000, 5, 60_000, 'caller').catch((e: unknown) => e);
      expect(rate).toMatchObject({ code: 'LIMITS.UNAVAILABLE', details: { limit: 'rate' } });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await limits.close();
    }
  });
});
