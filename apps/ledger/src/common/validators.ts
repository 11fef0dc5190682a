import { ApiProperty } from '@nestjs/swagger';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { isCardText } from '@ledger/events';
import type { RefusalContext } from './validation.pipe';

/**
 * A management reason: 3..500 characters, none of them a control character (tab, line feed and
 * carriage return excepted) or a lone UTF-16 surrogate. Such characters have no place in an audit
 * record, and PostgreSQL jsonb cannot store NUL or lone surrogates: they reached the event store
 * and were refused there (422 `APPEND.INVALID`) instead of at the edge, while other controls (BEL,
 * ESC) were recorded.
 */
export const REASON_PATTERN = /^(?:[^\p{Cc}\p{Cs}]|[\t\n\r]){3,500}$/u;

const CARD_MALFORMED: RefusalContext = { code: 'CARD.MALFORMED' };

/**
 * {@link IsCard}'s notation as a JSON Schema `pattern` (ECMA-262, no flags: the case-insensitivity
 * of `CARD_PATTERN` spelled out), for the OpenAPI document (`card` fields: type string, this pattern).
 */
export const CARD_JSON_PATTERN = '^(10|[2-9TJQKAtjqka])[SHDCshdc]$';

/** A response property that is a list of card codes ({@link CARD_JSON_PATTERN} each), `null` too when `nullable`. */
export const CardCodes = (o: { readonly nullable?: boolean; readonly description?: string } = {}) =>
  ApiProperty({ type: 'array', items: { type: 'string', pattern: CARD_JSON_PATTERN }, nullable: o.nullable ?? false, description: o.description ?? 'card codes' });

/** {@link IsMinorUnits}'s string form as a JSON Schema `pattern`: 1..30 decimal digits. */
export const MINOR_UNITS_JSON_PATTERN = '^[0-9]{1,30}$';

/**
 * A card in notation `9S`, `TH`, `10H` (`CARD_PATTERN` of `@ledger/events`, docs/domain-rules.md
 * §1). Only the text is checked here; the controller parses it, once, into the `Card` its
 * command carries. Failing it answers `CARD.MALFORMED`: the code is in the constraint's context
 * ({@link RefusalContext}), whatever the message says.
 */
export function IsCard(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCard',
      target: object.constructor,
      propertyName,
      options: { message: `CARD.MALFORMED: ${propertyName} must be a card like "9S", "TH" or "10H"`, ...options, context: CARD_MALFORMED },
      validator: { validate: (v: unknown) => isCardText(v) },
    });
}

/**
 * A stake in minor units: a decimal string of digits (preferred: exact beyond 2^53) or a JSON
 * integer that is a safe integer. Range checks (1..2^53−1, table limits) are the rules' job
 * (docs/domain-rules.md §4).
 */
export function IsMinorUnits(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isMinorUnits',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be integer minor units, as a string of digits or a safe integer`, ...options },
      validator: {
        validate: (v: unknown) => (typeof v === 'string' && /^\d{1,30}$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0),
      },
    });
}
