import { errorSpec, isErrorCode } from '@ledger/errors';

/**
 * The HTTP status of an error code: the error table's (`ERROR_TABLE` in `@ledger/errors`,
 * docs/architecture.md §4); 500 for a string that is not a code of the table (a bug: every code
 * thrown is in the table, a unit spec checks it).
 */
export function httpStatusForCode(code: string): number {
  return isErrorCode(code) ? errorSpec(code).status : 500;
}
