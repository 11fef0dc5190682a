/**
 * The one place where error codes become HTTP statuses (style.md point 6):
 * 400 malformed input, 401 no/invalid token, 403 wrong role, 404 unknown table/shoe/round,
 * 409 stream version conflict or idempotency-key reuse, 422 a fact or bet the rules refuse.
 */
export function httpStatusForCode(code: string): number {
  if (code.startsWith('VALIDATION.') || code === 'CARD.MALFORMED' || code === 'REQUEST.MALFORMED') return 400;
  if (code === 'AUTH.UNAUTHENTICATED') return 401;
  if (code === 'AUTH.FORBIDDEN') return 403;
  if (code.endsWith('.NOT_FOUND') || code === 'TABLE.UNKNOWN') return 404;
  if (code === 'STREAM.VERSION_CONFLICT' || code === 'IDEMPOTENCY.KEY_REUSED' || code === 'SHOE.ALREADY_OPENED') return 409;
  return 422;
}
