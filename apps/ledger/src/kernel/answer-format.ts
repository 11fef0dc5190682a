import type { Request } from 'express';

/**
 * The format of a report or export answer (docs/api-versioning.md §6): the `format` query parameter
 * when given, else what the `Accept` header prefers among the media types the route offers (HTTP
 * content negotiation, Express's `req.accepts`: the highest `q`, ties to the order of `byType`), else
 * `byType`'s first. So `Accept: text/csv` alone gets the CSV a generated client asked for, and a
 * client that sends no `Accept` (or `*\/*`) gets the default.
 * @param byType the route's media types in order of preference → the format each stands for
 * @returns the format to answer in
 */
export function answerFormat<F extends string>(req: Pick<Request, 'accepts'>, given: F | undefined, byType: Readonly<Record<string, F>>): F {
  if (given !== undefined) return given;
  const types = Object.keys(byType);
  const best = req.accepts(types);
  return byType[typeof best === 'string' ? best : types[0]];
}
