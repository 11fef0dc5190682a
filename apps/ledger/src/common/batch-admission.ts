import type { NextFunction, Response } from 'express';
import { ApiError } from '../kernel/api-error';
import { ResponseWatch } from '../kernel/heavy-read-watch';
import { BETS_BATCH, type EdgeRequest } from './edge-limits';

/**
 * A byte budget shared by the requests that hold it, granted first come, first served
 * (docs/architecture.md §10, "Limits at the edge": the bets batches in flight).
 *
 * A request asks for its weight in bytes; it is granted at once when the budget has room for it
 * and nobody waits before it, or when nothing is held at all (so one request larger than the whole
 * budget still runs, alone); otherwise it waits in line until enough is given back, at most
 * `timeoutMs`. A later, smaller request never overtakes a waiting larger one, so none starves.
 * Single-threaded (the event loop): no locks.
 */
export class ByteBudget {
  private held = 0;
  private readonly line: Waiter[] = [];

  /** @param capacity the bytes the holders may hold together (a positive integer) @throws Error otherwise */
  constructor(readonly capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity > 0)) throw new Error(`ByteBudget: capacity must be a positive integer, got ${capacity}`);
  }

  /** Bytes held now. */
  get inFlight(): number {
    return this.held;
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.line.length;
  }

  /**
   * Takes `ask.bytes` of the budget, waiting in line when it has no room (see the class).
   * @returns its release, which gives the bytes back once however often it is called
   * @throws ApiError `RATE.BETS_BATCH_BUSY` (429) when `ask.timeoutMs` passed in line; nothing is held then
   * @throws Error `'cancelled'` when `ask.cancel` fired while waiting (the client went away); nothing is held then
   */
  acquire(ask: { readonly bytes: number; readonly timeoutMs: number; readonly cancel?: (abandon: () => void) => void }): Promise<() => void> {
    const bytes = Math.max(0, Math.ceil(ask.bytes));
    if (this.line.length === 0 && this.fits(bytes)) return Promise.resolve(this.take(bytes));
    return new Promise<() => void>((resolve, reject) => {
      const since = Date.now();
      const waiter: Waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          resolve(this.take(bytes));
        },
      };
      const leave = (err: Error) => {
        const at = this.line.indexOf(waiter);
        if (at < 0) return; // granted meanwhile
        this.line.splice(at, 1);
        clearTimeout(timer);
        reject(err);
        this.serve(); // the one behind may fit now
      };
      const timer = setTimeout(
        () =>
          leave(
            ApiError.of('RATE.BETS_BATCH_BUSY', {
              limitBytes: this.capacity,
              inFlightBytes: this.held,
              waitedMs: Date.now() - since,
              retryAfterSeconds: 1,
            }),
          ),
        ask.timeoutMs,
      );
      this.line.push(waiter);
      ask.cancel?.(() => leave(new Error('cancelled')));
    });
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.capacity;
  }

  private take(bytes: number): () => void {
    this.held += bytes;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= bytes;
      this.serve();
    };
  }

  /** Grants the waiters at the head of the line as long as they fit. */
  private serve(): void {
    while (this.line.length > 0 && this.fits(this.line[0].bytes)) this.line.shift()!.grant();
  }
}

interface Waiter {
  readonly bytes: number;
  readonly grant: () => void;
}

/** What {@link betsBatchAdmission} needs: the shared budget, how long a request may wait, the route's body limit, the idle cut. */
export interface BatchAdmission {
  readonly budget: ByteBudget;
  /** Longest wait in line, in ms (`BETS_BATCH_QUEUE_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** The weight of a body without a `Content-Length` (chunked): the route's limit, `BODY_LIMIT_BETS_BATCH_BYTES`. */
  readonly bodyLimitBytes: number;
  /** An answer whose reader accepted no byte for this long while bytes wait is cut, in ms (`HEAVY_READ_IDLE_TIMEOUT_MS`). */
  readonly idleMs: number;
}

/**
 * The admission of the bets batches (docs/architecture.md §10, "Limits at the edge"), after the
 * body parser and before the route: an authenticated `POST …/bets/batch` takes its body's
 * `Content-Length` (else the route's body limit) from the API-wide {@link ByteBudget}
 * (`BETS_BATCH_BYTES_IN_FLIGHT`) and gives it back when its answer's connection closes. What a batch
 * costs in memory while it is validated, decided, hashed, appended and answered grows with its body
 * (several times the parsed body), so the budget bounds the API's memory however many platforms
 * send at once. Taken after the body is read, so a slow sender holds nothing; a reader that
 * accepts no byte of its answer for `idleMs` while bytes wait is cut ({@link ResponseWatch}), so a
 * slow reader does not hold it either. A request that waited `BETS_BATCH_QUEUE_TIMEOUT_MS` in line
 * is refused, 429 `RATE.BETS_BATCH_BUSY` with `Retry-After: 1`, nothing recorded; one whose client
 * goes away while waiting leaves the line. Every other request passes untouched.
 */
export function betsBatchAdmission(admission: BatchAdmission) {
  return (req: EdgeRequest, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST' || !req.edgeCaller || !BETS_BATCH.test(req.path)) return next();
    const declared = req.headers['content-length'];
    const bytes = declared === undefined ? admission.bodyLimitBytes : Number(declared);
    admission.budget
      .acquire({
        bytes,
        timeoutMs: admission.timeoutMs,
        cancel: (abandon) => res.once('close', abandon),
      })
      .then(
        (release) => {
          // given back once the answer's connection closes (at once when it closed while waiting)
          const watch = new ResponseWatch(res, { idleMs: admission.idleMs, onClose: release });
          if (!watch.isClosed) next();
        },
        (err: unknown) => {
          if (err instanceof ApiError) next(err);
          // cancelled: the client is gone, nobody reads an answer
        },
      );
  };
}
