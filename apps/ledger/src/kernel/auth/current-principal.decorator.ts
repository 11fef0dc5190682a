import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal';

/** Injects the authenticated {@link Principal} set by the JWT guard. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest().principal;
});
