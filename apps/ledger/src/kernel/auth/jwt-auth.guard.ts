import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Role } from '@ledger/events';
import { TokenRejectedError, TokenVerifier, type VerifiedClaims } from '@ledger/tokens';
import { ApiError } from '../api-error';
import { principalFromClaims } from './principal';
import { ROLES_KEY } from './roles.decorator';

/**
 * Global guard (docs/architecture.md §10): every request needs `Authorization: Bearer <JWT>` that
 * {@link TokenVerifier} accepts (pinned algorithm, `iss`, `aud`, `iat`/`exp` within the maximum
 * lifetime) with claims `sub`, `role` and, for a table device, `tables` — else 401
 * `AUTH.UNAUTHENTICATED`; the role must be one the route's `@Roles` names, else 403
 * `AUTH.FORBIDDEN`. Routes marked `@Public()` (health, API docs, the console's static files) skip it. Sets
 * `req.principal` and `req.tokenExpiresAt` (ISO-8601).
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly reflector: Reflector,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const handler = ctx.getHandler();
    const cls = ctx.getClass();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [handler, cls])) return true;
    const req = ctx.switchToHttp().getRequest();
    const header: string | undefined = req.headers?.authorization;
    const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!m) throw new ApiError('AUTH.UNAUTHENTICATED', 'a bearer token is required');
    let claims: VerifiedClaims;
    try {
      claims = this.verifier.verify(m[1]);
    } catch (e) {
      if (e instanceof TokenRejectedError) throw new ApiError('AUTH.UNAUTHENTICATED', `invalid token: ${e.reason}`);
      throw e;
    }
    const principal = principalFromClaims(claims);
    req.principal = principal;
    // the token's expiry, for GET /me (exp is checked by the verifier: a number of seconds)
    req.tokenExpiresAt = new Date(claims.exp * 1000).toISOString();
    const allowed = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [handler, cls]) ?? [];
    if (!allowed.includes(principal.role)) {
      throw new ApiError('AUTH.FORBIDDEN', `role ${principal.role} may not do this (allowed: ${allowed.join(', ') || 'none'})`);
    }
    return true;
  }
}

/** Metadata key of `@Public()`. */
export const PUBLIC_KEY = 'ledger:public';
