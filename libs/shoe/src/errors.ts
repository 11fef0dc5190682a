import { RulesError, type RulesErrorCode } from '@ledger/rules';

/**
 * Refusals of the shoe-and-round state machine (architecture.md guarantee 11: an impossible fact
 * is refused with a clear, machine-readable error and nothing already recorded changes).
 *
 * Every code is a stable string `AREA.REASON`. The kind next to each code says what sort of
 * refusal it is, so the HTTP edge can map codes to statuses in one place without a list of its own:
 * - `invalid`     — the command itself is malformed (HTTP 400);
 * - `not-found`   — it names a shoe or round the stream does not hold (404);
 * - `conflict`    — it is well formed but the stream's state does not allow it now (409);
 * - `forbidden`   — who decides may not decide this (403);
 * - `unprocessable` — a fact the rules of the game or the table's limits make impossible (422).
 */
export const DOMAIN_ERROR_CODES = {
  // --- rules library codes (RulesError passes through with the same code) ---
  'CARD.MALFORMED': 'invalid',
  'SHOE.CARD_EXCEEDS_DECKS': 'unprocessable',
  'SHOE.INVALID_DECK_COUNT': 'invalid',
  'TABLEAU.INSUFFICIENT_CARDS': 'unprocessable',
  'TABLEAU.VIOLATION': 'unprocessable',
  'MONEY.INVALID_STAKE': 'invalid',
  'MONEY.INVALID_ODDS': 'invalid',
  'PAYTABLE.UNKNOWN': 'invalid',
  'PAYTABLE.INVALID': 'invalid',
  'BET.UNKNOWN_CODE': 'invalid',
  'VARIANT.UNKNOWN': 'invalid',
  // --- command shape ---
  /** A required field is missing or empty (ids, an empty bet batch). */
  'COMMAND.INVALID': 'invalid',
  /** The command type is not one of {@link ShoeCommand}. */
  'COMMAND.UNKNOWN': 'invalid',
  // --- shoe ---
  /** A table fact, bet or decision on a shoe that has not been opened. */
  'SHOE.NOT_FOUND': 'not-found',
  /** OpenShoe on a stream that already holds a shoe. */
  'SHOE.ALREADY_OPENED': 'conflict',
  /** A table fact or bet on a closed shoe (management decisions stay possible). */
  'SHOE.CLOSED': 'conflict',
  /** A table fact or bet on a voided shoe. */
  'SHOE.VOIDED': 'conflict',
  /** VoidShoe on a shoe already voided. */
  'SHOE.ALREADY_VOIDED': 'conflict',
  /** OpenRound after the cut card said no further round starts (§5.2). */
  'SHOE.NO_MORE_ROUNDS': 'conflict',
  /** The paytable's variant differs from the table's variant. */
  'PAYTABLE.VARIANT_MISMATCH': 'invalid',
  /** Table settings malformed: currency, limits (min/max per bet code, §4). */
  'SETTINGS.INVALID': 'invalid',
  // --- commencement (§5.1) ---
  /** DrawCommencementCard a second time (use CorrectCommencement). */
  'COMMENCEMENT.ALREADY_DRAWN': 'conflict',
  /** BurnCard or CorrectCommencement before the commencement card was drawn. */
  'COMMENCEMENT.NOT_DRAWN': 'conflict',
  /** A burn beyond the count the commencement card calls for. */
  'COMMENCEMENT.BURN_COUNT_EXCEEDED': 'unprocessable',
  /** OpenRound, DealCard or the cut card before every commencement burn is done. */
  'COMMENCEMENT.INCOMPLETE': 'conflict',
  /** CorrectCommencement after the first card of the shoe was dealt: the shoe must be replaced. */
  'COMMENCEMENT.TOO_LATE': 'conflict',
  /** CorrectCommencement without a reason (3..500 characters). */
  'COMMENCEMENT.REASON_REQUIRED': 'invalid',
  // --- rounds ---
  'ROUND.NOT_FOUND': 'not-found',
  /** A table fact or bet naming a round that is not the shoe's latest round. */
  'ROUND.NOT_CURRENT': 'conflict',
  /** OpenRound with a round id already used in this shoe. */
  'ROUND.DUPLICATE_ID': 'conflict',
  /** OpenRound / CloseShoe while a round is in BETTING or DEALING. */
  'ROUND.IN_PROGRESS': 'conflict',
  /** PlaceBets / CloseBetting on a round whose betting is no longer open. */
  'ROUND.BETTING_CLOSED': 'conflict',
  /** DealCard on a round whose betting is still open. */
  'ROUND.BETTING_OPEN': 'conflict',
  /** DealCard / DrawUnneededCard on a round that is not being dealt (resulted, voided). */
  'ROUND.NOT_DEALING': 'conflict',
  /** VoidRound / CorrectResult on a voided round. */
  'ROUND.ALREADY_VOIDED': 'conflict',
  /** CorrectResult on a round that has no result. */
  'ROUND.NOT_RESULTED': 'conflict',
  /** CorrectResult with exactly the cards already in force. */
  'RESULT.UNCHANGED': 'conflict',
  // --- bets (§3, §4) ---
  'BET.DUPLICATE_ID': 'conflict',
  /** A side bet outside its window (first 60 hands of a non-virtual shoe, §3.2, §3.3). */
  'BET.OUTSIDE_WINDOW': 'unprocessable',
  /** The table's configuration has no limits for this bet code: the table does not take it. */
  'BET.NOT_OFFERED': 'unprocessable',
  'BET.CURRENCY_MISMATCH': 'invalid',
  'BET.BELOW_MINIMUM': 'unprocessable',
  /** The account's total on the code in the round would exceed the maximum (§4). */
  'BET.ABOVE_MAXIMUM': 'unprocessable',
  /** A classic pair wager with no main wager by the same account before it (§3.1). */
  'BET.PAIR_NEEDS_MAIN_BET': 'unprocessable',
  // --- special cards (§5.2, §5.3, §5.5) ---
  /** A second cut card in the same shoe. */
  'CUT_CARD.ALREADY_DRAWN': 'conflict',
  /** An exposed or dropped card reported in a phase it cannot have happened in. */
  'CARD.WRONG_PHASE': 'conflict',
  // --- dealer ---
  /** ChangeDealer while a round is being dealt. */
  'DEALER.CHANGE_MID_DEALING': 'conflict',
  /** ChangeDealer to the dealer already at the table. */
  'DEALER.UNCHANGED': 'conflict',
  // --- management decisions (§5) ---
  /** Reason missing or outside 3..500 characters. */
  'MANAGEMENT.REASON_REQUIRED': 'invalid',
  /** Acting or approving manager id missing. */
  'MANAGEMENT.MANAGER_REQUIRED': 'invalid',
  /** The acting and approving managers are the same person. */
  'MANAGEMENT.SAME_APPROVER': 'forbidden',
  /** The acting or approving manager is the dealer of the round (or shoe) concerned. */
  'MANAGEMENT.DEALER_CANNOT_DECIDE': 'forbidden',
  // --- replay ---
  /** evolve met an event the stream cannot hold (unknown round or bet): the stream is corrupt. */
  'EVENT.INCONSISTENT': 'conflict',
  /** evolve met an event type outside the catalogue. */
  'EVENT.UNKNOWN_TYPE': 'invalid',
} as const satisfies Record<string, ErrorKind> & Record<RulesErrorCode, ErrorKind>;

