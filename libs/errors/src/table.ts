import { KIND_STATUS, type ErrorKind } from './kinds';

/** The part of the product that raises a code (a code may be raised by several). */
export type ErrorSource =
  /** the HTTP API itself: auth guard, pipes, controllers, the exception filter (apps/ledger) */
  | 'api'
  /** the rules of baccarat (libs/rules, `RulesError`); the write side passes them on as `DomainError` */
  | 'rules'
  /** the shoe-and-round state machine (libs/shoe, `DomainError`) */
  | 'shoe'
  /** the event store (libs/event-store, `EventStoreError`) */
  | 'event-store'
  /** the event catalogue and its upcasters (libs/events) */
  | 'events'
  /** the read side: runner, rebuild, projections (libs/projections, libs/read-model; `ProjectionError`); never an HTTP answer */
  | 'projections'
  /** the typed configuration and the start-up checks (libs/config, `ConfigError`, `StartupError`): a process refuses to start; never an HTTP answer */
  | 'config'
  /** the `baccarat evaluate` command, one code per refused input line; never an HTTP answer */
  | 'cli'
  /** the report signer (`npm run signer`, libs/anchors/src/report-signer): its own answers to the API, never the API's */
  | 'signer';

/**
 * One line of the error table: the code's kind, the HTTP status that kind answers with (always
 * `KIND_STATUS[kind]`: the compiler checks it), the message template (`{name}` = a field of the
 * error's `details`) and who raises it.
 */
export type ErrorSpec = {
  [K in ErrorKind]: {
    readonly kind: K;
    readonly status: (typeof KIND_STATUS)[K];
    readonly message: string;
    readonly raisedBy: readonly ErrorSource[];
  };
}[ErrorKind];

/**
 * Every error code of the product (docs/architecture.md §4): the one place that says what HTTP
 * status a code answers with, what kind of error it is and what its message says. The exception
 * filter, the OpenAPI document and docs/errors.md's error table read it; a unit spec walks every code
 * through a real Nest application and checks the status it really answers.
 *
 * A code is a stable string `AREA.REASON` (plus `INTERNAL`). Adding a code = adding a line here.
 */
