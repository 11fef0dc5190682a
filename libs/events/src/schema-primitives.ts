import { BET_CODES, VARIANTS } from '@ledger/rules';

/**
 * The building blocks of the event schemas (`event-schemas.ts`, docs/guarantees.md §10): identifiers,
 * decimal amounts, times, cards, currencies, windows. JSON Schema draft-07 nodes.
 */
export const ID = { type: 'string', minLength: 1 };
export const IDS = { type: 'array', items: ID };
export const ID_OR_NULL = { anyOf: [ID, { type: 'null' }] };
export const NULL = { type: 'null' };
/** The window a significant event's cause stands for (flood bound, storms). */
export const CAUSE_WINDOW = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'seconds', 'subject', 'count'],
  properties: { start: { type: 'string', format: 'date-time' }, seconds: { type: 'integer', minimum: 1 }, subject: ID, count: { type: 'integer', minimum: 1 }, rest: { type: 'boolean', enum: [true] } },
};
export const BOOL = { type: 'boolean' };
export const SHA256_HEX = { type: 'string', pattern: '^[0-9a-f]{64}$' };
export const POSITIVE = { type: 'integer', minimum: 1 };
export const COUNT = { type: 'integer', minimum: 0 };
export const HAND_TOTAL = { type: 'integer', minimum: 0, maximum: 9 };
export const TIME = { type: 'string', format: 'date-time' };
export const REASON = { type: 'string', minLength: 3, maxLength: 500 };
export const DECIMAL = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
export const MINOR = { ...DECIMAL, description: 'Integer minor units as a decimal string (JSON numbers cannot carry every bigint).' };
export const SIGNED_MINOR = { type: 'string', pattern: '^(0|-?[1-9][0-9]*)$', description: 'Signed integer minor units as a decimal string.' };
export const DROPPED = { type: 'string', pattern: '^(0|-?[1-9][0-9]*(/[1-9][0-9]*)?)$', description: 'Fraction of a minor unit dropped by rounding down: `"num/den"` (`"1/4"`), `"0"` when none.' };
export const CURRENCY = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' };
export const CARD = { type: 'string', pattern: '^[A2-9TJQK][SHDC]$', description: 'Canonical card code: rank A 2-9 T J Q K, suit S H D C (`TH`, never `10H`).' };
export const VARIANT = { type: 'string', enum: [...VARIANTS] };
/** Every bet code of every variant, in the variants' order, once each. */
export const BET_CODE = { type: 'string', enum: [...new Set(VARIANTS.flatMap((v) => BET_CODES[v]))], description: 'Bet code (the variant decides which are offered).' };

/** `ConfigurationAttested.significant`: the significant-event settings in force, exact text (ratios `n/d`, amounts decimal strings). */
export const ATTESTED_SIGNIFICANT = {
  type: 'object',
  description: 'The significant-event settings in force (docs/significant-events.md, "What is attested"); absent from older attestations.',
  additionalProperties: false,
  required: ['monitor', 'winMultiple', 'winAmountMinor', 'clockSkewBoundMs', 'fairnessConfidence', 'floodWindowSeconds'],
  properties: {
    monitor: BOOL,
    winMultiple: { type: 'string', pattern: '^[1-9]\\d{0,17}/[1-9]\\d{0,17}$' },
    winAmountMinor: { type: 'string', pattern: '^[1-9]\\d{0,17}$' },
    clockSkewBoundMs: { type: 'integer', minimum: 0 },
    fairnessConfidence: { type: 'string', pattern: '^[1-9]\\d{0,17}/[1-9]\\d{0,17}$' },
    floodWindowSeconds: { type: 'integer', minimum: 1 },
  },
};
