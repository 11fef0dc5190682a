import { createHash } from 'node:crypto';
import { limitsUnavailable, type RedisMinuteBudget } from '../kernel/limits/redis-limits';

/** Injection token of the {@link RefusalBudget}. */
export const REFUSAL_BUDGET = Symbol('REFUSAL_BUDGET');

/** Settings of a {@link RefusalBudget} (the API's `REFUSAL_PAYLOAD_MAX_BYTES`, `REFUSAL_LOG_BYTES_PER_MINUTE`). */
export interface RefusalBudgetOptions {
  /** Largest raw payload kept whole, in bytes of JSON. @default 2048 */
  readonly payloadMaxBytes: number;
  /** Bytes of the rejection log one caller's sampled refusals may take per minute. @default 65536 */
  readonly bytesPerMinute: number;
}

/** The defaults of {@link RefusalBudgetOptions} (those of the API's configuration). */
export const DEFAULT_REFUSAL_BUDGET: RefusalBudgetOptions = { payloadMaxBytes: 2048, bytesPerMinute: 65_536 };

/** Callers a budget tracks at once; past it the windows of earlier minutes are forgotten, and if that is not enough nothing more is stored this minute. */
const MAX_TRACKED_CALLERS = 10_000;
const MINUTE_MS = 60_000;

/**
 * How much of the append-only `rejections` table the refusals of unauthenticated or
 * malformed-transport requests may take (docs/guarantees.md §11, §12): per caller (`sub:<subject>`
 * or `addr:<remote address>`) and per minute of the clock, at most `bytesPerMinute` bytes; a
 * refusal beyond it is only counted. Memory is bounded too ({@link MAX_TRACKED_CALLERS} callers).
 * In this process's memory ({@link take}: each API process its own budget), or, with `shared`
 * (`LIMITS_REDIS_URL`), in a Redis every API instance shares ({@link spend}; docs/architecture.md §10).
 */
export class RefusalBudget {
  private readonly spent = new Map<string, { minute: number; bytes: number }>();

  /**
   * @param options the caps (see {@link RefusalBudgetOptions})
   * @param now clock, ms since the epoch
   * @param shared the budget shared by every API instance (`LIMITS_REDIS_URL`); null: this process's memory
   */
  constructor(
    readonly options: RefusalBudgetOptions = DEFAULT_REFUSAL_BUDGET,
    private readonly now: () => number = Date.now,
    private readonly shared: RedisMinuteBudget | null = null,
  ) {}

  /**
   * Charges `bytes` to `caller`'s budget of the current minute if they fit: in the shared budget when
   * there is one, else as {@link take}. A shared budget that does not answer charges nothing and
   * refuses (the refusal is only counted, never stored unbounded; `ledger_limits_unavailable_total{limit="refusal-log"}`).
   * @returns true when the refusal may be stored, false when it may only be counted; never throws
   */
  async spend(caller: string, bytes: number): Promise<boolean> {
    if (!this.shared) return this.take(caller, bytes);
    try {
      return await this.shared.take(caller, bytes, this.options.bytesPerMinute);
    } catch (err) {
      limitsUnavailable('refusal-log', err);
      return false;
    }
  }

  /**
   * Charges `bytes` to `caller`'s budget of the current minute if they fit in it.
   * @returns true when the refusal may be stored (the bytes are charged), false when it may only be counted
   */
  take(caller: string, bytes: number): boolean {
    const minute = Math.floor(this.now() / MINUTE_MS);
    let entry = this.spent.get(caller);
    if (!entry || entry.minute !== minute) {
      if (!entry && this.spent.size >= MAX_TRACKED_CALLERS) {
        for (const [k, v] of this.spent) if (v.minute !== minute) this.spent.delete(k);
        if (this.spent.size >= MAX_TRACKED_CALLERS) return false;
      }
      entry = { minute, bytes: 0 };
      this.spent.set(caller, entry);
    }
    if (entry.bytes + bytes > this.options.bytesPerMinute) return false;
    entry.bytes += bytes;
    return true;
  }

  /**
   * `payload` as a sampled refusal keeps it: whole when its JSON is at most `payloadMaxBytes`,
   * else `{ truncated: true, bytes, contentLength, sha256, head }` — the JSON's length in bytes,
   * the request's declared `Content-Length`, the SHA-256 (hex) of the JSON, and its first bytes
   * (so that the summary itself stays within the cap).
   * @param contentLength the request's `Content-Length` header, when it had one
   */
  cap(payload: unknown, contentLength: number | null): unknown {
    const json = JSON.stringify(payload) ?? 'null';
    const buf = Buffer.from(json, 'utf8');
    if (buf.length <= this.options.payloadMaxBytes) return payload;
    const sha256 = createHash('sha256').update(buf).digest('hex');
    const room = Math.max(0, this.options.payloadMaxBytes - 256);
    return { truncated: true, bytes: buf.length, contentLength, sha256, head: buf.subarray(0, room).toString('utf8') };
  }
}
