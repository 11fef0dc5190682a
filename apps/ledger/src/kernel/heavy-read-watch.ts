/**
 * The watch on a heavy read's answer (docs/architecture.md §10, "Limits at the edge"): it says when
 * the answer's connection has closed — after its end, or before it (the client went away, or a
 * failure cut the stream) — and cuts an answer whose reader stalled: bytes are waiting and the socket
 * has accepted none of them for the idle timeout (`HEAVY_READ_IDLE_TIMEOUT_MS`). Used by
 * {@link HeavyReadLimiter} (heavy-read.ts), which gives the slot back once the read has settled and
 * the watch has seen the close.
 */

/** The socket under an answer, as far as the watch reads it (a Node `net.Socket` fits). */
export interface WatchedSocket {
  /** Bytes written to the socket so far, those still buffered in Node included. */
  readonly bytesWritten: number;
  /** Bytes buffered in Node, not yet accepted by the kernel. */
  readonly writableLength: number;
}

/** The answer as far as the watch reads it (an Express response, a Node `ServerResponse`, fits). */
export interface WatchedResponse {
  /** True once the connection of the answer closed (after its end or before). */
  readonly closed: boolean;
  /** True once the answer was destroyed. */
  readonly destroyed: boolean;
  /** True once the end of the answer was handed to the socket. */
  readonly writableFinished: boolean;
  /** Bytes of the answer written but not yet accepted by the socket's kernel buffer. */
  readonly writableLength: number;
  readonly socket: WatchedSocket | null;
  once(event: 'close', listener: () => void): unknown;
  /** Cuts the answer: destroys its connection (a `close` follows). */
  destroy(): unknown;
}

/**
 * How an answer ended: `finished` (its end handed to the socket before the close), `aborted` (the
 * connection closed before that: the client went away, or a failure cut the stream), `stalled` (cut
 * by the watch: nothing accepted for the idle timeout).
 */
export type AnswerOutcome = 'finished' | 'aborted' | 'stalled';

/** What {@link ResponseWatch} reports when the answer's connection closes. */
export interface AnswerClosed {
  readonly outcome: AnswerOutcome;
  /** Bytes of the answer the socket accepted while watched (an estimate: socket counters). */
  readonly bytesAccepted: number;
  /** Milliseconds from the start of the watch to the close. */
  readonly heldMs: number;
}

/** Options of {@link ResponseWatch}. */
export interface ResponseWatchOptions {
  /** No byte accepted for this long while some wait: the answer is cut (ms, ≥ 1). */
  readonly idleMs: number;
  /** Called once, when the answer's connection has closed. */
  readonly onClose: (closed: AnswerClosed) => void;
  /** A monotonic clock in ms. @default `performance.now` */
  readonly now?: () => number;
  /** Whether to poll on a timer ({@link check} every quarter of `idleMs`, 25 ms to 1 s). @default true (tests call {@link check} themselves) */
  readonly poll?: boolean;
}

/** Bytes of the socket the kernel accepted so far (NaN-free: 0 without a socket). */
function acceptedBytes(res: WatchedResponse): number {
  const s = res.socket;
  if (!s) return 0;
  const n = s.bytesWritten - s.writableLength;
  return Number.isFinite(n) ? n : 0;
}

/**
 * Watches one answer from its start to the close of its connection: reports the close once
 * ({@link ResponseWatchOptions.onClose}), and destroys the answer when its reader stalled (bytes
 * wait, none accepted for `idleMs`). An answer whose connection had already closed is reported at
 * once, as `aborted` unless it had finished.
 */
export class ResponseWatch {
  private readonly started: number;
  private readonly startAccepted: number;
  private lastAccepted: number;
  private quietSince: number;
  private cut = false;
  private done = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(
    private readonly res: WatchedResponse,
    private readonly options: ResponseWatchOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.startAccepted = acceptedBytes(res);
    this.lastAccepted = this.startAccepted;
    this.quietSince = this.started;
    if (res.closed || res.destroyed) {
      this.closed();
      return;
    }
    res.once('close', () => this.closed());
    if (options.poll !== false) {
      const every = Math.min(Math.max(Math.floor(options.idleMs / 4), 25), 1000);
      this.timer = setInterval(() => this.check(), every);
      this.timer.unref();
    }
  }

  /** True once the close was reported. */
  get isClosed(): boolean {
    return this.done;
  }

  /**
   * One look at the answer: progress (bytes accepted, or nothing waiting) restarts the idle clock;
   * `idleMs` without progress while bytes wait destroys the answer (reported `stalled` at its close).
   * @returns true when this look cut the answer
   */
  check(): boolean {
    if (this.done || this.cut) return false;
    const now = this.now();
    const accepted = acceptedBytes(this.res);
    if (this.res.writableLength <= 0 || accepted !== this.lastAccepted) {
      this.lastAccepted = accepted;
      this.quietSince = now;
      return false;
    }
    if (now - this.quietSince < this.options.idleMs) return false;
    this.cut = true;
    this.res.destroy();
    return true;
  }

  private closed(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const outcome: AnswerOutcome = this.cut ? 'stalled' : this.res.writableFinished ? 'finished' : 'aborted';
    // the socket may be gone by now: the most seen is the best estimate
    const accepted = Math.max(this.lastAccepted, acceptedBytes(this.res));
    this.options.onClose({ outcome, bytesAccepted: Math.max(0, accepted - this.startAccepted), heldMs: Math.round(this.now() - this.started) });
  }
}
