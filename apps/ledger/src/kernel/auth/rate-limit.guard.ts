import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import type { LedgerApiEnv } from '@ledger/config';
import type { Role } from '@ledger/events';
import { PUBLIC_KEY } from './jwt-auth.guard';
import type { Principal } from './principal';
import { ApiError } from '../api-error';

/** The settings of {@link rateLimits}. */
export type RateLimitSettings = Pick<LedgerApiEnv, 'RATE_LIMIT_WINDOW_MS' | 'RATE_LIMIT_PER_ADDRESS' | 'RATE_LIMIT_TABLE_DEVICE' | 'RATE_LIMIT_BETTING_PLATFORM' | 'RATE_LIMIT_PIT_MANAGER' | 'RATE_LIMIT_AUDITOR'>;

/** The request budget of one caller of each role per window (the system role is never minted). */
export function roleBudgets(s: RateLimitSettings): Readonly<Record<Role, number>> {
  return {
    'table-device': s.RATE_LIMIT_TABLE_DEVICE,
    'betting-platform': s.RATE_LIMIT_BETTING_PLATFORM,
    'pit-manager': s.RATE_LIMIT_PIT_MANAGER,
    auditor: s.RATE_LIMIT_AUDITOR,
    system: 0,
  };
}

const callerOf = (ctx: ExecutionContext): Principal | null => (ctx.switchToHttp().getRequest() as { edgeCaller?: Principal | null }).edgeCaller ?? null;

/**
 * The `@nestjs/throttler` options of the API (docs/architecture.md §10, "Limits at the edge"): a
 * fixed window of `RATE_LIMIT_WINDOW_MS`, counted over all routes (not per route):
 * - `caller`: every request of one token subject, with the budget of its role
 *   (`RATE_LIMIT_TABLE_DEVICE`, `…_BETTING_PLATFORM`, `…_PIT_MANAGER`, `…_AUDITOR`); skipped without a valid token.
 * A caller over it is blocked for the rest of a window: 429 `RATE.LIMITED` with `Retry-After`.
 * The per-address budget (`RATE_LIMIT_PER_ADDRESS`) is counted in the same storage, before
 * routing, by the edge middleware (`edgeMiddleware` in edge-limits.ts), so that unknown routes count too.
 * The counts are in `@nestjs/throttler`'s storage: this process's memory (one budget per API
 * process), or with `LIMITS_REDIS_URL` a Redis every API instance shares (`@nest-lab/throttler-storage-redis`,
 * kernel/limits/limits-backend.ts).
 */
export function rateLimits(s: RateLimitSettings): ThrottlerModuleOptions {
  const budgets = roleBudgets(s);
  return {
    generateKey: (_ctx, tracker, name) => `${name}|${tracker}`,
    throttlers: [
      {
        name: 'caller',
        ttl: s.RATE_LIMIT_WINDOW_MS,
        limit: (ctx) => budgets[callerOf(ctx)?.role ?? 'system'],
        skipIf: (ctx) => callerOf(ctx) === null,
        getTracker: (req) => `caller|${(req.edgeCaller as Principal).role}|${(req.edgeCaller as Principal).id}`,
      },
    ],
  };
}

/**
 * The global rate-limit guard: `@nestjs/throttler`'s guard with the API's answer, 429
 * `RATE.LIMITED` with `details: { scope: 'address' | 'caller', limit, windowMs, retryAfterSeconds }`
 * (the exception filter sets `Retry-After` from it). `@Public()` routes (health, metrics) are not
 * limited. Runs before the token guard, so an address without a token is limited too.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(@InjectThrottlerOptions() options: ThrottlerModuleOptions, @InjectThrottlerStorage() storage: ThrottlerStorage, reflector: Reflector) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(ctx: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [ctx.getHandler(), ctx.getClass()]) === true;
  }

  protected override async throwThrottlingException(_ctx: ExecutionContext, d: ThrottlerLimitDetail): Promise<void> {
    const scope = d.tracker.split('|')[0];
    throw ApiError.of('RATE.LIMITED', { scope, limit: d.limit, windowMs: d.ttl, retryAfterSeconds: Math.max(1, d.timeToBlockExpire) });
  }
}
