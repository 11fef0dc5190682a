import type { Request } from 'express';
import { ApiError } from './api-error';

/**
 * The format of a report or export answer (docs/api-versioning.md §6): the `format` query parameter
 * when given, else what the `Accept` header prefers among the media types the route offers (HTTP
 * content negotiation, Express's `req.accepts`: the highest `q`, ties to the order of `byType`), else
 * `byType`'s first. So `Accept: text/csv` alone gets the CSV a generated client asked for, and a
 * client that sends no `Accept` (or `*\/*`, as browsers do after their own types) gets the default.
 * @param byType the route's media types in order of preference → the format each stands for
 * @returns the format to answer in
 * @throws ApiError 406 `REQUEST.NOT_ACCEPTABLE` when an `Accept` is sent and names none of the route's types (nor a wildcard matching one)
 */
export function answerFormat<F extends string>(req: Pick<Request, 'accepts' | 'headers'>, given: F | undefined, byType: Readonly<Record<string, F>>): F {
  if (given !== undefined) return given;
  const types = Object.keys(byType);
  const best = req.accepts(types);
  if (typeof best === 'string') return byType[best];
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '') return byType[types[0]];
  throw ApiError.of('REQUEST.NOT_ACCEPTABLE', { accept: accept.slice(0, 200), available: types.join(', ') });
}
