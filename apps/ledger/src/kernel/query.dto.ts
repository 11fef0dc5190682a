import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn, IsOptional, Matches, registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * Query-string DTOs of the read side (docs/guarantees.md §11): every read route validates its query
 * with one of these through the global ValidationPipe (`whitelist` + `forbidNonWhitelisted`: an
 * unknown parameter is 400 `VALIDATION.FAILED`), like the write side validates its bodies. A
 * parameter given twice (`?a=1&a=2`, an array) or with a prototype key as its name is refused before
 * (`RequestShapePipe`). Values stay strings here; the controllers convert the checked text
 * (numbers, times) and nothing of it is ever SQL text: the queries take them as parameters only.
 */

/** An id filter: the id alphabet of the write side plus `@`, 1..64 characters. */
export const FILTER_ID = /^[A-Za-z0-9_.:@-]{1,64}$/;
/** An opaque page cursor as this API writes it: base64url, at most 200 characters. */
export const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,200}$/;
/** An event type name. */
export const EVENT_TYPE = /^[A-Za-z]{1,40}$/;
/** A settlement status. */
export const SETTLEMENT_STATUSES = ['OPEN', 'SETTLED', 'RESETTLED', 'REFUNDED'] as const;
/** The dimensions the reconciliation report groups by (docs/domain-rules.md §4). */
export const RECONCILIATION_DIMENSION_NAMES: ReadonlySet<string> = new Set(['table', 'shoe', 'dealer', 'day', 'currency']);

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * Whether `y-m-d` is a real calendar date of a four-digit year, 1000..9999 (JavaScript's `Date.UTC`
 * reads years 0..99 as 19xx, so a year 0001 became 1901 on its way to a signed close).
 */
function isCalendarDate(y: number, m: number, d: number): boolean {
  if (y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/** Whether `v` is a gaming day `YYYY-MM-DD` that exists (no `2026-02-30`, no year 0). */
export function isGamingDay(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  return !!m && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * Whether `v` is an ISO-8601 time `YYYY-MM-DD[THH:MM[:SS[.f]](Z|±HH:MM)]` of years 1000..9999 with a real
 * date and clock. A time of day needs its offset (without one it would be read in the server's zone);
 * a date alone is midnight UTC.
 */
export function isIsoTime(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = ISO_TIME.exec(v);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return false;
  // its UTC instant too (an offset can move 1000-01-01 into year 999, 9999-12-31 into 10000)
  const y = new Date(t).getUTCFullYear();
  return y >= 1000 && y <= 9999;
}

/** Largest global position an `asOf` may name (PostgreSQL `bigint`). */
export const MAX_AS_OF_POSITION = 9_223_372_036_854_775_807n;

/** Whether `v` is an `asOf` text (docs/reports.md §3): a global position `0..2^63-1` (no sign, no leading zero) or an ISO-8601 time. */
export function isAsOfText(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > 40) return false;
  if (/^(0|[1-9]\d{0,18})$/.test(v)) return BigInt(v) <= MAX_AS_OF_POSITION;
  return isIsoTime(v);
}

/** The OpenAPI description of every `asOf` parameter (docs/reports.md §3). */
export const AS_OF_DESCRIPTION =
  'as the ledger knew it then (docs/reports.md §3): a global position (integer ≥ 0) or an ISO-8601 time (the greatest global position recorded at or before it); 409 ASOF.NOT_PROJECTED while the read model has not applied every event up to it';

/** Whether `v` is a decimal integer text (no sign, exponent, fraction or leading zero) in `min..max`. */
export function isIntegerText(v: unknown, min: number, max: number): v is string {
  if (typeof v !== 'string' || !/^(0|[1-9]\d{0,15})$/.test(v)) return false;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= min && n <= max;
}

function check(name: string, message: string, test: (v: unknown) => boolean, options?: ValidationOptions) {
  return (object: object, propertyName: string) => registerDecorator({ name, target: object.constructor, propertyName, options: { message: `${propertyName} ${message}`, ...options }, validator: { validate: test } });
}

/** An ISO-8601 time (see {@link isIsoTime}). */
export const IsIsoTime = (o?: ValidationOptions) => check('isIsoTime', 'must be an ISO-8601 time with its offset (YYYY-MM-DDTHH:MM:SSZ or ±HH:MM, years 1000..9999)', isIsoTime, o);
/** A gaming day (see {@link isGamingDay}). */
export const IsGamingDay = (o?: ValidationOptions) => check('isGamingDay', 'must be a date YYYY-MM-DD that exists', isGamingDay, o);
/** A decimal integer in `min..max` (see {@link isIntegerText}). */
export const IsIntegerText = (min: number, max: number, o?: ValidationOptions) => check('isIntegerText', `must be an integer ${min}..${max}`, (v) => isIntegerText(v, min, max), o);
/** An `asOf` value (see {@link isAsOfText}). */
export const IsAsOf = (o?: ValidationOptions) => check('isAsOf', 'must be a global position (integer 0..2^63-1) or an ISO-8601 time', isAsOfText, o);
/** A comma list of reconciliation dimensions, each of {@link RECONCILIATION_DIMENSION_NAMES} (a `Set` lookup: `constructor` is no dimension). */
export const IsDimensionList = (o?: ValidationOptions) =>
  check(
    'isDimensionList',
    'must be a comma list of table, shoe, dealer, day, currency (each at most once)',
    (v) => {
      if (typeof v !== 'string' || v.length > 64) return false;
      const parts = v.split(',').filter((p) => p !== '');
      return parts.every((p) => RECONCILIATION_DIMENSION_NAMES.has(p)) && new Set(parts).size === parts.length;
    },
    o,
  );

/**
 * Query of a read route that takes no parameter: any parameter is refused (400 `VALIDATION.FAILED`).
 * Its one hidden property is never allowed a value; it exists because class-validator refuses to
 * validate a class without any rule (`forbidUnknownValues`).
 */
export class NoQuery {
  @ApiHideProperty() @Equals(undefined, { message: 'this route takes no query parameter' }) readonly _none?: never;
}

/** `limit` and `cursor` of a keyset-paginated list. */
export class PageQuery {
  @ApiPropertyOptional({ description: '1..1000, default 100' }) @IsOptional() @IsIntegerText(1, 1000) limit?: string;
  @ApiPropertyOptional({ description: 'nextCursor of the previous page (opaque)' }) @IsOptional() @Matches(CURSOR_TEXT, { message: 'cursor is not one this API returned' }) cursor?: string;
}

/** Query of `GET /audit/events` and `GET /audit/decisions`. Times filter `occurredAt`. */
export class EventSearchQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) shoeId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) roundId?: string;
  @ApiPropertyOptional({ description: 'event type, e.g. RoundVoided' }) @IsOptional() @Matches(EVENT_TYPE) type?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) actorId?: string;
  @ApiPropertyOptional({ description: 'ISO-8601, inclusive' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'ISO-8601, exclusive' }) @IsOptional() @IsIsoTime() to?: string;
}

