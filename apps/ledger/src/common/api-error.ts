/**
 * An error the API answers with a stable machine-readable `code` and an HTTP status.
 * Mapped to the response body `{ error: { code, message, details } }` by {@link LedgerExceptionFilter}.
 */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly status: number,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
