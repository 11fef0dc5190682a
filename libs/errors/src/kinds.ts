/**
 * What sort of error a code is, and the one HTTP status each kind answers with
 * (docs/architecture.md §4). Two kinds share 422: `wrong-state` (retry once the shoe or round is in
 * another state) and `rule-violation` (the same request will always be refused).
 */
export const KIND_STATUS = {
  /** The request is malformed: a field missing or of the wrong form, a card code that is no card, a body that is not JSON. */
  validation: 400,
  /** No bearer token, or one that is invalid, expired or names no known role. */
  auth: 401,
  /** The token's role may not do this. */
  forbidden: 403,
  /** The request names a table, shoe, round, bet or route the ledger does not hold. */
  'not-found': 404,
  /** Another request got there first: a stale expected version, a key or id already used for something else. */
  conflict: 409,
  /** The `Accept` header names none of the media types the route answers in (and no wildcard that matches one). */
  'not-acceptable': 406,
  /** The body is over the size limit. */
  'too-large': 413,
  /** The body's content encoding or charset is not one the API reads. */
  'unsupported-media-type': 415,
  /** Well formed, but the shoe's or round's state does not allow it now (betting closed, shoe closed, a round in progress). */
  'wrong-state': 422,
  /** The rules of the game, the table's limits or the house procedures make it impossible, whatever the state. */
  'rule-violation': 422,
  /** The caller is over its request budget or its concurrent heavy reads: retry after the `Retry-After` seconds. */
  'rate-limited': 429,
  /** The ledger's own fault (a stored stream it cannot read, a read side that stopped, a bug): nothing the caller can change. */
  internal: 500,
  /** The ledger cannot answer now (a statement timeout, no free connection, a heavy read past its timeout): nothing was recorded; retry later. */
  unavailable: 503,
} as const;

/** What sort of error a code is; each kind has one HTTP status, see {@link KIND_STATUS}. */
export type ErrorKind = keyof typeof KIND_STATUS;

/** The HTTP statuses of the error table (400, 401, 403, 404, 406, 409, 413, 415, 422, 429, 500, 503). */
export type ErrorStatus = (typeof KIND_STATUS)[ErrorKind];

/** One line per kind, for docs/errors.md and the OpenAPI description. */
export const KIND_MEANING: Readonly<Record<ErrorKind, string>> = {
  validation: 'the request is malformed: a field missing or of the wrong form, a card code that is no card, a body that is not JSON',
  auth: 'no bearer token, or one that is invalid, expired or names no known role',
  forbidden: "the token's role may not do this",
  'not-found': 'the request names a table, shoe, round, bet or route the ledger does not hold',
  conflict: 'another request got there first: a stale expected version, an idempotency key, event id or shoe id already used for something else',
  'not-acceptable': "the `Accept` header names none of the route's media types (nor `*/*` or a wildcard matching one): ask for one the document lists, or send no `Accept`",
  'too-large': 'the body is over the size limit of its route (writes 64 KiB, the bets batch 5 MiB, without a valid token 4 KiB by default)',
  'unsupported-media-type': "the body's content encoding or charset is not one the API reads",
  'wrong-state': "well formed, but the shoe's or round's state does not allow it now (betting closed, shoe closed, a round in progress)",
  'rule-violation': "the rules of the game, the table's limits or the house procedures make it impossible, whatever the state",
  'rate-limited': 'the caller (token subject) or its address is over its request budget, or runs too many heavy reads at once: retry after `Retry-After` seconds',
  internal: "the ledger's own fault (a stored stream it cannot read, a read side that stopped, a bug): nothing the caller can change",
  unavailable: 'the ledger cannot answer now (a statement timeout, no free connection): nothing was recorded; retry later',
};
