import { Inject, Injectable, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { gauge } from '@ledger/metrics';
import type { Principal } from './auth/principal';
import { ApiError } from './api-error';

/** Metadata key of {@link HeavyRead}. */
export const HEAVY_READ_KEY = 'ledger:heavy-read';

/**
 * Marks a read that walks a whole stream, table or ledger (chain verification, game recall,
 * anchor verification, a shoe's stream): its handler runs it through {@link HeavyReadLimiter.run} and reads through the heavy-read
 * connection pool with a statement timeout (docs/architecture.md §10, "Limits at the edge").
 */
export const HeavyRead = () => SetMetadata(HEAVY_READ_KEY, true);

/** What {@link HeavyReadLimiter.run} needs of the request: its caller (set by the token guard) and its response. */
export interface HeavyReadRequest {
  readonly principal?: Principal;
  readonly res?: { readonly closed: boolean; once(event: 'close', listener: () => void): unknown };
}

/** Heavy reads running now in this process. */
const inFlight = gauge('ledger_heavy_reads_in_flight', 'heavy reads (chain and anchor verification, recall) running now');

/**
 * Bounds the heavy reads ({@link HeavyRead}) of the API: at most `HEAVY_READS_PER_CALLER` at once
 * per token subject and `HEAVY_READS_MAX_CONCURRENT` over all callers; one more is refused at once
 * with 429 `RATE.HEAVY_READ_BUSY` (`details: { scope: 'caller' | 'api', limit, retryAfterSeconds: 1 }`,
 * `Retry-After: 1`), never queued. The handler calls {@link run} itself, after the pipes: a request
 * whose query is refused (400) never takes a slot. A slot is held until the read has settled AND
 * its response has closed (the query-log row and the serialisation of a large report included; a
 * caller that aborts does not get its slot back before its read ends).
 */
@Injectable()
export class HeavyReadLimiter {
  private readonly perCaller = new Map<string, number>();
  private running = 0;
  private readonly callerLimit: number;
  private readonly totalLimit: number;

  constructor(@Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>) {
    this.callerLimit = config.get('HEAVY_READS_PER_CALLER', { infer: true });
    this.totalLimit = config.get('HEAVY_READS_MAX_CONCURRENT', { infer: true });
  }

  /**
   * Runs `read` in a slot of the request's caller (`req.principal`).
   * @throws ApiError `RATE.HEAVY_READ_BUSY` (429) when the caller or the API has no free slot; else what `read` throws
   */
  async run<T>(req: HeavyReadRequest | undefined, read: () => Promise<T>): Promise<T> {
    const caller = req?.principal;
    const key = caller ? `${caller.role}|${caller.id}` : 'anonymous';
    const mine = this.perCaller.get(key) ?? 0;
    if (mine >= this.callerLimit) throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'caller', limit: this.callerLimit, retryAfterSeconds: 1 });
    if (this.running >= this.totalLimit) throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'api', limit: this.totalLimit, retryAfterSeconds: 1 });
    this.perCaller.set(key, mine + 1);
    this.running += 1;
    inFlight.set(this.running);
    const free = () => {
      const left = (this.perCaller.get(key) ?? 1) - 1;
      if (left <= 0) this.perCaller.delete(key);
      else this.perCaller.set(key, left);
      this.running -= 1;
      inFlight.set(this.running);
    };
    try {
      return await read();
    } finally {
      const res = req?.res;
      if (!res || res.closed) free();
      else res.once('close', free);
    }
  }
}
