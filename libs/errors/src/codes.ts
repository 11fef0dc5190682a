import { ERROR_TABLE, type ErrorSource, type ErrorSpec } from './table';

/** Every error code of the product: the keys of {@link ERROR_TABLE}. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** The codes that `source` raises, e.g. `ErrorCodeRaisedBy<'event-store'>`. */
export type ErrorCodeRaisedBy<S extends ErrorSource> = {
  [C in ErrorCode]: S extends (typeof ERROR_TABLE)[C]['raisedBy'][number] ? C : never;
}[ErrorCode];

/** The HTTP status of `C`, as a literal type (e.g. `StatusOf<'SHOE.CLOSED'>` = 422). */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_TABLE)[C]['status'];

/**
 * Compiles only if every member of `T` is a code of the table: a library that keeps its own
 * union of codes (and may not import this one at run time) checks it with `AssertErrorCodes<MyCodes>`.
 */
export type AssertErrorCodes<T extends ErrorCode> = T;

/** Every code of the table, in table order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(ERROR_TABLE) as ErrorCode[];

/** Whether `code` is a code of the error table. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, code);
}

/**
 * The table's line for `code`: `{ kind, status, message, raisedBy }`.
 * @throws Error when `code` is not in the table (only possible with an unchecked string)
 */
export function errorSpec(code: ErrorCode): ErrorSpec {
  if (!isErrorCode(code)) throw new Error(`error code ${String(code)} is not in the error table`);
  return ERROR_TABLE[code];
}

/**
 * The code's message template with each `{name}` replaced by `params[name]` (strings as they are,
 * arrays joined with ", ", other values as JSON); a placeholder without a value stays as it is.
 * E.g. `formatErrorMessage('SHOE.CLOSED', { shoeId: 'S-1' })` = "shoe S-1 is closed: …".
 */
export function formatErrorMessage(code: ErrorCode, params: Readonly<Record<string, unknown>> = {}): string {
  return errorSpec(code).message.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(params, name) || params[name] === undefined) return whole;
    const v = params[name];
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ');
    return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
  });
}