export const ERROR_TABLE = {
  // --- the HTTP edge ----------------------------------------------------------------------------
  'VALIDATION.FAILED': { kind: 'validation', status: 400, message: 'the request is invalid: {problems}', raisedBy: ['api'] },
  'EVIDENCE.INVALID': { kind: 'validation', status: 400, message: 'the evidence is malformed: {problems} (camera id, SMPTE timecode HH:MM:SS:FF, segment reference; docs/reports.md §7)', raisedBy: ['api'] },
  'REQUEST.MALFORMED': { kind: 'validation', status: 400, message: 'the request cannot be read (a body that is not JSON, a bad path)', raisedBy: ['api'] },
  'REQUEST.REFUSED': { kind: 'validation', status: 400, message: 'the HTTP layer refused the request', raisedBy: ['api'] },
  'REQUEST.TOO_LARGE': { kind: 'too-large', status: 413, message: 'the request body is over the size limit', raisedBy: ['api'] },
  'REQUEST.NOT_ACCEPTABLE': { kind: 'not-acceptable', status: 406, message: 'the Accept header ({accept}) names none of the media types this route answers in: {available}', raisedBy: ['api'] },
  'REQUEST.UNSUPPORTED_MEDIA_TYPE': { kind: 'unsupported-media-type', status: 415, message: 'unsupported content encoding or charset', raisedBy: ['api'] },
  'AUTH.UNAUTHENTICATED': { kind: 'auth', status: 401, message: 'a valid bearer token with an expiry, a subject and a known role is required', raisedBy: ['api'] },
  'AUTH.FORBIDDEN': { kind: 'forbidden', status: 403, message: 'role {role} may not do this', raisedBy: ['api'] },
  'AUTH.TABLE_NOT_ALLOWED': { kind: 'forbidden', status: 403, message: 'this token may not report for table {tableId}', raisedBy: ['api'] },
  'TIME.OCCURRED_AT_OUT_OF_RANGE': { kind: 'rule-violation', status: 422, message: 'occurredAt {occurredAt} is outside {earliest} .. {latest} ({reason})', raisedBy: ['api'] },
  'DATABASE.TIMEOUT': { kind: 'unavailable', status: 503, message: 'the database did not answer in time ({reason}); nothing was recorded, retry later', raisedBy: ['api'] },
  'DATABASE.SYNC_COMMIT_STALLED': {
    kind: 'unavailable',
    status: 503,
    message: 'a commit did not come back within {boundMs} ms: the synchronous standby does not confirm, and every write waits on it (GET /health/ready only: the instance is not ready)',
    raisedBy: ['api'],
  },
  'LIMITS.UNAVAILABLE': { kind: 'unavailable', status: 503, message: 'the shared limits store does not answer ({limit}: {reason}); nothing was done, retry after {retryAfterSeconds} s', raisedBy: ['api'] },
  'ANCHORS.VERIFY_RUNNING': { kind: 'conflict', status: 409, message: 'a verification of the anchors is already running; try again when it ends', raisedBy: ['api'] },
  'RATE.LIMITED': { kind: 'rate-limited', status: 429, message: 'over the request budget of this {scope} ({limit} requests per {windowMs} ms); retry after {retryAfterSeconds} s', raisedBy: ['api'] },
  'RATE.HEAVY_READ_BUSY': { kind: 'rate-limited', status: 429, message: 'too many heavy reads at once ({scope}: at most {limit}); retry after {retryAfterSeconds} s', raisedBy: ['api'] },
  'RATE.BETS_BATCH_BUSY': { kind: 'rate-limited', status: 429, message: 'too many bets batches at once (at most {limitBytes} bytes; waited {waitedMs} ms); retry after {retryAfterSeconds} s', raisedBy: ['api'] },
  'RATE.LIVE_STREAMS_BUSY': { kind: 'rate-limited', status: 429, message: 'too many live streams open ({scope}: at most {limit}); close one, then retry after {retryAfterSeconds} s', raisedBy: ['api'] },
  'ROUTE.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no such route', raisedBy: ['api'] },
  'FILES.NOT_BUILT': { kind: 'not-found', status: 404, message: 'the {what} is not on this server ({hint})', raisedBy: ['api'] },
  'TABLE.UNKNOWN': { kind: 'not-found', status: 404, message: 'no table {tableId}', raisedBy: ['api'] },
  'BET.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no bet {betId} (or not projected yet)', raisedBy: ['api'] },
  INTERNAL: { kind: 'internal', status: 500, message: 'internal error', raisedBy: ['api', 'cli', 'signer'] },

  // --- concurrency and idempotency (docs/guarantees.md §2, §3) ----------------------------------
  'STREAM.VERSION_CONFLICT': { kind: 'conflict', status: 409, message: 'stream {streamId} is at version {actualVersion}, the request expected {expectedVersion}', raisedBy: ['api', 'event-store'] },
  'STREAM.TABLE_MISMATCH': { kind: 'conflict', status: 409, message: 'stream {streamId} belongs to table {streamTableId}, not {tableId}', raisedBy: ['event-store'] },
  'IDEMPOTENCY.KEY_REUSED': { kind: 'conflict', status: 409, message: 'idempotency key {key} was already used for a different request', raisedBy: ['api', 'event-store'] },
  'EVENT.DUPLICATE_ID': { kind: 'conflict', status: 409, message: 'event id(s) {eventIds} already recorded ({reason})', raisedBy: ['event-store'] },
  'APPEND.INVALID': { kind: 'validation', status: 400, message: 'the append is malformed or carries data the store cannot hold ({field})', raisedBy: ['event-store'] },

  // --- the rules of baccarat (docs/domain-rules.md §1–§4) ---------------------------------------
  'CARD.MALFORMED': { kind: 'validation', status: 400, message: 'malformed card {card}: expected rank A,2-9,T/10,J,Q,K then suit S,H,D,C', raisedBy: ['rules', 'api'] },
  'SHOE.CARD_EXCEEDS_DECKS': { kind: 'rule-violation', status: 422, message: 'the shoe holds no further {card}: every deck has given it', raisedBy: ['rules', 'shoe'] },
  'SHOE.INVALID_DECK_COUNT': { kind: 'rule-violation', status: 422, message: 'a shoe holds 1 to 16 decks, got {decks}', raisedBy: ['rules'] },
  'TABLEAU.INSUFFICIENT_CARDS': { kind: 'rule-violation', status: 422, message: 'the round needs more cards than it was given', raisedBy: ['rules'] },
  'TABLEAU.VIOLATION': { kind: 'rule-violation', status: 422, message: 'the tableau forbids {position} here: {violation}', raisedBy: ['rules'] },
  'MONEY.INVALID_STAKE': { kind: 'rule-violation', status: 422, message: 'a stake is an integer number of minor units in 1..2^53-1, got {stake}', raisedBy: ['rules'] },
  'MONEY.INVALID_ODDS': { kind: 'rule-violation', status: 422, message: 'odds must be a non-negative ratio "X:Y" with Y > 0', raisedBy: ['rules'] },
  'PAYTABLE.UNKNOWN': { kind: 'rule-violation', status: 422, message: 'no paytable {ref}', raisedBy: ['rules'] },
  'PAYTABLE.INVALID': { kind: 'rule-violation', status: 422, message: 'the paytable definition is inconsistent', raisedBy: ['rules'] },
  'BET.UNKNOWN_CODE': { kind: 'rule-violation', status: 422, message: '{betCode} is not a bet of {variant}', raisedBy: ['rules', 'shoe'] },
  'VARIANT.UNKNOWN': { kind: 'rule-violation', status: 422, message: 'unknown variant; expected classic, tiger or fabulous4', raisedBy: ['rules'] },

  // --- the command itself -----------------------------------------------------------------------
  'COMMAND.INVALID': { kind: 'validation', status: 400, message: '{field} is missing or malformed', raisedBy: ['shoe'] },
  'COMMAND.UNKNOWN': { kind: 'validation', status: 400, message: 'unknown command type {type}', raisedBy: ['shoe'] },

  // --- the shoe (docs/domain-rules.md §3, §4, §5.2) ---------------------------------------------
  'SHOE.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no shoe {shoeId}', raisedBy: ['shoe', 'api'] },
  'SHOE.ALREADY_OPENED': { kind: 'conflict', status: 409, message: 'shoe {shoeId} is already open', raisedBy: ['shoe'] },
  'SHOE.CLOSED': { kind: 'wrong-state', status: 422, message: 'shoe {shoeId} is closed: only management decisions remain possible', raisedBy: ['shoe'] },
  'SHOE.VOIDED': { kind: 'wrong-state', status: 422, message: 'shoe {shoeId} is voided', raisedBy: ['shoe'] },
  'SHOE.ALREADY_VOIDED': { kind: 'wrong-state', status: 422, message: 'shoe {shoeId} is already voided', raisedBy: ['shoe'] },
  'SHOE.NO_MORE_ROUNDS': { kind: 'wrong-state', status: 422, message: 'the cut card has come out: no further round starts in this shoe', raisedBy: ['shoe'] },
  'PAYTABLE.VARIANT_MISMATCH': { kind: 'rule-violation', status: 422, message: "the paytable's variant differs from the table's variant", raisedBy: ['shoe'] },
  'SETTINGS.INVALID': { kind: 'rule-violation', status: 422, message: 'the table settings are malformed ({field})', raisedBy: ['shoe'] },

  // --- commencement (docs/domain-rules.md §5.1) -------------------------------------------------
  'COMMENCEMENT.ALREADY_DRAWN': { kind: 'wrong-state', status: 422, message: 'the commencement card is already drawn; correct it instead', raisedBy: ['shoe'] },
  'COMMENCEMENT.NOT_DRAWN': { kind: 'wrong-state', status: 422, message: 'no commencement card has been drawn yet', raisedBy: ['shoe'] },
  'COMMENCEMENT.BURN_COUNT_EXCEEDED': { kind: 'rule-violation', status: 422, message: 'the commencement card calls for {burnCount} burn(s), all done', raisedBy: ['shoe'] },
  'COMMENCEMENT.INCOMPLETE': { kind: 'wrong-state', status: 422, message: 'the commencement burns are not all done', raisedBy: ['shoe'] },
  'COMMENCEMENT.TOO_LATE': { kind: 'wrong-state', status: 422, message: 'the first hand has been dealt: the shoe must be voided and replaced, not corrected', raisedBy: ['shoe'] },
  'COMMENCEMENT.REASON_REQUIRED': { kind: 'rule-violation', status: 422, message: 'a reason of 3 to 500 characters is required', raisedBy: ['shoe'] },

  // --- rounds (docs/domain-rules.md §2, §5) -----------------------------------------------------
  'ROUND.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no round {roundId}', raisedBy: ['shoe', 'api'] },
  'ROUND.NOT_CURRENT': { kind: 'wrong-state', status: 422, message: 'round {roundId} is not the current round ({currentRoundId} is)', raisedBy: ['shoe'] },
  'ROUND.DUPLICATE_ID': { kind: 'rule-violation', status: 422, message: 'round id {roundId} is already used (round ids are ledger-wide references)', raisedBy: ['shoe', 'event-store'] },
  'ROUND.IN_PROGRESS': { kind: 'wrong-state', status: 422, message: 'round {roundId} is still {phase}', raisedBy: ['shoe'] },
  'ROUND.BETTING_CLOSED': { kind: 'wrong-state', status: 422, message: 'betting on round {roundId} is closed ({phase})', raisedBy: ['shoe'] },
  'ROUND.BETTING_OPEN': { kind: 'wrong-state', status: 422, message: 'betting on round {roundId} is still open', raisedBy: ['shoe'] },
  'ROUND.NOT_DEALING': { kind: 'wrong-state', status: 422, message: 'round {roundId} is not being dealt ({phase})', raisedBy: ['shoe'] },
  'ROUND.ALREADY_VOIDED': { kind: 'wrong-state', status: 422, message: 'round {roundId} is already voided ({cause})', raisedBy: ['shoe'] },
  'ROUND.NOT_RESULTED': { kind: 'wrong-state', status: 422, message: 'round {roundId} has no result to correct ({phase})', raisedBy: ['shoe'] },
  'RESULT.UNCHANGED': { kind: 'rule-violation', status: 422, message: 'round {roundId} already has exactly these cards', raisedBy: ['shoe'] },

  // --- bets (docs/domain-rules.md §3, §4) -------------------------------------------------------
  'BET.DUPLICATE_ID': { kind: 'rule-violation', status: 422, message: 'bet id {betId} is already used (bet ids are ledger-wide references)', raisedBy: ['shoe', 'event-store'] },
  'BET.OUTSIDE_WINDOW': { kind: 'rule-violation', status: 422, message: '{betCode} is not offered on hand {handNumber} of this shoe', raisedBy: ['shoe'] },
  'BET.NOT_OFFERED': { kind: 'rule-violation', status: 422, message: 'the table has no limits for {betCode}: it does not take that bet', raisedBy: ['shoe'] },
  'BET.CURRENCY_MISMATCH': { kind: 'rule-violation', status: 422, message: 'the table plays in {tableCurrency}, the bet is in {currency}', raisedBy: ['shoe'] },
  'BET.BELOW_MINIMUM': { kind: 'rule-violation', status: 422, message: 'stake {stake} is below the {betCode} minimum {min}', raisedBy: ['shoe'] },
  'BET.ABOVE_MAXIMUM': { kind: 'rule-violation', status: 422, message: "the account's total on {betCode} in this round would be above the maximum {max}", raisedBy: ['shoe'] },
  'BET.PAIR_NEEDS_MAIN_BET': { kind: 'rule-violation', status: 422, message: '{betCode} needs a PLAYER, BANKER or TIE wager by the same account in this round first', raisedBy: ['shoe'] },

  // --- special cards and the dealer (docs/domain-rules.md §5.2, §5.3, §5.5) ---------------------
  'CUT_CARD.ALREADY_DRAWN': { kind: 'wrong-state', status: 422, message: 'the cut card of this shoe has already come out', raisedBy: ['shoe'] },
  'CARD.WRONG_PHASE': { kind: 'wrong-state', status: 422, message: 'the card cannot have been exposed or dropped in phase {phase}', raisedBy: ['shoe'] },
  'DEALER.CHANGE_MID_DEALING': { kind: 'wrong-state', status: 422, message: 'round {roundId} is being dealt; change the dealer between rounds or while bets are open', raisedBy: ['shoe'] },
  'DEALER.UNCHANGED': { kind: 'wrong-state', status: 422, message: '{dealerId} is already the dealer', raisedBy: ['shoe'] },

  // --- management decisions, four eyes (docs/domain-rules.md §6) --------------------------------
  'MANAGEMENT.REASON_REQUIRED': { kind: 'rule-violation', status: 422, message: 'a management decision needs a reason of 3 to 500 characters', raisedBy: ['shoe', 'api'] },
  'MANAGEMENT.MANAGER_REQUIRED': { kind: 'rule-violation', status: 422, message: 'a management decision needs an acting and an approving manager', raisedBy: ['shoe'] },
  'MANAGEMENT.SAME_APPROVER': { kind: 'rule-violation', status: 422, message: 'the approving manager must differ from the acting one', raisedBy: ['shoe', 'api'] },
  'MANAGEMENT.DEALER_CANNOT_DECIDE': { kind: 'rule-violation', status: 422, message: '{dealerId} dealt it and may not decide on it', raisedBy: ['shoe'] },

  // --- four eyes: a decision requested by one pit manager, approved by another (docs/domain-rules.md §6)
  'DECISION.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no decision {decisionId}', raisedBy: ['shoe', 'api'] },
  'DECISION.DUPLICATE_ID': { kind: 'conflict', status: 409, message: 'decision {decisionId} already exists', raisedBy: ['shoe'] },
  'DECISION.ALREADY_PENDING': { kind: 'wrong-state', status: 422, message: 'decision {decisionId} on the same target already awaits approval', raisedBy: ['shoe'] },
  'DECISION.ALREADY_DECIDED': { kind: 'wrong-state', status: 422, message: 'decision {decisionId} is already {status}', raisedBy: ['shoe', 'api'] },
  'DECISION.EXPIRED': { kind: 'wrong-state', status: 422, message: 'decision {decisionId} expired at {expiresAt}', raisedBy: ['shoe', 'api'] },
  'DECISION.NOT_EXPIRED': { kind: 'wrong-state', status: 422, message: 'decision {decisionId} expires at {expiresAt}', raisedBy: ['shoe'] },

  // --- significant events (docs/significant-events.md): acknowledged by a second person; self-acknowledgement is MANAGEMENT.SAME_APPROVER
  'SIGNIFICANT.NOT_FOUND': { kind: 'not-found', status: 404, message: 'no significant event {significantEventId} in the event store', raisedBy: ['api'] },
  'SIGNIFICANT.ALREADY_ACKNOWLEDGED': { kind: 'conflict', status: 409, message: 'significant event {significantEventId} was already acknowledged by {acknowledgedBy}', raisedBy: ['api'] },

  // --- wallet matching (docs/reports.md §4) -----------------------------------------------------
  'WALLET.FILE_INVALID': { kind: 'validation', status: 400, message: 'the wallet file has {count} bad row(s) (nothing stored); first: line {line}: {problem}', raisedBy: ['api'] },
  'WALLET.UNSUPPORTED_FILE_TYPE': { kind: 'unsupported-media-type', status: 415, message: 'a wallet file is text/csv or application/x-ndjson in UTF-8, not {contentType}', raisedBy: ['api'] },
  'WALLET.SCOPE_UNKNOWN': { kind: 'validation', status: 400, message: 'the match needs a scope: the file has no transaction, so give fromDay and toDay', raisedBy: ['api'] },
  'WALLET.SCOPE_TOO_LARGE': { kind: 'too-large', status: 413, message: 'the scope holds more than {limit} ledger transactions; match a shorter period', raisedBy: ['api'] },
  'WALLET.RUN_NOT_FOUND': { kind: 'not-found', status: 404, message: 'no wallet match run {runId}', raisedBy: ['api'] },
  'WALLET.TOO_MANY_ROWS': { kind: 'too-large', status: 413, message: 'the wallet file has more than {limit} rows (WALLET_FILE_MAX_ROWS); nothing stored: split it', raisedBy: ['api'] },
  'WALLET.BUDGET_EXHAUSTED': {
    kind: 'rate-limited',
    status: 429,
    message: 'over the wallet matching budget of this caller ({used} of {limit} {budget} in the last {windowHours} h); retry after {retryAfterSeconds} s',
    raisedBy: ['api'],
  },
  'WALLET.ITEMS_PRUNED': { kind: 'not-found', status: 404, message: 'the items of wallet match run {runId} were pruned at {prunedAt} (WALLET_RETENTION_DAYS); the run and its summary are kept', raisedBy: ['api'] },
  // --- reports: as known at a time, gaming-day closes (docs/reports.md §2, §3) ------------------
  'ASOF.NOT_PROJECTED': { kind: 'conflict', status: 409, message: 'the read model has not yet applied every event up to global position {position}; retry later', raisedBy: ['api'] },
  'GAMING_DAY.ALREADY_CLOSED': { kind: 'conflict', status: 409, message: 'gaming day {day} is already closed for table(s) {tableIds}', raisedBy: ['api'] },
  'GAMING_DAY.NOT_STARTED': { kind: 'rule-violation', status: 422, message: 'gaming day {day} has not started yet (the current gaming day is {currentDay})', raisedBy: ['api'] },
  'GAMING_DAY.NOT_CLOSED': { kind: 'not-found', status: 404, message: 'gaming day {day} has no close (for the tables asked)', raisedBy: ['api'] },
  'GAMING_DAY.NO_SIGNING_KEY': { kind: 'unavailable', status: 503, message: 'no report signing key is configured or reachable (REPORT_SIGNING_KEY_FILE, REPORT_SIGNER_URL): a gaming day cannot be closed', raisedBy: ['api'] },
  'GAMING_DAY.NOT_ENDED': { kind: 'rule-violation', status: 422, message: "gaming day {day} has not ended: closing it early needs early=true, a reason and a second pit manager's approval", raisedBy: ['api'] },
  'GAMING_DAY.READ_MODEL_DIVERGED': { kind: 'internal', status: 500, message: 'gaming day {day} is not closed: the read model disagrees with the verified events ({kind}); an incident is recorded', raisedBy: ['api'] },
  'GAMING_DAY.CLOSE_NOT_GENUINE': { kind: 'internal', status: 500, message: 'a close of gaming day {day} (event {eventId}) is not genuine ({problem}): it is not served', raisedBy: ['api'] },
  // --- exports for regulators: the signed bundle manifest (docs/reports.md §5) --------------------
  'EXPORT.RECEIPT_NOT_FOUND': { kind: 'not-found', status: 404, message: 'no export receipt {receiptId}: name the receipts the exports answered (Ledger-Export-Receipt)', raisedBy: ['api'] },
  'EXPORT.RECEIPT_UNSEALED': {
    kind: 'rule-violation',
    status: 422,
    message: 'export receipt {receiptId} has no seal that verifies with the report signing key, nothing is signed: export again; an incident is recorded',
    raisedBy: ['api'],
  },
  'EXPORT.BUNDLE_INCONSISTENT': { kind: 'rule-violation', status: 422, message: 'the exports named do not make one bundle, nothing is signed: {problems}', raisedBy: ['api'] },
  'EXPORT.NO_SIGNING_KEY': { kind: 'unavailable', status: 503, message: 'no report signing key is configured or reachable (REPORT_SIGNING_KEY_FILE, REPORT_SIGNER_URL): a bundle manifest cannot be signed', raisedBy: ['api'] },

  // --- the report signer's refusals (docs/anchors.md, "The report signer"); the API answers 503 for them -----
  'SIGNER.MALFORMED_REQUEST': { kind: 'validation', status: 400, message: 'the signer signs only a well-formed request of a kind the ledger makes: {problem}', raisedBy: ['signer'] },
  'SIGNER.UNAUTHORIZED': { kind: 'auth', status: 401, message: 'the signer answers only a request with its bearer token: {problem}', raisedBy: ['signer'] },
  'SIGNER.TOO_LARGE': { kind: 'too-large', status: 413, message: 'the signing request is too large: {problem}', raisedBy: ['signer'] },

  // --- a stored stream the write side cannot read (docs/guarantees.md §10) ----------------------
  'EVENT.INCONSISTENT': { kind: 'internal', status: 500, message: 'the stream holds an event its state cannot hold: the stream is corrupt', raisedBy: ['shoe'] },
  'EVENT.UNKNOWN_TYPE': { kind: 'internal', status: 500, message: 'event type {type} is not in the catalogue', raisedBy: ['shoe', 'events'] },
  'EVENT.NO_UPCASTER': { kind: 'internal', status: 500, message: 'no upcaster brings this event to its current schema version', raisedBy: ['events'] },

  // --- the read side (docs/architecture.md §7): the projector stops, the API never answers these -
  'PROJECTION.MALFORMED_EVENT': { kind: 'internal', status: 500, message: 'a Kafka record is not a well-formed ledger event envelope', raisedBy: ['projections'] },
  'PROJECTION.UNKNOWN_EVENT_TYPE': { kind: 'internal', status: 500, message: 'an event type or schema version this projector cannot read: upgrade the projector first', raisedBy: ['projections'] },
  'PROJECTION.INCONSISTENT_EVENT': { kind: 'internal', status: 500, message: 'an event contradicts the projected state', raisedBy: ['projections'] },
  'PROJECTION.STREAM_GAP': { kind: 'internal', status: 500, message: 'a stream version was skipped: an event of the shoe is missing before this one', raisedBy: ['projections'] },
  'PROJECTION.BAD_AMOUNT': { kind: 'internal', status: 500, message: 'an amount that is not an integer number of minor units, or a dropped fraction that is not num/den', raisedBy: ['projections'] },
  'PROJECTION.BAD_SCHEMA_NAME': { kind: 'internal', status: 500, message: 'a schema name that is not a plain lower-case SQL identifier', raisedBy: ['projections'] },
  'CONFIG.INVALID': { kind: 'internal', status: 500, message: 'the configuration is invalid: {problems}', raisedBy: ['config'] },
  'STARTUP.DATABASE_UNREACHABLE': { kind: 'unavailable', status: 503, message: 'the database {target} does not answer ({reason}): start PostgreSQL (npm run stack:up) or point {variable} at one that does', raisedBy: ['config'] },
  'STARTUP.BROKER_UNREACHABLE': { kind: 'unavailable', status: 503, message: 'no Kafka broker answers at {target} ({reason}): start Kafka (npm run stack:up) or point {variable} at one that does', raisedBy: ['config'] },
  'PROJECTION.BAD_CONFIG': { kind: 'internal', status: 500, message: '{name} has an invalid value', raisedBy: ['projections'] },
  'PROJECTION.SCHEMA_IN_USE': { kind: 'internal', status: 500, message: 'a live projector holds the schema: an in-place rebuild would race it', raisedBy: ['projections'] },
  'PROJECTION.REBUILD_INCOMPLETE': { kind: 'internal', status: 500, message: 'the rebuild did not reach the high watermarks it captured at start', raisedBy: ['projections'] },
  'PROJECTION.TOPIC_RECREATED': { kind: 'internal', status: 500, message: 'the topic id differs from the one stored with the checkpoint: the topic was deleted and re-created', raisedBy: ['projections'] },
  'PROJECTION.OFFSET_REGRESSED': { kind: 'internal', status: 500, message: "a partition's high watermark is below the checkpoint: its log went backwards", raisedBy: ['projections'] },
  'PROJECTION.LOG_TRUNCATED': { kind: 'internal', status: 500, message: "a partition's log start offset is beyond the checkpoint: records never applied were deleted", raisedBy: ['projections'] },
  'PROJECTION.NO_INCIDENT': { kind: 'internal', status: 500, message: 'no open projection incident matches: nothing to resume', raisedBy: ['projections'] },

  // --- the `baccarat evaluate` command: one refused input line (never an HTTP answer) ------------
  'INPUT.BAD_JSON': { kind: 'validation', status: 400, message: 'the line is not JSON', raisedBy: ['cli'] },
  'INPUT.NO_CARDS': { kind: 'validation', status: 400, message: 'expected an object {"cards": [...]} with an array of card codes', raisedBy: ['cli'] },
} as const satisfies Record<string, ErrorSpec>;
