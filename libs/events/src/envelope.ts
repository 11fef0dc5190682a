/**
 * The one envelope every ledger event travels in (docs/guarantees.md §5, §8, §9;
 * docs/architecture.md §9). Events are plain data: `type` is a string literal, never a class name.
 *
 * Stored in PostgreSQL (`events` table) and published unchanged, as JSON, to Kafka
 * (topic `baccarat.ledger.events.v1`, key = `tableId`).
 */

/** Roles of the actors who may cause events (docs/guarantees.md §12, docs/architecture.md §10). */
export const ROLES = ['table-device', 'betting-platform', 'pit-manager', 'auditor', 'system'] as const;
export type Role = (typeof ROLES)[number];

/** Who caused an event. `system` is the ledger itself (settlements it computes). */
export interface Actor {
  /** Stable id of the person or device (dealer id, device id, pit manager id, service name). */
  readonly id: string;
  readonly role: Role;
}

/** Attribution of a management decision (docs/domain-rules.md §6: reason, acting and approving managers). */
export interface ManagementDecision {
  /** Free-text reason, required, 3..500 characters. */
  readonly reason: string;
  /** Acting pit manager (also the envelope's actor). */
  readonly actingManagerId: string;
  /** Second, approving pit manager; differs from the acting one and from the round's dealer. */
  readonly approverId: string;
  /** `eventId` of the event this decision compensates (the result voided or corrected, the shoe voided). */
  readonly compensates: string;
  /**
   * The four-eyes decision (DecisionRequested → DecisionApproved) this compensating event carries
   * out; absent on events recorded before the four-eyes flow.
   */
  readonly decisionId?: string;
  /**
   * The evidence the requesting pit manager gave with the request (camera, timecode, video
   * segment: docs/reports.md §7), carried from the DecisionRequested; absent when none was given.
   */
  readonly evidence?: Evidence;
}

/**
 * Where the video of a table fact or of a decision's grounds is (docs/reports.md §7): at least one
 * field, each optional; patterns in `patterns.ts` (`CAMERA_ID_PATTERN`, `TIMECODE_PATTERN`,
 * `SEGMENT_REF_PATTERN`). Recorded in the event's data only when given (an event without evidence
 * has no `evidence` key, so its canonical bytes and hash are those it always had).
 */
export interface Evidence {
  /** The camera (or channel) id, 1..64 characters of `A-Z a-z 0-9 _ . : / -`. */
  readonly cameraId?: string;
  /** SMPTE timecode `HH:MM:SS:FF` (`;` before the frames for drop frame) within the recording. */
  readonly timecode?: string;
  /** The stored video segment: clip id or URI, 1..256 printable ASCII characters, no spaces. */
  readonly segmentRef?: string;
}

/**
 * An event in its envelope.
 * @typeParam T the `type` literal
 * @typeParam D the payload (`data`) shape of that type
 */
export interface EventEnvelope<T extends string = string, D = unknown> {
  /** UUID, unique across the ledger; the idempotency and de-duplication key on Kafka. */
  readonly eventId: string;
  readonly type: T;
  /** Version of the `data` shape of this `type` (upcasters lift old versions on read). */
  readonly schemaVersion: number;
  /** `shoe-<shoeId>`: one stream per shoe. */
  readonly streamId: string;
  /** 1-based position in the stream, gap-free. */
  readonly streamVersion: number;
  /** Gap-free position across all streams, assigned at commit; decimal string (bigint). */
  readonly globalPosition: string;
  /** Table id; the Kafka message key (per-table order). */
  readonly tableId: string;
  /** When it happened at the table (ISO-8601, as reported; the server's clock for decisions). */
  readonly occurredAt: string;
  /** When the ledger recorded it (ISO-8601, server clock). */
  readonly recordedAt: string;
  readonly actor: Actor;
  /** Groups every event caused by one request (UUID or caller-supplied id). */
  readonly correlationId: string;
  /** `eventId` of the event that caused this one, or the request id for events caused by a command. */
  readonly causationId: string;
  /** SHA-256 (hex) of the previous event of the stream; 64 zeros for the first. */
  readonly prevHash: string;
  /** SHA-256 (hex) of `prevHash` + the canonical JSON of this event (without `hash`, `globalPosition`). */
  readonly hash: string;
  readonly data: D;
}

/** Hash of "no previous event": the start of every stream's chain. */
export const GENESIS_HASH = '0'.repeat(64);
