import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import type { LedgerApiEnv } from '@ledger/config';
import { GuardedThrottlerStorage, RedisMinuteBudget, RedisSlots, type SharedLimit } from './redis-limits';
import { MemorySlots, type Slots } from './slots';

/** Injection token of the {@link LimitsBackend}. */
export const LIMITS = Symbol('LIMITS');

/** The settings of {@link limitsBackend} (docs/configuration.md). */
export type LimitsSettings = Pick<LedgerApiEnv, 'LIMITS_REDIS_URL' | 'LIMITS_REDIS_PREFIX' | 'LIMITS_LEASE_MS' | 'LIMITS_REDIS_TIMEOUT_MS'>;

/**
 * Where the API's limits count (docs/architecture.md §10, "Limits at the edge"): the rate budgets,
 * the heavy-read slots, the live-stream places and the refusal log's bytes per minute.
 * - `in-process` (no `LIMITS_REDIS_URL`): in this process's memory, each API instance its own budgets;
 * - `shared`: in the Redis of `LIMITS_REDIS_URL`, under `LIMITS_REDIS_PREFIX`, one budget for every
 *   instance; when it does not answer, what it counts is refused (503 `LIMITS.UNAVAILABLE`).
 */
export interface LimitsBackend {
  readonly mode: 'in-process' | 'shared';
  /** The rate limits' storage; undefined: `@nestjs/throttler`'s own, in memory. */
  readonly throttlerStorage?: ThrottlerStorage;
  /** The refusal log's per-minute budget when shared; null: the budget counts in memory. */
  readonly refusalBytes: RedisMinuteBudget | null;
  /** A new set of counting semaphores for `limit` (each call its own in memory; one Redis, apart by their keys, when shared). */
  slots(limit: SharedLimit): Slots;
  /** Where it counts, for the start-up log line (never a password). */
  describe(): Record<string, unknown>;
  /** Connects when shared (never throws: a Redis that does not answer yet is logged, and its limits answer 503 until it does). */
  start(): Promise<{ connected: boolean; reason?: string }>;
  /** Disconnects when shared. */
  close(): Promise<void>;
}

/** The limits in this process's memory (one API instance; no `LIMITS_REDIS_URL`). */
export function inProcessLimits(): LimitsBackend {
  return {
    mode: 'in-process',
    refusalBytes: null,
    slots: () => new MemorySlots(),
    describe: () => ({ mode: 'in-process' }),
    start: async () => ({ connected: true }),
    close: async () => undefined,
  };
}

/** `url` without its user and password, for logs. */
export function redisTarget(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

/**
 * The API's limits for its settings: {@link inProcessLimits} without `LIMITS_REDIS_URL`, else shared
 * through one ioredis client (`keyPrefix` `LIMITS_REDIS_PREFIX`, commands failing at once while it is
 * disconnected and after `LIMITS_REDIS_TIMEOUT_MS`, reconnecting in the background). Connects nothing
 * until {@link LimitsBackend.start}.
 */
export function limitsBackend(s: LimitsSettings): LimitsBackend {
  if (!s.LIMITS_REDIS_URL) return inProcessLimits();
  const url = s.LIMITS_REDIS_URL;
  const redis = new Redis(url, {
    keyPrefix: s.LIMITS_REDIS_PREFIX,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: s.LIMITS_REDIS_TIMEOUT_MS,
    connectTimeout: Math.max(1000, s.LIMITS_REDIS_TIMEOUT_MS),
    retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
  });
  // errors reach the commands that failed; without a listener ioredis would print each reconnection attempt
  redis.on('error', () => undefined);
  const lease = s.LIMITS_LEASE_MS;
  return {
    mode: 'shared',
    throttlerStorage: new GuardedThrottlerStorage(new ThrottlerStorageRedisService(redis)),
    refusalBytes: new RedisMinuteBudget(redis),
    slots: (limit) => new RedisSlots(redis, { limit, leaseMs: lease }),
    describe: () => ({ mode: 'shared', redis: redisTarget(url), prefix: s.LIMITS_REDIS_PREFIX, leaseMs: lease }),
    start: async () => {
      try {
        await redis.connect();
        return { connected: true };
      } catch (err) {
        return { connected: false, reason: err instanceof Error ? err.message : String(err) };
      }
    },
    close: async () => {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/** Closes the {@link LimitsBackend} when the app shuts down. */
@Injectable()
export class LimitsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(LIMITS) private readonly limits: LimitsBackend) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limits.close();
  }
}
