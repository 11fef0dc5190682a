import { createHash, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { catalogueCounter } from '@ledger/metrics';
import { ApiError } from '../api-error';
import type { SlotClaim, SlotGrant, Slots } from './slots';

/** Requests, takes and charges refused or left uncounted because the shared limits store did not answer, by limit. */
const unavailableTotal = catalogueCounter('limitsUnavailable');

/** Which limit a failure of the shared store hit (the `limit` label of `ledger_limits_unavailable_total`). */
export type SharedLimit = 'rate' | 'heavy-read' | 'live-stream' | 'refusal-log';

/** Error log lines about the shared store per process, at most one per this many ms; the rest are counted in the next line. */
const FAILURE_LOG_EVERY_MS = 10_000;
const logger = new Logger('Limits');
let lastFailureLog = 0;
let failuresNotLogged = 0;

/**
 * Counts a failure of the shared store (`ledger_limits_unavailable_total{limit}`) and logs it, at
 * most one line every {@link FAILURE_LOG_EVERY_MS} ms per process. @returns the refusal to answer:
 * 503 `LIMITS.UNAVAILABLE` (`details: { limit, reason, retryAfterSeconds: 1 }`).
 */
export function limitsUnavailable(limit: SharedLimit, err: unknown): ApiError {
  unavailableTotal.inc({ limit });
  const reason = (err instanceof Error ? err.message : String(err)).slice(0, 200);
  const now = Date.now();
  if (now - lastFailureLog >= FAILURE_LOG_EVERY_MS) {
    logger.error({ limit, reason, ...(failuresNotLogged > 0 ? { notLogged: failuresNotLogged } : {}) }, 'the shared limits store (LIMITS_REDIS_URL) does not answer: requests it counts are refused (503 LIMITS.UNAVAILABLE)');
    lastFailureLog = now;
    failuresNotLogged = 0;
  } else {
    failuresNotLogged += 1;
  }
  return ApiError.of('LIMITS.UNAVAILABLE', { limit, reason, retryAfterSeconds: 1 });
}

/**
 * Takes a place of every key (sorted sets of holder → lease end, in ms of the Redis clock) or none:
 * expired leases are dropped first; KEYS the sets, ARGV[1] the lease in ms, ARGV[2] the holder,
 * ARGV[3..] the limits. @returns 0 when taken, else the 1-based index of the first full key.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, k in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
  if redis.call('ZCARD', k) >= tonumber(ARGV[i + 2]) then return i end
end
for i, k in ipairs(KEYS) do
  redis.call('ZADD', k, now + lease, ARGV[2])
  redis.call('PEXPIRE', k, lease)
end
return 0`;

/** Renews the holder's lease (KEYS the sets, ARGV[1] the lease in ms, ARGV[2] the holder) where it has not ended. @returns how many it still held. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
local held = 0
for i, k in ipairs(KEYS) do
  local ends = redis.call('ZSCORE', k, ARGV[2])
  if ends and tonumber(ends) > now then
    redis.call('ZADD', k, now + lease, ARGV[2])
    redis.call('PEXPIRE', k, lease)
    held = held + 1
  end
end
return held`;

/** Gives the holder's places back. */
const GIVE_BACK = `
for i, k in ipairs(KEYS) do redis.call('ZREM', k, ARGV[1]) end
return 0`;

/**
 * Charges bytes to a per-minute counter if they fit: KEYS[1] the counter, ARGV[1] the bytes,
 * ARGV[2] the budget, ARGV[3] the counter's life in ms. @returns 1 when charged, 0 when over.
 */
const CHARGE = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** The scripts above as ioredis commands (keys prefixed by the client's `keyPrefix`). */
interface LimitsCommands {
  limitsTake(numKeys: number, ...args: (string | number)[]): Promise<number>;
  limitsRenew(numKeys: number, ...args: (string | number)[]): Promise<number>;
  limitsGiveBack(numKeys: number, ...args: (string | number)[]): Promise<number>;
  limitsCharge(key: string, bytes: number, budget: number, ttlMs: number): Promise<number>;
}

/** `redis` with the limits' scripts defined once (idempotent). */
export function withLimitScripts(redis: Redis): Redis & LimitsCommands {
  const r = redis as Redis & LimitsCommands & { limitsScripts?: true };
  if (!r.limitsScripts) {
    redis.defineCommand('limitsTake', { lua: TAKE });
    redis.defineCommand('limitsRenew', { lua: RENEW });
    redis.defineCommand('limitsGiveBack', { lua: GIVE_BACK });
    redis.defineCommand('limitsCharge', { lua: CHARGE, numberOfKeys: 1 });
    r.limitsScripts = true;
  }
  return r;
}

/** A key part that may be long or hold any character (a token subject, an address): kept when short and plain, else its SHA-256. */
export function keyPart(s: string): string {
  return /^[A-Za-z0-9:._@-]{1,120}$/.test(s) ? s : `h:${createHash('sha256').update(s).digest('hex')}`;
}

/**
 * {@link Slots} shared by every API instance through one Redis (docs/architecture.md §10): each key
 * a sorted set of holders scored by the end of their lease (`leaseMs`, on the Redis clock), taken and
 * given back atomically by Lua scripts. A holder renews its lease every third of it while it holds
 * the place; an instance that dies stops renewing, and its places are free again at most `leaseMs`
 * later (never leaked). A release that does not reach Redis is logged; the lease then ends by itself.
 */
export class RedisSlots implements Slots {
  private readonly redis: Redis & LimitsCommands;
  private readonly instance = randomUUID();
  private next = 0;

  /**
   * @param redis the limits' client (its `keyPrefix` is `LIMITS_REDIS_PREFIX`)
   * @param options `limit` the label of failures; `leaseMs` how long a place outlives its last renewal
   */
  constructor(
    redis: Redis,
    private readonly options: { readonly limit: SharedLimit; readonly leaseMs: number },
  ) {
    this.redis = withLimitScripts(redis);
  }

  /** @throws ApiError `LIMITS.UNAVAILABLE` (503) when Redis does not answer (nothing is taken) */
  async take(claims: readonly SlotClaim[]): Promise<SlotGrant> {
    const keys = claims.map((c) => keyPart(c.key));
    const holder = `${this.instance}:${(this.next += 1)}`;
    const { leaseMs, limit } = this.options;
    let full: number;
    try {
      full = await this.redis.limitsTake(keys.length, ...keys, leaseMs, holder, ...claims.map((c) => c.limit));
    } catch (err) {
      // a take whose answer was lost may have been made: give it back (best effort)
      this.redis.limitsGiveBack(keys.length, ...keys, holder).catch(() => undefined);
      throw limitsUnavailable(limit, err);
    }
    if (full > 0) return { taken: false, full: full - 1 };
    const renew = setInterval(
      () => {
        this.redis.limitsRenew(keys.length, ...keys, leaseMs, holder).then(
          (held) => {
            if (held < keys.length) logger.warn({ limit, held, of: keys.length }, 'a lease of the shared limits ended before its release (Redis did not answer for longer than LIMITS_LEASE_MS)');
          },
          (err: unknown) => limitsUnavailable(limit, err),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    let freed = false;
    const release = () => {
      if (freed) return;
      freed = true;
      clearInterval(renew);
      this.redis.limitsGiveBack(keys.length, ...keys, holder).catch((err: unknown) => logger.warn({ limit, reason: String(err) }, 'a release did not reach the shared limits store: its lease ends by itself'));
    };
    return { taken: true, release };
  }
}

/**
 * A per-minute byte budget shared by every API instance (the refusal log's, docs/architecture.md §10):
 * one counter per caller and minute of the clock (`refusal|<caller>|<minute>`), kept two minutes.
 */
export class RedisMinuteBudget {
  private readonly redis: Redis & LimitsCommands;

  /** @param redis the limits' client; @param now clock, ms since the epoch */
  constructor(
    redis: Redis,
    private readonly now: () => number = Date.now,
  ) {
    this.redis = withLimitScripts(redis);
  }

  /**
   * Charges `bytes` to `caller`'s budget of this minute if they fit in `budget`.
   * @returns true when charged
   * @throws what the client throws when Redis does not answer (the caller decides: the refusal log drops the row)
   */
  async take(caller: string, bytes: number, budget: number): Promise<boolean> {
    const minute = Math.floor(this.now() / 60_000);
    return (await this.redis.limitsCharge(`refusal|${keyPart(caller)}|${minute}`, bytes, budget, 120_000)) === 1;
  }
}

/**
 * A `@nestjs/throttler` storage whose failures answer 503 `LIMITS.UNAVAILABLE` (see
 * {@link limitsUnavailable}) instead of a 500: the rate limits are never silently lifted.
 */
export class GuardedThrottlerStorage implements ThrottlerStorage {
  /** @param inner the shared storage (`@nest-lab/throttler-storage-redis`) */
  constructor(private readonly inner: ThrottlerStorage) {}

  /** @throws ApiError `LIMITS.UNAVAILABLE` (503) when the inner storage fails */
  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): ReturnType<ThrottlerStorage['increment']> {
    try {
      return await this.inner.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (err) {
      throw limitsUnavailable('rate', err);
    }
  }
}
