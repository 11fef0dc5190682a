import type { NextFunction, Request, Response } from 'express';
import type { LedgerApiEnv } from '@ledger/config';
import { TokenVerifier } from '@ledger/tokens';
import { principalFromClaims, type Principal } from '../auth/principal';
import { ApiError } from './api-error';
import { assignCorrelationId } from './correlation.middleware';

/** The body-size limits of {@link edgeMiddleware}, in bytes (the API's `BODY_LIMIT_*` settings). */
export type BodyLimits = Pick<LedgerApiEnv, 'BODY_LIMIT_UNAUTHENTICATED_BYTES' | 'BODY_LIMIT_BYTES' | 'BODY_LIMIT_BETS_BATCH_BYTES'>;

/** The one route allowed the larger body: `POST /shoes/{shoeId}/rounds/{roundId}/bets/batch`. */
const BETS_BATCH = /^\/shoes\/[^/]+\/rounds\/[^/]+\/bets\/batch\/?$/;

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
  return req.method === 'POST' && BETS_BATCH.test(req.path) ? limits.BODY_LIMIT_BETS_BATCH_BYTES : limits.BODY_LIMIT_BYTES;
}

/**
 * The first middleware of the API, before the body parser (docs/architecture.md §10, "Limits at
 * the edge"): it gives the request its correlation id, finds the caller of a valid bearer token (`req.edgeCaller`, used by the rate
 * limits and the rejection-log budget) and refuses, before a byte of the body is read, a body
 * over the limit of its caller and route: a declared `Content-Length` over it, or, without a valid
 * token, a body without a `Content-Length` (chunked), whose size cannot be known before reading.
 * The refusal is 413 `REQUEST.TOO_LARGE` with `Connection: close` (the rest of the body is never
 * read). An authenticated chunked body is bounded by the parser's limit (`BODY_LIMIT_BETS_BATCH_BYTES`).
 */
export function edgeMiddleware(verifier: TokenVerifier, limits: BodyLimits) {
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
