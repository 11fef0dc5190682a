import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { Role } from '@ledger/events';
import { ApiError } from '../common/api-error';
import { Principal, TOKEN_ROLES } from './principal';
import { ROLES_KEY } from './roles.decorator';

/**
 * Global guard: every request needs `Authorization: Bearer <JWT>` (HS256, claims `sub`, `role`),
 * else 401 `AUTH.UNAUTHENTICATED`; the role must be one the route's `@Roles` names, else 403
 * `AUTH.FORBIDDEN`. Routes marked `@Public()` (health, API docs) skip it.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly jwt: JwtService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const handler = ctx.getHandler();
    const cls = ctx.getClass();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [handler, cls])) return true;
    const req = ctx.switchToHttp().getRequest();
    const header: string | undefined = req.headers?.authorization;
    const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!m) throw new ApiError('AUTH.UNAUTHENTICATED', 'a bearer token is required', 401);
    let claims: { sub?: unknown; role?: unknown; exp?: unknown };
    try {
      claims = await this.jwt.verifyAsync(m[1]);
    } catch (e) {
      throw new ApiError('AUTH.UNAUTHENTICATED', `invalid token: ${(e as Error).message}`, 401);
    }
    if (typeof claims.exp !== 'number') {
      // a token without an expiry would be valid forever
      throw new ApiError('AUTH.UNAUTHENTICATED', 'token has no expiry (exp)', 401);
    }
    if (typeof claims.sub !== 'string' || !claims.sub || !TOKEN_ROLES.includes(claims.role as Role)) {
      throw new ApiError('AUTH.UNAUTHENTICATED', 'token lacks a subject or a known role', 401);
    }
    const principal: Principal = { id: claims.sub, role: claims.role as Role };
    req.principal = principal;
    const allowed = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [handler, cls]) ?? [];
    if (!allowed.includes(principal.role)) {
      throw new ApiError('AUTH.FORBIDDEN', `role ${principal.role} may not do this (allowed: ${allowed.join(', ') || 'none'})`, 403);
    }
    return true;
  }
}

/** Metadata key of `@Public()`. */
export const PUBLIC_KEY = 'ledger:public';
