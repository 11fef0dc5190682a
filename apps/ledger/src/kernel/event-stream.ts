import type { Request, Response } from 'express';

/** What {@link holdEventStream} needs of an open server-sent-events answer. */
export interface HeldEventStream {
  readonly res: Response;
  /** Its request, when its own `close` should end the stream too. */
  readonly req?: Request;
  /** When the caller's token expires (ms since the epoch); undefined: never. */
  readonly expiresAt: number | undefined;
  /** How often a `: keep-alive` comment is written, in ms. */
  readonly keepAliveMs: number;
  /** Runs once when the stream ends (unsubscribe, give the stream's place back). */
  readonly onClose: () => void;
}

/**
 * Keeps an open `text/event-stream` answer (docs/http-api.md, live streams) until it ends: a
 * `: keep-alive` comment every `keepAliveMs`; when the token expires, `event: expired` and the end
 * (what the caller may watch is decided again at its next connection); the client leaving ends it.
 * Ending runs `onClose` once and ends the answer.
 * @returns the function that ends the stream (idempotent)
 */
export function holdEventStream(s: HeldEventStream): () => void {
  const keepAlive = setInterval(() => {
    if (!s.res.writableEnded) s.res.write(': keep-alive\n\n');
  }, s.keepAliveMs);
  const expiry =
    s.expiresAt === undefined
      ? null
      : setTimeout(
          () => {
            if (!s.res.writableEnded) s.res.write(`event: expired\ndata: {"reason":"the token expired"}\n\n`);
            close();
          },
          Math.max(0, s.expiresAt - Date.now()),
        );
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    if (expiry) clearTimeout(expiry);
    s.onClose();
    if (!s.res.writableEnded) s.res.end();
  };
  s.res.on('close', close);
  s.req?.on('close', close);
  return close;
}
