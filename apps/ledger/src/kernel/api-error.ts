import { errorSpec, formatErrorMessage, type ErrorCode, type ErrorKind, type ErrorStatus } from '@ledger/errors';

/**
 * An error the API answers with a stable machine-readable `code`; its HTTP status and kind come
 * from the error table (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4), never from the
 * throw site. Mapped to the response body `{ error: { code, message, details } }` by
 * {@link LedgerExceptionFilter}.
 *
 * ```ts
 * throw new ApiError('TABLE.UNKNOWN', `no table ${tableId}`, { tableId });  // 404, from the table
 * throw ApiError.of('BET.NOT_FOUND', { betId });                            // message from the table's template
 * ```
 * @property status the code's HTTP status in the error table
 * @property kind the code's kind in the error table
 */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly kind: ErrorKind;
  readonly details: Record<string, unknown>;

  /**
   * @param code the error table's code: it decides the HTTP status and the kind
   * @param message the answer's message
   * @param details machine-readable details of the answer (`{}` when none)
   */
  constructor(
    public readonly code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    const spec = errorSpec(code);
    this.status = spec.status;
    this.kind = spec.kind;
    this.details = details;
  }

  /** An ApiError whose message is the table's template for `code` filled from `details`. */
  static of(code: ErrorCode, details: Record<string, unknown> = {}): ApiError {
    return new ApiError(code, formatErrorMessage(code, details), details);
  }
}
