import { RulesError } from '@ledger/rules';
import { ERROR_TABLE, errorSpec, formatErrorMessage, type ErrorCodeRaisedBy, type ErrorKind, type ErrorStatus } from '@ledger/errors';

export type { ErrorKind } from '@ledger/errors';

/**
 * Every stable code a {@link DomainError} can carry: the codes the error table says the shoe or
 * the rules library raise (docs/architecture.md §4). A refusal of the shoe-and-round state machine
 * (docs/guarantees.md §11: an impossible fact is refused with a clear, machine-readable error and
 * nothing already recorded changes). Status, kind and message template of each code: `ERROR_TABLE`
 * in `@ledger/errors`.
 */
export type DomainErrorCode = ErrorCodeRaisedBy<'shoe' | 'rules'>;

/**
 * The kind of every domain code, read from the error table (kept for readers of the former
 * per-code map; the table is the source).
 */
export const DOMAIN_ERROR_CODES: { readonly [C in DomainErrorCode]: (typeof ERROR_TABLE)[C]['kind'] } = Object.fromEntries(
  Object.entries(ERROR_TABLE)
    .filter(([, s]) => (s.raisedBy as readonly string[]).some((r) => r === 'shoe' || r === 'rules'))
    .map(([code, s]) => [code, s.kind]),
) as { readonly [C in DomainErrorCode]: (typeof ERROR_TABLE)[C]['kind'] };

/**
 * A refusal by `decide` (or a corrupt stream met by `evolve`).
 * @property code stable machine-readable code, see {@link DomainErrorCode}
 * @property kind the code's kind in the error table
 * @property status the HTTP status the error table gives the code (the API answers with it)
 * @property details structured context (the offending bet id, card, limit, …), JSON-safe
 */
export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly status: ErrorStatus;
  constructor(
    public readonly code: DomainErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
    const spec = errorSpec(code);
    this.kind = spec.kind;
    this.status = spec.status;
  }

  /** A DomainError whose message is the table's template for `code` filled from `details`. */
  static of(code: DomainErrorCode, details: Record<string, unknown> = {}): DomainError {
    return new DomainError(code, formatErrorMessage(code, details), details);
  }

  /**
   * A RulesError as a DomainError with the same code, message and details (this compiles only while
   * every rules code is a domain code of the error table).
   */
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
