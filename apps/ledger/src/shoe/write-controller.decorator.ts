import { applyDecorators, Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Role } from '@ledger/events';
import { Roles } from '../kernel/auth/roles.decorator';

/**
 * The decorators of every write controller: a controller at the API's root (each route names its
 * whole path), the one role allowed to call it (docs/guarantees.md §12), its OpenAPI group, the
 * bearer token and the optional `Idempotency-Key` header (docs/guarantees.md §3).
 * @param tag OpenAPI tag: `table facts`, `bets` or `management`
 */
export function WriteController(tag: 'table facts' | 'bets' | 'management', role: Exclude<Role, 'auditor' | 'system'>): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(), ApiHeader({ name: 'Idempotency-Key', required: false, description: 'a retry with the same key gets the first answer' }), Roles(role), Controller());
}
