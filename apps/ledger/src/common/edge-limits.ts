import type { NextFunction, Request, Response } from 'express';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { LedgerApiEnv } from '@ledger/config';
import { TokenVerifier } from '@ledger/tokens';
import { principalFromClaims, type Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { assignCorrelationId } from './correlation.middleware';

/** The body-size limits of {@link edgeMiddleware}, in bytes (the API's `BODY_LIMIT_*` settings). */
export type BodyLimits = Pick<LedgerApiEnv, 'BODY_LIMIT_UNAUTHENTICATED_BYTES' | 'BODY_LIMIT_BYTES' | 'BODY_LIMIT_BETS_BATCH_BYTES'> & Partial<Pick<LedgerApiEnv, 'WALLET_FILE_MAX_BYTES'>>;

/** The one route allowed the larger body: `POST /shoes/{shoeId}/rounds/{roundId}/bets/batch`. */
export const BETS_BATCH = /^\/shoes\/[^/]+\/rounds\/[^/]+\/bets\/batch\/?$/;
/** The wallet file upload, `POST /reconciliation/wallet-files` (docs/reports.md §4): its own limit, `WALLET_FILE_MAX_BYTES`. */
const WALLET_FILES = /^(?:\/v1)?\/reconciliation\/wallet-files\/?$/;

/** A request as the edge middleware leaves it: `edgeCaller` is the caller of a valid bearer token, else null. */
export type EdgeRequest = Request & { edgeCaller?: Principal | null; correlationId?: string };

/**
 * The principal of a request's bearer token when the token is valid, else null; never throws
 * (the route's guard refuses it, `JwtAuthGuard`). Cheap: one signature check, no I/O.
 */
export function edgeCallerOf(req: Request, verifier: TokenVerifier): Principal | null {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!m) return null;
  try {
    return principalFromClaims(verifier.verify(m[1]));
  } catch {
    return null;
  }
}

/** The most bytes the request's body may have: by caller (a valid token or none) and route (docs/architecture.md §10). */
export function bodyLimitOf(req: Request, caller: Principal | null, limits: BodyLimits): number {
  if (!caller) return limits.BODY_LIMIT_UNAUTHENTICATED_BYTES;
  if (req.method === 'POST' && WALLET_FILES.test(req.path) && limits.WALLET_FILE_MAX_BYTES !== undefined) return limits.WALLET_FILE_MAX_BYTES;
  return req.method === 'POST' && BETS_BATCH.test(req.path) ? limits.BODY_LIMIT_BETS_BATCH_BYTES : limits.BODY_LIMIT_BYTES;
}

/** Paths never rate-limited (the probes; docs/architecture.md §10). */
const UNLIMITED_PATHS = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * The per-address budget of {@link edgeMiddleware}: every request of one remote address (with a
 * token or without, to a route that exists or not) counts, in `@nestjs/throttler`'s storage, the
 * one the route guard's per-caller budget uses.
 */
export interface AddressLimit {
  readonly storage: ThrottlerStorage;
  /** Requests per window per address (`RATE_LIMIT_PER_ADDRESS`). */
  readonly limit: number;
  /** The window, in ms (`RATE_LIMIT_WINDOW_MS`). */
  readonly windowMs: number;
}

/** The remote address a request counts against (Express's `req.ip`: the client's from `X-Forwarded-For` when it came through a proxy `TRUST_PROXY` trusts, else the socket's). */
export const addressOf = (req: Request): string => req.ip ?? req.socket?.remoteAddress ?? 'unknown';

/**
 * The first middleware of the API, before the body parser (docs/architecture.md §10, "Limits at
 * the edge"): it gives the request its correlation id, finds the caller of a valid bearer token (`req.edgeCaller`, used by the rate
 * limits and the rejection-log budget) and refuses, before a byte of the body is read, a body
 * over the limit of its caller and route: a declared `Content-Length` over it, or, without a valid
 * token, a body without a `Content-Length` (chunked), whose size cannot be known before reading.
 * The refusal is 413 `REQUEST.TOO_LARGE` with `Connection: close` (the rest of the body is never
 * read). An authenticated chunked body is bounded by the parser's limit (`BODY_LIMIT_BETS_BATCH_BYTES`).
 * With `address`, every request but the probes counts against its remote address first, before
 * routing (so a flood of made-up routes is limited too): past the budget, 429 `RATE.LIMITED`
 * (`details.scope` `address`, `Retry-After` from the block's end).
 */
export function edgeMiddleware(verifier: TokenVerifier, limits: BodyLimits, address?: AddressLimit) {
  const check = checkBody(verifier, limits);
  if (!address) return check;
  return (req: EdgeRequest, res: Response, next: NextFunction): void => {
    if (UNLIMITED_PATHS.has(req.path)) return check(req, res, next);
    address.storage.increment(`address|${addressOf(req)}`, address.windowMs, address.limit, address.windowMs, 'address').then(
      (hit) => {
        if (!hit.isBlocked) return check(req, res, next);
        assignCorrelationId(req, res);
        req.edgeCaller = edgeCallerOf(req, verifier);
        next(ApiError.of('RATE.LIMITED', { scope: 'address', limit: address.limit, windowMs: address.windowMs, retryAfterSeconds: Math.max(1, hit.timeToBlockExpire) }));
      },
      (err: unknown) => next(err),
    );
  };
}

/** The body check of {@link edgeMiddleware} (correlation id, caller, body limit). */
function checkBody(verifier: TokenVerifier, limits: BodyLimits) {
  return (req: EdgeRequest, res: Response, next: NextFunction): void => {
    assignCorrelationId(req, res);
    const caller = edgeCallerOf(req, verifier);
    req.edgeCaller = caller;
    const limit = bodyLimitOf(req, caller, limits);
    const declared = req.headers['content-length'];
    const length = declared === undefined ? null : Number(declared);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if ((length !== null && !(length <= limit)) || (length === null && chunked && !caller)) {
      res.setHeader('Connection', 'close');
      const who = caller ? `this route` : 'a request without a valid bearer token';
      next(
        new ApiError('REQUEST.TOO_LARGE', length === null ? `${who} must declare the Content-Length of its body (at most ${limit} bytes)` : `the body (${declared} bytes) is over the limit of ${who}: ${limit} bytes`, {
          limitBytes: limit,
        }),
      );
      return;
    }
    next();
  };
}
