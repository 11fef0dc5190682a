import { isAsOfText } from '../query.dto';

export { isAsOfText };

/**
 * What an `asOf` query parameter asks for (docs/reports.md §3): the ledger as it knew it at a
 * global position, given either as that position (a decimal integer ≥ 0) or as an ISO-8601 time
 * (resolved to the greatest global position whose event was recorded at or before it).
 */
export type AsOf = { readonly kind: 'position'; readonly position: bigint } | { readonly kind: 'time'; readonly at: string };

/**
 * Parses a checked `asOf` text.
 * @returns `null` for `undefined` (the live answer), else the position or the time (normalised to ISO UTC)
 * @throws Error when `v` is not {@link isAsOfText} (the DTO refused it before: a programming error)
 */
export function parseAsOf(v: string | undefined | null): AsOf | null {
  if (v === undefined || v === null) return null;
  if (!isAsOfText(v)) throw new Error(`asOf ${JSON.stringify(v)} is not a global position or an ISO-8601 time`);
  if (/^\d+$/.test(v)) return { kind: 'position', position: BigInt(v) };
  return { kind: 'time', at: new Date(Date.parse(v)).toISOString() };
}
