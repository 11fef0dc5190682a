import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Role } from '@ledger/events';

/** Metadata key holding the roles allowed on a route. */
export const ROLES_KEY = 'ledger:roles';

/** The OpenAPI extension that lists an operation's roles (docs/api-versioning.md §6): `x-roles`. */
export const ROLES_EXTENSION = 'x-roles';

/**
 * Restricts a route to the given roles (docs/guarantees.md §12, least privilege; docs/architecture.md §10).
 * A route without `@Roles` is refused to everyone but is never left open: the guard denies it.
 * The roles are also written into the OpenAPI document (`x-roles`, and the operation's description).
 */
export const Roles = (...roles: Role[]) => applyDecorators(SetMetadata(ROLES_KEY, roles), ApiExtension(ROLES_EXTENSION, roles));
