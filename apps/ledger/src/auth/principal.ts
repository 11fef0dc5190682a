import type { Role } from '@ledger/events';

/** The authenticated caller, from the bearer token: `sub` = actor id, `role` = one role. */
export interface Principal {
  readonly id: string;
  readonly role: Role;
}

/** Roles a token may carry (the ledger's own `system` role is never minted). */
export const TOKEN_ROLES: readonly Role[] = ['table-device', 'betting-platform', 'pit-manager', 'auditor'];