/** Query of `GET /audit/access-log`. */
export class AccessLogQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) actorId?: string;
  @ApiPropertyOptional({ description: 'ISO-8601, inclusive' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'ISO-8601, exclusive' }) @IsOptional() @IsIsoTime() to?: string;
}

/** Query of `GET /settlements`. */
export class SettlementsQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) shoeId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) roundId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) accountId?: string;
  @ApiPropertyOptional({ enum: SETTLEMENT_STATUSES }) @IsOptional() @IsIn(SETTLEMENT_STATUSES) status?: (typeof SETTLEMENT_STATUSES)[number];
  @ApiPropertyOptional({ description: AS_OF_DESCRIPTION }) @IsOptional() @IsAsOf() asOf?: string;
}

/** Query of `GET /reports/reconciliation`. */
export class ReconciliationQuery {
  @ApiPropertyOptional({ description: 'comma list of table,shoe,dealer,day,currency (default table,currency)' }) @IsOptional() @IsDimensionList() groupBy?: string;
  @ApiPropertyOptional({ enum: ['json', 'csv'] }) @IsOptional() @IsIn(['json', 'csv']) format?: 'json' | 'csv';
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) shoeId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) dealerId?: string;
  @ApiPropertyOptional({ description: 'ISO 4217, e.g. EUR' }) @IsOptional() @Matches(/^[A-Z]{3}$/) currency?: string;
  @ApiPropertyOptional({ description: 'gaming day YYYY-MM-DD, inclusive' }) @IsOptional() @IsGamingDay() fromDay?: string;
  @ApiPropertyOptional({ description: 'gaming day YYYY-MM-DD, inclusive' }) @IsOptional() @IsGamingDay() toDay?: string;
  @ApiPropertyOptional({ description: AS_OF_DESCRIPTION }) @IsOptional() @IsAsOf() asOf?: string;
}

/** Query of `GET /shoes/{shoeId}/events`: stream versions are 1-based. */
export class StreamQuery {
  @ApiPropertyOptional({ description: 'first stream version, 1..2^31-1, default 1' }) @IsOptional() @IsIntegerText(1, 2_147_483_647) fromVersion?: string;
  @ApiPropertyOptional({ description: '1..10000, default 1000' }) @IsOptional() @IsIntegerText(1, 10_000) limit?: string;
}

/** Query of `GET /audit/anchors/verify`. */
export class AnchorsVerifyQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'also compare the anchors topic and the Kafka copy of every event (default false)' }) @IsOptional() @IsIn(['true', 'false']) kafka?: string;
  @ApiPropertyOptional({ description: 'ms; events younger than this may be unanchored or not on Kafka yet (default 120000)' }) @IsOptional() @IsIntegerText(0, Number.MAX_SAFE_INTEGER) graceMs?: string;
}

/** The statuses of a projected shoe (`shoe_state.status`). */
export const SHOE_STATUSES = ['OPEN', 'COMMENCING', 'READY', 'IN_ROUND', 'CLOSED', 'VOIDED'] as const;

/** Query of `GET /shoes`: newest first. */
export class ShoesQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional({ enum: SHOE_STATUSES }) @IsOptional() @IsIn(SHOE_STATUSES) status?: (typeof SHOE_STATUSES)[number];
}

/** Query of `GET /shoes/{shoeId}/rounds`: by hand number. */
export class RoundsQuery extends PageQuery {}
