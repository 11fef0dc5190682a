import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { ApiError } from '../kernel/api-error';
import { GamingDayCloseService } from './gaming-day-close.service';

/** The day before `day` (`YYYY-MM-DD`). */
export function previousDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}

/** The days from `from` to `to` (`YYYY-MM-DD`, both included), oldest first; at most `max` (the oldest). */
export function daysBetween(from: string, to: string, max: number): string[] {
  const out: string[] = [];
  for (let d = from; d <= to && out.length < max; d = nextDay(d)) out.push(d);
  return out;
}

function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** Days one sweep closes at most (a longer backlog is caught up over the next sweeps). */
export const SWEEP_MAX_DAYS = 31;

/**
 * The automatic gaming-day close (docs/reports.md §2): every `GAMING_DAY_CLOSE_SWEEP_MS` (0: off),
 * every gaming day that has ended at least `GAMING_DAY_CLOSE_GRACE_MINUTES` ago and is not closed for
 * every table is closed for the tables not closed yet, as `AUTOMATIC` by `ledger`, oldest first: from
 * the latest such day that has a genuine close (a day closed early for some tables, or the last day
 * closed before an outage) through the last day that ended (the day before the gaming day of now −
 * grace), at most {@link SWEEP_MAX_DAYS} a sweep. A day the read model has not caught up with stops the
 * sweep there (tried again at the next one).
 * Safe with several API instances: the day stream's expected version keeps one close per day and table, and the instance
 * that loses the race gets `GAMING_DAY.ALREADY_CLOSED`, which is the expected answer here. A read
 * model not caught up (`ASOF.NOT_PROJECTED`) or a missing key is retried at the next sweep.
 */
@Injectable()
export class GamingDayCloseSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('GamingDayCloseSweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly everyMs: number;
  private readonly graceMs: number;

  constructor(
    private readonly closes: GamingDayCloseService,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.everyMs = config.get('GAMING_DAY_CLOSE_SWEEP_MS', { infer: true });
    this.graceMs = config.get('GAMING_DAY_CLOSE_GRACE_MINUTES', { infer: true }) * 60_000;
  }

  onApplicationBootstrap(): void {
    if (this.everyMs === 0) return;
    this.timer = setInterval(() => void this.sweep(), this.everyMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** The day a sweep at `now` closes. */
  dueDay(now: Date): string {
    return previousDay(this.closes.dayOf(new Date(now.getTime() - this.graceMs)));
  }

  /** The days a sweep at `now` tries, oldest first (see the class comment). */
  async dueDays(now: Date): Promise<string[]> {
    const last = this.dueDay(now);
    const closedDays = (await this.closes.list()).closes.map((c) => c.gamingDay).filter((d) => d <= last);
    const from = closedDays.length > 0 ? closedDays.reduce((a, b) => (a > b ? a : b)) : last;
    return daysBetween(from, last, SWEEP_MAX_DAYS);
  }

  /** One sweep (also called by tests). @returns the last day it closed, or null when there was nothing to do */
  async sweep(now: Date = new Date()): Promise<string | null> {
    if (this.running) return null;
    let closed: string | null = null;
    this.running = (async () => {
      for (const day of await this.dueDays(now)) {
        try {
          await this.closes.close(day, null, { id: 'ledger', role: 'system', trigger: 'AUTOMATIC' }, now);
          closed = day;
          this.logger.log(`gaming day ${day} closed automatically`);
        } catch (err) {
          const code = err instanceof ApiError ? err.code : null;
          if (code === 'GAMING_DAY.ALREADY_CLOSED') continue;
          if (code === 'ASOF.NOT_PROJECTED' || code === 'GAMING_DAY.NO_SIGNING_KEY') this.logger.warn(`gaming day ${day} not closed yet: ${(err as Error).message}`);
          else this.logger.error(`automatic close of gaming day ${day} failed: ${(err as Error).message}`);
          return; // the later days wait for this one
        }
      }
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
    return closed;
  }
}
