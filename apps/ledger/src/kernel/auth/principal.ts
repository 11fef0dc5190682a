import type { Role } from '@ledger/events';
import type { VerifiedClaims } from '@ledger/tokens';
import { ApiError } from '../api-error';

/** The authenticated caller, from the bearer token (docs/architecture.md §10). */
export interface Principal {
  /** `sub`: the actor id (device, platform, manager or auditor id). */
  readonly id: string;
  /** `role`: one of {@link TOKEN_ROLES}. */
  readonly role: Role;
  /**
   * `tables`: the table ids this caller may report facts for or bet on; `null` = every table (a
   * token without the claim: betting platforms, pit managers, auditors). Never null for a table
   * device: its token must name its tables. Checked by {@link assertTableAllowed}.
   */
  readonly tables: readonly string[] | null;
  /** When the token expires (its `exp`), ms since the epoch: what outlives the request (a live stream) ends then. */
  readonly expiresAt?: number;
}

/** Roles a token may carry (the ledger's own `system` role is never minted). */
export const TOKEN_ROLES: readonly Role[] = ['table-device', 'betting-platform', 'pit-manager', 'auditor'];

/** A table id in a `tables` claim (the form of `config/tables.json`'s ids). */
const TABLE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** Most table ids one token may name. */
export const MAX_TOKEN_TABLES = 1000;

/**
 * The principal of verified claims: `sub` a non-empty string, `role` one of {@link TOKEN_ROLES},
 * `tables` (when present, and always for a table device) a non-empty list of table ids.
 * @throws ApiError 401 `AUTH.UNAUTHENTICATED` naming what is missing or malformed
 */
export function principalFromClaims(claims: VerifiedClaims): Principal {
  const { sub, role, tables } = claims;
  if (typeof sub !== 'string' || !sub || !TOKEN_ROLES.includes(role as Role)) {
    throw new ApiError('AUTH.UNAUTHENTICATED', 'token lacks a subject or a known role');
  }
  if (tables === undefined) {
    if (role === 'table-device') throw new ApiError('AUTH.UNAUTHENTICATED', 'a table-device token must name its tables (tables claim)');
    return { id: sub, role: role as Role, tables: null, expiresAt: claims.exp * 1000 };
  }
  if (!Array.isArray(tables) || tables.length === 0 || tables.length > MAX_TOKEN_TABLES || !tables.every((t) => typeof t === 'string' && TABLE_ID.test(t))) {
    throw new ApiError('AUTH.UNAUTHENTICATED', `the tables claim must be a list of 1..${MAX_TOKEN_TABLES} table ids`);
  }
  return { id: sub, role: role as Role, tables: Object.freeze([...new Set(tables as string[])]), expiresAt: claims.exp * 1000 };
}
