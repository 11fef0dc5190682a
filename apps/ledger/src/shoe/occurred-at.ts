import { ApiError } from '../kernel/api-error';

/** The bounds of a client's `occurredAt` (the API's `OCCURRED_AT_MAX_SKEW_MS`, `OCCURRED_AT_MAX_AGE_MS`). */
export interface OccurredAtBounds {
  /** How far ahead of the ledger's clock `occurredAt` may be, and how much before the shoe's opening, in ms (≥ 0). */
  readonly maxSkewMs: number;
  /** How old the `occurredAt` of a shoe's opening may be, in ms (> 0). */
  readonly maxAgeMs: number;
}

/** Why an `occurredAt` was refused (`details.reason` of `TIME.OCCURRED_AT_OUT_OF_RANGE`). */
export type OccurredAtRefusal = 'IN_THE_FUTURE' | 'TOO_OLD' | 'BEFORE_SHOE_OPENED';

/**
 * Refuses an `occurredAt` a client could use to rewrite when things happened (docs/guarantees.md
 * §9: `occurredAt` is the time at the table *as reported*; docs/guarantees.md §13: a device is an
 * adversary too). The time at the table is bounded by the ledger's own clock and by the shoe:
 * - never later than `now + maxSkewMs` (no fact from the future);
 * - the opening of a shoe (`shoeOpenedAt` null: the stream is empty) no earlier than
 *   `now - maxAgeMs` (a shoe is not opened in yesterday's books);
 * - every later fact, bet or decision of the shoe no earlier than the shoe's opening — the
 *   `occurredAt` of its ShoeOpened, the same clock as the device's, less `maxSkewMs` for a device
 *   whose clock runs a little behind the ledger's when the shoe was opened without an `occurredAt`.
 *
 * What it cannot move any more: the gaming day, which follows the ledger's `recordedAt`
 * (docs/domain-rules.md §7), never `occurredAt`.
 *
 * @param occurredAt the request's ISO-8601 `occurredAt` (checked by the DTO); null (absent: the
 *   ledger's time) always passes
 * @param shoeOpenedAt ISO-8601 `occurredAt` of the stream's ShoeOpened, or null when the stream is empty
 * @param nowMs the ledger's clock, ms since the epoch
 * @throws ApiError 422 `TIME.OCCURRED_AT_OUT_OF_RANGE` with `details: { occurredAt, earliest,
 *   latest, reason }` (`earliest`/`latest` ISO-8601; `reason` an {@link OccurredAtRefusal})
 */
export function assertOccurredAtInRange(occurredAt: string | null, shoeOpenedAt: string | null, nowMs: number, bounds: OccurredAtBounds): void {
  if (occurredAt === null) return;
  const t = Date.parse(occurredAt);
  const latest = nowMs + bounds.maxSkewMs;
  const earliest = shoeOpenedAt === null ? nowMs - bounds.maxAgeMs : Date.parse(shoeOpenedAt) - bounds.maxSkewMs;
  let reason: OccurredAtRefusal | null = null;
  if (t > latest) reason = 'IN_THE_FUTURE';
  else if (t < earliest) reason = shoeOpenedAt === null ? 'TOO_OLD' : 'BEFORE_SHOE_OPENED';
  if (reason === null) return;
  const span = { occurredAt, earliest: new Date(earliest).toISOString(), latest: new Date(latest).toISOString(), reason };
  const why =
    reason === 'IN_THE_FUTURE'
      ? `is more than ${bounds.maxSkewMs} ms ahead of the ledger's clock`
      : reason === 'TOO_OLD'
        ? `is more than ${bounds.maxAgeMs} ms before the ledger's clock (a shoe opens now, not in the past)`
        : `is before the shoe opened (${shoeOpenedAt})`;
  throw new ApiError('TIME.OCCURRED_AT_OUT_OF_RANGE', `occurredAt ${occurredAt} ${why}: accepted ${span.earliest} .. ${span.latest}`, span);
}
