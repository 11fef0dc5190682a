import { Inject, Injectable, Logger, Optional, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { catalogueCounter, catalogueGauge } from '@ledger/metrics';
import type { Principal } from './auth/principal';
import { ApiError } from './api-error';
import { ResponseWatch, type AnswerClosed, type WatchedResponse } from './heavy-read-watch';
import { inProcessLimits, LIMITS, type LimitsBackend } from './limits/limits-backend';
import type { Slots } from './limits/slots';

/** Metadata key of {@link HeavyRead}. */
export const HEAVY_READ_KEY = 'ledger:heavy-read';

/**
 * Marks a read that walks a whole stream, table or ledger (chain verification, game recall,
 * anchor verification, exports, staff statistics): its handler runs it through {@link HeavyReadLimiter.run} and reads through the heavy-read
 * connection pool with a statement timeout (docs/architecture.md §10, "Limits at the edge").
 */
export const HeavyRead = () => SetMetadata(HEAVY_READ_KEY, true);

/**
 * What {@link HeavyReadLimiter.run} needs of the request: its caller (set by the token guard), its
 * response (an Express request carries it as `res`), and for the log its method and route template.
 */
export interface HeavyReadRequest {
  readonly principal?: Principal;
  readonly res?: WatchedResponse;
  readonly method?: string;
  readonly route?: { readonly path?: unknown };
}

/** Heavy reads holding a slot now in this process (with shared limits, the other instances' are not counted here). */
const inFlight = catalogueGauge('heavyReads');
/** Heavy reads whose answer closed before its end, by reason (`aborted`, `stalled`). */
const cutTotal = catalogueCounter('heavyReadsCut');

/** Log lines about cut answers per minute and process, at most; the rest are counted in the next line. */
export const CUT_LOG_LINES_PER_MINUTE = 20;

/**
 * Bounds the heavy reads ({@link HeavyRead}) of the API: at most `HEAVY_READS_PER_CALLER` at once
 * per token subject and `HEAVY_READS_MAX_CONCURRENT` over all callers; one more is refused at once
 * with 429 `RATE.HEAVY_READ_BUSY` (`details: { scope: 'caller' | 'api', limit, retryAfterSeconds: 1 }`,
 * `Retry-After: 1`), never queued. The handler calls {@link run} itself, after the pipes: a request
 * whose query is refused (400) never takes a slot.
 *
 * A slot is given back exactly once, when the read has settled (its value, its error, a statement
 * timeout) AND its answer's connection has closed — the query-log row and the serialisation of a
 * large report included. The answer is watched from the moment the slot is taken
 * ({@link ResponseWatch}): a client that goes away closes it (a streaming read stops at its next
 * write, docs/reports.md §5); a reader that stops reading and never closes is cut after
 * `HEAVY_READ_IDLE_TIMEOUT_MS` without a byte accepted by the socket. Each cut is counted
 * (`ledger_heavy_reads_cut_total{reason="aborted"|"stalled"}`) and logged, at most
 * {@link CUT_LOG_LINES_PER_MINUTE} lines a minute (docs/architecture.md §10).
 *
 * The slots count in this process's memory, or with `LIMITS_REDIS_URL` in a Redis every API
 * instance shares (leases renewed while held, `LIMITS_LEASE_MS`); when it does not answer, the read
 * is refused with 503 `LIMITS.UNAVAILABLE` before it starts.
 */
@Injectable()
export class HeavyReadLimiter {
  private readonly slots: Slots;
  private running = 0;
  private readonly callerLimit: number;
  private readonly totalLimit: number;
  private readonly idleMs: number;
  private readonly logger = new Logger('HeavyRead');
  private logWindowStart = 0;
  private logLines = 0;
  private suppressed = 0;

  /** @param limits where the slots count; @default in this process's memory */
  constructor(@Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>, @Optional() @Inject(LIMITS) limits: LimitsBackend | null = null) {
    this.slots = (limits ?? inProcessLimits()).slots('heavy-read');
    this.callerLimit = config.get('HEAVY_READS_PER_CALLER', { infer: true });
    this.totalLimit = config.get('HEAVY_READS_MAX_CONCURRENT', { infer: true });
    this.idleMs = config.get('HEAVY_READ_IDLE_TIMEOUT_MS', { infer: true });
  }

  /**
   * Runs `read` in a slot of the request's caller (`req.principal`), and watches `req.res` until its
   * connection closes (see the class).
   * @throws ApiError `RATE.HEAVY_READ_BUSY` (429) when the caller or the API has no free slot,
   *   `LIMITS.UNAVAILABLE` (503) when the shared slots do not answer; else what `read` throws
   */
  async run<T>(req: HeavyReadRequest | undefined, read: () => Promise<T>): Promise<T> {
    const caller = req?.principal;
    const key = caller ? `${caller.role}|${caller.id}` : 'anonymous';
    const release = await this.take(key);
    const res = req?.res;
    const watch = res ? new ResponseWatch(res, { idleMs: this.idleMs, onClose: (closed) => this.answerClosed(req, closed) }) : null;
    try {
      return await read();
    } finally {
      if (!watch || watch.isClosed) release();
      else res!.once('close', release);
    }
  }

  /**
   * Takes a slot of `key` and one of the API's. @returns its release, which frees it once however often it is called
   * @throws ApiError `RATE.HEAVY_READ_BUSY` (429) when `key` or the API has no free slot, `LIMITS.UNAVAILABLE` (503)
   */
  private async take(key: string): Promise<() => void> {
    const grant = await this.slots.take([
      { key: `heavy|caller|${key}`, limit: this.callerLimit },
      { key: 'heavy|api', limit: this.totalLimit },
    ]);
    if (!grant.taken) {
      if (grant.full === 0) throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'caller', limit: this.callerLimit, retryAfterSeconds: 1 });
      throw ApiError.of('RATE.HEAVY_READ_BUSY', { scope: 'api', limit: this.totalLimit, retryAfterSeconds: 1 });
    }
    this.running += 1;
    inFlight.set(this.running);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      grant.release();
      this.running -= 1;
      inFlight.set(this.running);
    };
  }

  /** Counts and logs (within the budget) an answer that closed before its end. */
  private answerClosed(req: HeavyReadRequest | undefined, closed: AnswerClosed): void {
    if (closed.outcome === 'finished') return;
    cutTotal.inc({ reason: closed.outcome });
    const now = Date.now();
    if (now - this.logWindowStart >= 60_000) {
      this.logWindowStart = now;
      this.logLines = 0;
    }
    if (this.logLines >= CUT_LOG_LINES_PER_MINUTE) {
      this.suppressed += 1;
      return;
    }
    this.logLines += 1;
    const route = typeof req?.route?.path === 'string' ? req.route.path.slice(0, 120) : 'unknown';
    const fields = {
      reason: closed.outcome,
      route: `${String(req?.method ?? 'GET').slice(0, 10)} ${route}`,
      callerRole: req?.principal?.role ?? 'unknown',
      callerId: (req?.principal?.id ?? 'unknown').slice(0, 80),
      bytesAccepted: closed.bytesAccepted,
      heldMs: closed.heldMs,
      ...(this.suppressed > 0 ? { suppressed: this.suppressed } : {}),
    };
    this.suppressed = 0;
    const msg = closed.outcome === 'stalled' ? `heavy read cut: no byte accepted for ${this.idleMs} ms` : 'heavy read closed before its end: the client went away, or a failure cut it';
    this.logger.warn({ ...fields, idleTimeoutMs: this.idleMs }, msg);
  }
}
