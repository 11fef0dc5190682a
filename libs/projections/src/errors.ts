import type { AssertErrorCodes } from '@ledger/errors';

/**
 * Typed errors of the read side. Every error carries a stable, machine-readable `code` that logs
 * and alerts key on; each is a code of the error table (`ERROR_TABLE` in `@ledger/errors`,
 * docs/architecture.md §4) of kind `internal`: the projector stops on it, the API never answers it.
 * A projection error rolls the whole transaction back, so neither rows nor checkpoint move: the
 * partition stops until the cause is fixed (the ledger's reports must never be silently wrong).
 */

/** Stable error codes raised by the projections, the runner and the rebuild. */
export type ProjectionErrorCode = AssertErrorCodes<
  /** A Kafka record whose value is not a well-formed ledger event envelope. */
  | 'PROJECTION.MALFORMED_EVENT'
  /** An event type (or schema version) this projector cannot read: upgrade the projector first. */
  | 'PROJECTION.UNKNOWN_EVENT_TYPE'
  /** An event contradicts the projected state (a settlement of a bet never placed, a round of an unknown shoe…). */
  | 'PROJECTION.INCONSISTENT_EVENT'
  /**
   * A stream version was skipped: an event of the shoe is missing before this one (docs/guarantees.md §5).
   * No longer thrown by the applier: such a record is quarantined (`VERSION_GAP`, `record-verification.ts`).
   */
  | 'PROJECTION.STREAM_GAP'
  /** An amount that is not an integer number of minor units, or a dropped fraction that is not `num/den`. */
  | 'PROJECTION.BAD_AMOUNT'
  /** A schema name that is not a plain lower-case SQL identifier. */
  | 'PROJECTION.BAD_SCHEMA_NAME'
  /** An environment variable or option with an invalid value. */
  | 'PROJECTION.BAD_CONFIG'
  /** A live projector holds the schema: an in-place rebuild would race it. */
  | 'PROJECTION.SCHEMA_IN_USE'
  /** The rebuild did not reach the high watermarks it captured at start. */
  | 'PROJECTION.REBUILD_INCOMPLETE'
  /** The topic's id differs from the one stored with the checkpoint: the topic was deleted and re-created (docs/guarantees.md §6). */
  | 'PROJECTION.TOPIC_RECREATED'
  /** A partition's high watermark is below its checkpoint: the log went backwards (re-created topic, unclean leader election). */
  | 'PROJECTION.OFFSET_REGRESSED'
  /** A partition's log start offset is beyond its checkpoint: records never applied were deleted (retention, truncation). */
  | 'PROJECTION.LOG_TRUNCATED'
  /** The resume command found no open incident matching what it was asked to resume. */
  | 'PROJECTION.NO_INCIDENT'
>;

/**
 * Error of the read side.
 * @property code stable code, see {@link ProjectionErrorCode}
 * @property details structured context (event id, offset, bet id…) for logs
 */
export class ProjectionError extends Error {
  constructor(
    public readonly code: ProjectionErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(`${code}: ${message}`);
    this.name = 'ProjectionError';
  }
}
