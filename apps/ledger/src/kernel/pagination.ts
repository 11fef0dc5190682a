import { ApiError } from './api-error';
import { camel } from './camel';
import { isIsoTime } from './query.dto';

/** A page of a list: `items`, and `nextCursor` to pass back for the next page (null at the end). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A keyset page of read-model rows: the first `limit` rows camelCased ({@link camel}), and the
 * cursor of the last one (`key` of that row) when the read fetched more (it asks for `limit + 1`).
 */
export function keysetPage<R extends Record<string, unknown>>(rows: R[], limit: number, key: (r: R) => unknown): Page<Record<string, unknown>> {
  const more = rows.length > limit;
  const items = rows.slice(0, limit);
  return { items: items.map((r) => camel(r)), nextCursor: more ? encodeCursor(key(items[items.length - 1])) : null };
}

/**
 * Parses `limit` (1..1000, default 100).
 * @throws ApiError 400 `VALIDATION.FAILED`
 */
export function parseLimit(raw: unknown, dflt = 100): number {
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new ApiError('VALIDATION.FAILED', 'limit must be an integer 1..1000', { limit: raw });
  return n;
}

/** Opaque cursor: base64url of a JSON key. */
export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** @throws ApiError 400 `VALIDATION.FAILED` for a cursor this API did not make */
export function decodeCursor<T>(raw: unknown): T | null {
  if (raw === undefined || raw === '') return null;
  try {
    return JSON.parse(Buffer.from(String(raw), 'base64url').toString('utf8')) as T;
  } catch {
    throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  }
}

/** Largest bigint key PostgreSQL holds (2^63 − 1). */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * A cursor over a `bigint` key (global position, query-log id): it must decode to a string of
 * digits in 0..2^63−1, as this API writes them (a cursor `"abc"` or `1e400` reached the `::bigint`
 * cast and answered 500).
 * @throws ApiError 400 `VALIDATION.FAILED`
 */
export function decodePositionCursor(raw: unknown): string | null {
  const key = decodeCursor<unknown>(raw);
  if (key === null) return null;
  if (typeof key !== 'string' || !/^\d{1,19}$/.test(key) || BigInt(key) > MAX_BIGINT) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  return key;
}

/** The exact text of a `timestamptz` as a time-ordered page's key: ISO-8601 UTC with microseconds. */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * A cursor over a `(time, bigint)` key (an audit page with a time window: `occurred_at` with
 * microseconds, then the global position), as this API writes them: a pair `[time, position]`.
 * @returns `{ time, position }`, or null for no cursor
 * @throws ApiError 400 `VALIDATION.FAILED` for a cursor of another shape (one of a page without a time window, too)
 */
export function decodeTimePositionCursor(raw: unknown): { time: string; position: string } | null {
  const key = decodeCursor<unknown>(raw);
  if (key === null) return null;
  const [time, position] = Array.isArray(key) && key.length === 2 ? key : [];
  if (typeof time !== 'string' || !MICRO_TIME.test(time) || Number.isNaN(Date.parse(time))) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  if (typeof position !== 'string' || !/^\d{1,19}$/.test(position) || BigInt(position) > MAX_BIGINT) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  return { time, position };
}

/**
 * A cursor over an id key (bet id): it must decode to a string of the id alphabet.
 * @throws ApiError 400 `VALIDATION.FAILED`
 */
export function decodeIdCursor(raw: unknown): string | null {
  const key = decodeCursor<unknown>(raw);
  if (key === null) return null;
  if (typeof key !== 'string' || !/^[A-Za-z0-9_.:@-]{1,128}$/.test(key)) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  return key;
}

/**
 * An ISO-8601 time filter as the SQL parameter (UTC `toISOString`), or null when absent. Through HTTP
 * the DTO already checked the text (`isIsoTime`: years 1000..9999, a real date and clock with its offset).
 * @throws ApiError 400 `VALIDATION.FAILED`
 */
export function parseTime(raw: unknown, name: string): string | null {
  if (raw === undefined || raw === '') return null;
  const s = String(raw);
  if (!isIsoTime(s)) throw new ApiError('VALIDATION.FAILED', `${name} must be an ISO-8601 time`);
  return new Date(s).toISOString();
}

/**
 * A half-open time window `[from, to)` from a query string's `from` and `to` (either may be absent),
 * as SQL parameters ({@link parseTime}). An empty or reversed window (`from` not before `to`) is a
 * mistake of the caller, refused rather than answered with an empty page.
 * @throws ApiError 400 `VALIDATION.FAILED` (details `{ problems, from, to }` for a window that is empty or reversed)
 */
export function parseWindow(q: { readonly from?: unknown; readonly to?: unknown }): { from: string | null; to: string | null } {
  const from = parseTime(q.from, 'from');
  const to = parseTime(q.to, 'to');
  if (from && to && from >= to) throw new ApiError('VALIDATION.FAILED', 'from must be before to', { problems: ['from must be before to'], from, to });
  return { from, to };
}
