import type { SignificantCauseWindow } from '@ledger/events';
import type { SignificantEventCode } from './codes';
import { STORM_WINDOW_SECONDS, windowStartOf } from './causes';

/** A window ended: what one raise stands for, with the first cause seen in it. */
export interface DueWindow<T> {
  readonly code: SignificantEventCode;
  readonly window: SignificantCauseWindow;
  readonly first: T;
}

/**
 * What {@link FloodWindows.add} did with a cause: opened a window (the caller raises it at once:
 * `first`, the window with count 1), counted it in an open one (raised with the rest when the window
 * ends), or dropped it (too many windows open).
 */
export type FloodOutcome = { readonly outcome: 'opened'; readonly first: DueWindow<unknown>['window'] } | { readonly outcome: 'counted' } | { readonly outcome: 'dropped' };

interface Open<T> {
  code: SignificantEventCode;
  subject: string;
  startMs: number;
  count: number;
  /** The window's second cause: what the raise of the rest names. */
  second: T | null;
}

/**
 * The flood bound of the significant events whose causes can repeat (refusals, a device's skewed
 * facts; docs/significant-events.md, "Floods are bounded"): causes are gathered per (code, subject,
 * window of `seconds` aligned to the epoch); a window's first cause is raised at once (within the
 * second the catalogue asks), the causes after it by one raise when the window has ended, named by
 * the second, with their count. At most `maxOpen` windows are open at once: a cause that would open
 * one more is dropped (the caller counts it). Pure: the caller passes the times, ms since the epoch.
 */
export class FloodWindows<T> {
  private readonly open = new Map<string, Open<T>>();

  /** @param options.seconds the windows' length (`SIGNIFICANT_FLOOD_WINDOW_SECONDS`); options.maxOpen the most windows open at once */
  constructor(private readonly options: { readonly seconds: number; readonly maxOpen: number }) {}

  /** Counts a cause of `code` of `subject` at `atMs` (`first`: what the raise names if it opens the window). */
  add(c: { readonly code: SignificantEventCode; readonly subject: string; readonly atMs: number; readonly first: T }): FloodOutcome {
    const len = this.options.seconds * 1000;
    const startMs = Math.floor(c.atMs / len) * len;
    const key = `${c.code}|${c.subject}|${startMs}`;
    const w = this.open.get(key);
    if (w) {
      w.count++;
      if (w.count === 2) w.second = c.first;
      return { outcome: 'counted' };
    }
    if (this.open.size >= this.options.maxOpen) return { outcome: 'dropped' };
    this.open.set(key, { code: c.code, subject: c.subject, startMs, count: 1, second: null });
    return { outcome: 'opened', first: { start: new Date(startMs).toISOString(), seconds: this.options.seconds, subject: c.subject, count: 1 } };
  }

  /**
   * The rest of the windows ended by `nowMs` (removed from the open ones), oldest first; all of them
   * with `all`: one raise per window that had causes after its first, named by its second, with how
   * many (`rest`). A window of one cause gives nothing more (its first was raised at once).
   */
  due(nowMs: number, all = false): DueWindow<T>[] {
    const len = this.options.seconds * 1000;
    const out: DueWindow<T>[] = [];
    for (const [key, w] of this.open) {
      if (!all && w.startMs + len > nowMs) continue;
      this.open.delete(key);
      if (w.second === null) continue;
      out.push({ code: w.code, first: w.second, window: { start: new Date(w.startMs).toISOString(), seconds: this.options.seconds, subject: w.subject, count: w.count - 1, rest: true } });
    }
    return out.sort((a, b) => a.window.start.localeCompare(b.window.start));
  }

  /** How many windows are open. */
  get size(): number {
    return this.open.size;
  }
}

/**
 * The rate-limit storm's counter (`RATE.LIMIT_STORM`, docs/significant-events.md): 429 refusals per
 * minute aligned to the epoch, over all callers. {@link StormCounter.add} answers the minute's window
 * once, when its count reaches `threshold` (`RATE_LIMIT_STORM_PER_MINUTE`), else null. Pure.
 */
export class StormCounter {
  private startMs = -1;
  private count = 0;

  constructor(private readonly threshold: number) {}

  /** Counts one 429 at `atMs`. @returns the minute's window (count = the threshold) the first time it reaches it, else null */
  add(atMs: number): SignificantCauseWindow | null {
    const len = STORM_WINDOW_SECONDS * 1000;
    const startMs = Math.floor(atMs / len) * len;
    if (startMs !== this.startMs) {
      this.startMs = startMs;
      this.count = 0;
    }
    this.count++;
    return this.count === this.threshold ? { start: windowStartOf(atMs, STORM_WINDOW_SECONDS), seconds: STORM_WINDOW_SECONDS, subject: '*', count: this.count } : null;
  }
}
