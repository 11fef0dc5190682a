import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '../kernel/api-error';

/**
 * Path ids (shoe, round, table, bet, event): the id alphabet of the write side plus `@`, at most
 * 128 characters. Anything else cannot name a record; it is refused before it reaches a query
 * (a NUL in `shoes/%00/...` made PostgreSQL fail the read with a 500).
 */
const PATH_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

/** Keys that class-transformer silently drops instead of letting `forbidNonWhitelisted` refuse them. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Names no query parameter and no body key may have: the {@link FORBIDDEN_KEYS} and every property
 * of `Object.prototype` (`toString`, `valueOf`, `hasOwnProperty`, …). class-transformer and
 * class-validator treat those as known members of every DTO: `?valueOf=…` passed the "unknown
 * parameter" check and its value (a NUL) reached the query log (500), and a body
 * `{"card": "5C", "valueOf": "x"}` was accepted with the key silently dropped.
 */
const FORBIDDEN_NAMES: ReadonlySet<string> = new Set([...FORBIDDEN_KEYS, ...Object.getOwnPropertyNames(Object.prototype)]);

/** Deepest nesting a request body may have (the deepest real one, a bet batch, has 3 levels). */
export const MAX_BODY_DEPTH = 16;

/**
 * Global pipe run before the ValidationPipe (docs/guarantees.md §11: bad input is refused
 * with a clear code, never a 500, never silently accepted):
 * - path parameters must look like ids, else 400 `VALIDATION.FAILED`;
 * - a whole query string (a read route's DTO) holds each parameter once, as text, and no
 *   `__proto__` / `constructor` / `prototype` nor other `Object.prototype` name, else 400
 *   `VALIDATION.FAILED`;
 * - bodies may not nest deeper than {@link MAX_BODY_DEPTH} (class-transformer recurses and a body
 *   nested 10^4 deep overflowed the stack: 500) nor carry `__proto__` / `constructor` /
 *   `prototype` or other `Object.prototype` keys (dropped by class-transformer, so such a body was
 *   accepted although extra fields are refused everywhere else), else 400 `VALIDATION.FAILED`.
 * The walk is iterative, so the check itself cannot overflow.
 */
@Injectable()
export class RequestShapePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' && (typeof value !== 'string' || !PATH_ID.test(value))) {
      throw new ApiError('VALIDATION.FAILED', `path parameter ${metadata.data ?? ''} is not a valid id`, { param: metadata.data ?? null });
    }
    if (metadata.type === 'body') checkBody(value);
    if (metadata.type === 'query' && metadata.data === undefined) checkQuery(value);
    return value;
  }
}

/**
 * A whole query string (`@Query()` DTOs of the read side): each parameter at most once, as text (a
 * repeated `?a=1&a=2` arrives as an array and made `split` throw: 500), no prototype key as a name
 * (class-transformer drops those instead of refusing them). Unknown names and bad values are the
 * DTO's job. @throws ApiError 400 `VALIDATION.FAILED`
 */
function checkQuery(query: unknown): void {
  if (query === undefined || query === null) return;
  if (typeof query !== 'object') throw new ApiError('VALIDATION.FAILED', 'the query string cannot be read');
  for (const k of Object.keys(query)) {
    if (FORBIDDEN_NAMES.has(k)) throw new ApiError('VALIDATION.FAILED', `query parameter ${k} should not exist`, { parameter: k });
    if (typeof (query as Record<string, unknown>)[k] !== 'string') throw new ApiError('VALIDATION.FAILED', 'a query parameter may be given once, as text', { parameter: k.slice(0, 64) });
  }
}

function checkBody(body: unknown): void {
  const stack: Array<[unknown, number]> = [[body, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) throw new ApiError('VALIDATION.FAILED', `request body nests deeper than ${MAX_BODY_DEPTH} levels`);
    if (Array.isArray(v)) {
      for (const x of v) stack.push([x, depth + 1]);
      continue;
    }
    for (const k of Object.keys(v)) {
      if (FORBIDDEN_NAMES.has(k)) throw new ApiError('VALIDATION.FAILED', `property ${k} should not exist`, { property: k });
      stack.push([(v as Record<string, unknown>)[k], depth + 1]);
    }
  }
}
