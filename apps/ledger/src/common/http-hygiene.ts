import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of the console's files (served by `static/console-static.controller.ts`;
 * here, in the HTTP wiring, because the docs pages answer with it too): everything from this origin
 * only; inline styles allowed (the chart and AsyncAPI renderers set `style` attributes); no plugins, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The API's one version (docs/api-versioning.md): every route is served as `/x` and as `/v1/x`. */
export const API_VERSION = '1';
/** The path prefix of {@link API_VERSION}. */
export const API_VERSION_PREFIX = `/v${API_VERSION}`;
/** What a caller's `X-Request-Id` may be: 1..128 characters of `[A-Za-z0-9._:-]` (UUIDs, ULIDs, trace ids); anything else is replaced. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request as the hygiene middleware leaves it: its {@link REQUEST_ID_PATTERN request id}. */
export type IdentifiedRequest = Request & { requestId?: string };

/** The request id of the request being served (for log lines outside pino-http's request logger). */
export const requestContext = new AsyncLocalStorage<{ readonly requestId: string }>();

/**
 * The request's id: the caller's `X-Request-Id` when it matches {@link REQUEST_ID_PATTERN}, else a new
 * UUID (never refused: a bad id is only not trusted). Set once on `req.requestId`.
 */
export function assignRequestId(req: IdentifiedRequest): string {
  if (req.requestId !== undefined) return req.requestId;
  const given = req.headers['x-request-id'];
  req.requestId = typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  return req.requestId;
}

/**
 * `/v1/x` → `/x` (and `/v1` → `/`): the path a versioned URL names in the routes, which are declared
 * once without prefix; anything else unchanged. The query string is kept.
 */
export function unversionedUrl(url: string): string {
  if (url === API_VERSION_PREFIX || url.startsWith(`${API_VERSION_PREFIX}?`)) return `/${url.slice(API_VERSION_PREFIX.length)}`;
  if (url.startsWith(`${API_VERSION_PREFIX}/`)) return url.slice(API_VERSION_PREFIX.length);
  return url;
}

/**
 * The first middleware of the API (before the edge limits and the routes; docs/api-versioning.md,
 * docs/architecture.md §8): serves `/v1/...` as the unprefixed route, answers `API-Version: 1`,
 * gives the request its id (`X-Request-Id` response header, `req.requestId`, the pino log lines
 * through {@link requestContext}) and counts it in `inFlight` for the graceful shutdown.
 */
export function httpHygiene(inFlight?: InFlightRequests): RequestHandler {
  return (req: IdentifiedRequest, res: Response, next: NextFunction) => {
    req.url = unversionedUrl(req.url);
    res.setHeader('API-Version', API_VERSION);
    const requestId = assignRequestId(req);
    res.setHeader('X-Request-Id', requestId);
    inFlight?.track(res);
    requestContext.run({ requestId }, next);
  };
}

/** The Content-Security-Policy of the JSON API's answers: nothing may load or frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * helmet's security headers on every answer (HSTS, `X-Content-Type-Options: nosniff`, `Referrer-Policy:
 * no-referrer`, `X-Frame-Options`, COOP/CORP, …) with the CSP of the path: the Swagger UI under `/docs`
 * gets the console's policy (its scripts and stylesheet from this origin, inline styles, data: images);
 * the console's own files set {@link CONSOLE_CSP} themselves (console-static.controller.ts); every other
 * answer is JSON and gets {@link API_CSP} (docs/architecture.md §10).
 */
export function securityHeaders(): RequestHandler {
  const common = { crossOriginEmbedderPolicy: false, strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true } } as const;
  const headers = helmet({ ...common, contentSecurityPolicy: false });
  return (req, res, next) => {
    const isDocs = req.path === '/docs' || req.path.startsWith('/docs/') || req.path.startsWith('/docs-');
    res.setHeader('Content-Security-Policy', isDocs ? CONSOLE_CSP : API_CSP);
    headers(req, res, next);
  };
}

/**
 * The responses being written, for the graceful shutdown: each is tracked from the first middleware
 * until it finishes or its connection closes.
 */
export class InFlightRequests {
  private readonly open = new Set<Response>();

  /** Tracks `res` until it finishes or closes. */
  track(res: Response): void {
    this.open.add(res);
    const done = () => this.open.delete(res);
    res.once('finish', done);
    res.once('close', done);
  }

  /** How many responses are still being written. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Ends the responses that never end by themselves (server-sent event streams, `text/event-stream`):
   * at a shutdown their clients reconnect, to another instance. @returns how many were ended
   */
  endStreams(): number {
    let n = 0;
    for (const res of this.open) {
      if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream') && !res.writableEnded) {
        res.end();
        n++;
      }
    }
    return n;
  }
}
