import { ApiError } from '../api-error';
import type { Principal } from './principal';

/**
 * Refuses a fact or bet for a table the caller's token does not name (docs/architecture.md §10:
 * a device reports only for its own tables). A principal whose `tables` is null may act on every table.
 * @param tableId the table the fact or bet concerns (of the shoe's stream, never the caller's word)
 * @throws ApiError 403 `AUTH.TABLE_NOT_ALLOWED` with `details: { tableId, allowedTables }` (the
 *   exception filter logs it and keeps it in the rejection log)
 */
export function assertTableAllowed(principal: Principal, tableId: string): void {
  if (principal.tables === null || principal.tables.includes(tableId)) return;
  throw new ApiError('AUTH.TABLE_NOT_ALLOWED', `${principal.role} ${principal.id} may not act on table ${tableId} (its token names ${principal.tables.join(', ')})`, { tableId, allowedTables: [...principal.tables] });
}
