import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import { Observable, finalize } from 'rxjs';
import type { LedgerApiEnv } from '@ledger/config';
import { gauge } from '@ledger/metrics';
import type { Principal } from '../auth/principal';
import { ApiError } from './api-error';

/** Metadata key of {@link HeavyRead}. */
export const HEAVY_READ_KEY = 'ledger:heavy-read';

/**
 * Marks a read that walks a whole stream, table or ledger (chain verification, game recall,
 * anchor verification): it runs under {@link HeavyReadLimiter} and reads through the heavy-read
 * connection pool with a statement timeout (docs/architecture.md §10, "Limits at the edge").
 */
export const HeavyRead = () => SetMetadata(HEAVY_READ_KEY, true);

/** Heavy reads running now in this process. */
const inFlight = gauge('ledger_heavy_reads_in_flight', 'heavy reads (chain and anchor verification, recall) running now');

/**
 * Bounds the heavy reads ({@link HeavyRead}) of the API: at most `HEAVY_READS_PER_CALLER` at once
 * per token subject and `HEAVY_READS_MAX_CONCURRENT` over all callers; one more is refused at once
 * with 429 `RATE.HEAVY_READ_BUSY` (`details: { scope: 'caller' | 'api', limit, retryAfterSeconds: 1 }`,
 * `Retry-After: 1`), never queued. A slot is held from before the handler to the end of the
 * response's observable (the query-log row included) and freed on success, error or abort.
 */
@Injectable()
export class HeavyReadLimiter implements NestInterceptor {
  private readonly perCaller = new Map<string, number>();
  private running = 0;
  private readonly callerLimit: number;
  private readonly totalLimit: number;

  constructor(
    private readonly reflector: Reflector,
    @Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.callerLimit = config.get('HEAVY_READS_PER_CALLER', { infer: true });
    this.totalLimit = config.get('HEAVY_READS_MAX_CONCURRENT', { infer: true });
  }

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.getAllAndOverride<boolean>(HEAVY_READ_KEY, [ctx.getHandler(), ctx.getClass()])) return next.handle();
    const principal = (ctx.switchToHttp().getRequest() as { principal?: Principal }).principal;
    const key = principal ? `${principal.role}|${principal.id}` : 'anonymous';
    const mine = this.perCaller.get(key) ?? 0;
    if (mine >= this.callerLimit) throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'caller', limit: this.callerLimit, retryAfterSeconds: 1 });
    if (this.running >= this.totalLimit) throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'api', limit: this.totalLimit, retryAfterSeconds: 1 });
    this.perCaller.set(key, mine + 1);
    this.running += 1;
    inFlight.set(this.running);
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      const left = (this.perCaller.get(key) ?? 1) - 1;
      if (left <= 0) this.perCaller.delete(key);
      else this.perCaller.set(key, left);
      this.running -= 1;
      inFlight.set(this.running);
    };
    try {
      return next.handle().pipe(finalize(free));
    } catch (e) {
      free();
      throw e;
    }
  }
}
