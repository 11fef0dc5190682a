import { ApiProperty, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * Short forms of `@ApiProperty` for the response schemas of the read routes (`*.responses.ts`), so
 * every field states its type, whether it may be null, and its enum. Amounts are strings of integer
 * minor units (never a JSON number: nothing passes through floating point); times are ISO-8601 UTC.
 */
type Opts = { description?: string; example?: unknown; required?: boolean };

const d = (o?: Opts | string): Opts => (typeof o === 'string' ? { description: o } : (o ?? {}));

/** A string. */
export const Str = (o?: Opts | string) => ApiProperty({ type: String, ...d(o) });
/** A string or null. */
export const NStr = (o?: Opts | string) => ApiProperty({ type: String, nullable: true, ...d(o) });
/** A decimal string of a 64-bit integer (global position, id of the query log). */
export const Position = (o?: Opts | string) => ApiProperty({ type: String, pattern: '^\\d+$', ...d(o) });
/** An amount: a decimal string of integer minor units of the currency. */
export const Amount = (o?: string) => ApiProperty({ type: String, pattern: '^-?\\d+$', description: `integer minor units${o ? `: ${o}` : ''}` });
/** An amount or null. */
export const NAmount = (o?: string) => ApiProperty({ type: String, nullable: true, pattern: '^-?\\d+$', description: `integer minor units${o ? `: ${o}` : ''}` });
/** An integer. */
export const Int = (o?: Opts | string) => ApiProperty({ type: 'integer', ...d(o) });
/** An integer or null. */
export const NInt = (o?: Opts | string) => ApiProperty({ type: 'integer', nullable: true, ...d(o) });
/** A boolean. */
export const Bool = (o?: Opts | string) => ApiProperty({ type: Boolean, ...d(o) });
/** A boolean or null. */
export const NBool = (o?: Opts | string) => ApiProperty({ type: Boolean, nullable: true, ...d(o) });
/** An ISO-8601 time. */
export const Time = (o?: Opts | string) => ApiProperty({ type: String, format: 'date-time', ...d(o) });
/** An ISO-8601 time or null. */
export const NTime = (o?: Opts | string) => ApiProperty({ type: String, format: 'date-time', nullable: true, ...d(o) });
/** A gaming day `YYYY-MM-DD`. */
export const Day = (o?: Opts | string) => ApiProperty({ type: String, format: 'date', ...d(o) });
/** One of `values`. */
export const Enum = (values: readonly string[], o?: Opts | string) => ApiProperty({ enum: [...values], ...d(o) });
/** One of `values` or null. */
export const NEnum = (values: readonly string[], o?: Opts | string) => ApiProperty({ enum: [...values], nullable: true, ...d(o) });
/** A list of strings. */
export const Strs = (o?: Opts | string) => ApiProperty({ type: [String], ...d(o) });
/** A list of strings or null. */
export const NStrs = (o?: Opts | string) => ApiProperty({ type: [String], nullable: true, ...d(o) });
/** A list of `type`. */
export const List = (type: () => Function, o?: Opts | string) => ApiProperty({ type: () => [type()], ...d(o) });
/** An object of schema `type`. */
export const One = (type: () => Function, o?: Opts | string) => ApiProperty({ type: type(), ...d(o) });
/** An object of schema `type` or null. */
export const NOne = (type: () => Function, o?: Opts | string) => ApiProperty({ type: type(), nullable: true, ...d(o) });
/** A free-form JSON object (an event's `data`, a query's parameters). */
export const Json = (o?: Opts | string) => ApiProperty({ type: 'object', additionalProperties: true, ...d(o) } as ApiPropertyOptions);
/** A free-form JSON object or null. */
export const NJson = (o?: Opts | string) => ApiProperty({ type: 'object', additionalProperties: true, nullable: true, ...d(o) } as ApiPropertyOptions);
/** An object of integer counts by key (e.g. cards by rank `A`, `2`..`9`, `T`, `J`, `Q`, `K`). */
export const Counts = (o?: Opts | string) => ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, ...d(o) } as ApiPropertyOptions);
/** A list of lists of `type` (road columns); `type` must be in `@ApiExtraModels`. */
export const Columns = (type: Function, o?: Opts | string) => ApiProperty({ type: 'array', items: { type: 'array', items: { $ref: getSchemaPath(type) } }, ...d(o) });
