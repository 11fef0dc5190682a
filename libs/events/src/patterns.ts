/**
 * The notations every edge of the ledger accepts for ids and cards (HTTP bodies, table logs, the
 * replayer), defined once so that the edges cannot drift apart. Plain regular expressions (no `g`
 * flag: `test` keeps no state between calls, so they are safe to share).
 */

/**
 * A ledger id (shoe, round, bet, account, dealer, manager, device): 1..64 characters of
 * `A-Z a-z 0-9 _ . : -`. Round and bet ids are ledger-wide references (docs/architecture.md §3).
 */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Whether `v` is a string in {@link ID_PATTERN}. */
export function isLedgerId(v: unknown): v is string {
  return typeof v === 'string' && ID_PATTERN.test(v);
}

/**
 * Card notation (docs/domain-rules.md §1): rank `A 2-9 T J Q K` (or `10` for the ten) then suit
 * `S H D C`, case-insensitive: `9S`, `TH`, `10h`. Only the text; `parseCard` of `@ledger/rules`
 * turns it into the canonical `Card` (`10H` → `TH`).
 */
export const CARD_PATTERN = /^(10|[2-9TJQKA])[SHDC]$/i;

/** Whether `v` is a string in {@link CARD_PATTERN}. */
export function isCardText(v: unknown): v is string {
  return typeof v === 'string' && CARD_PATTERN.test(v);
}
