import { SetMetadata } from '@nestjs/common';
import type { Role } from '@ledger/events';

/** Metadata key holding the roles allowed on a route. */
export const ROLES_KEY = 'ledger:roles';

/**
 * Restricts a route to the given roles (docs/guarantees.md §12, least privilege; docs/architecture.md §10).
 * A route without `@Roles` is refused to everyone but is never left open: the guard denies it.
 */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);