/** What sort of refusal a code is; see {@link DOMAIN_ERROR_CODES}. */
export type ErrorKind = 'invalid' | 'not-found' | 'conflict' | 'forbidden' | 'unprocessable';

/** Every stable code a {@link DomainError} can carry (the rules library's codes included). */
export type DomainErrorCode = keyof typeof DOMAIN_ERROR_CODES;

/**
 * A refusal by `decide` (or a corrupt stream met by `evolve`).
 * @property code stable machine-readable code, see {@link DOMAIN_ERROR_CODES}
 * @property kind the code's {@link ErrorKind}, for the single HTTP mapping
 * @property details structured context (the offending bet id, card, limit, …), JSON-safe
 */
export class DomainError extends Error {
  readonly kind: ErrorKind;
  constructor(
    public readonly code: DomainErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.kind = DOMAIN_ERROR_CODES[code];
  }

  /** A RulesError as a DomainError with the same code, message and details. */
  static fromRules(e: RulesError, extra: Record<string, unknown> = {}): DomainError {
    return new DomainError(e.code, e.message, { ...e.details, ...extra });
  }
}

/**
 * Runs `fn`, turning a {@link RulesError} it throws into a {@link DomainError} with the same code
 * (and `extra` merged into its details). Other errors pass unchanged.
 */
export function passRulesErrors<T>(fn: () => T, extra: Record<string, unknown> = {}): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RulesError) throw DomainError.fromRules(e, extra);
    throw e;
  }
}
