/**
 * Typed errors of the rules library. Every error carries a stable, machine-readable `code`
 * (e.g. `CARD.MALFORMED`) that refusal logs record. Its HTTP status, kind and message template are
 * in the one error table (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4); this library
 * imports nothing but itself, so the table names these codes by string and `DomainError.fromRules`
 * in `@ledger/shoe` only compiles while every one of them is in it.
 */

/** Stable error codes raised by the rules library. */
export type RulesErrorCode =
  | 'CARD.MALFORMED'
  | 'SHOE.CARD_EXCEEDS_DECKS'
  | 'SHOE.INVALID_DECK_COUNT'
  | 'TABLEAU.INSUFFICIENT_CARDS'
  | 'TABLEAU.VIOLATION'
  | 'MONEY.INVALID_STAKE'
  | 'MONEY.INVALID_ODDS'
  | 'PAYTABLE.UNKNOWN'
  | 'PAYTABLE.INVALID'
  | 'BET.UNKNOWN_CODE'
  | 'VARIANT.UNKNOWN';

/**
 * Base error of the rules library.
 * @property code stable machine-readable code, see {@link RulesErrorCode}
 * @property details optional structured context (the offending card, position, …)
 */
export class RulesError extends Error {
  constructor(
    public readonly code: RulesErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'RulesError';
  }
}
