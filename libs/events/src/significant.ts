/**
 * The significant events as ledger facts (docs/significant-events.md, "Raised as facts"): their
 * stream and the data of `SignificantEventRaised` and `SignificantEventAcknowledged` (the kinds
 * themselves are the catalogue of `@ledger/significant-events`).
 */

/**
 * The stream of one significant event (docs/significant-events.md, "Raised as facts"):
 * `significant-<significantEventId>`. Raised at version 1 ({@link SignificantEventRaisedData}),
 * acknowledged at version 2 ({@link SignificantEventAcknowledgedData}); the stream's version check
 * makes a second acknowledgement a conflict. Its table id (and Kafka key) is the cause's.
 */
export const SIGNIFICANT_STREAM_PREFIX = 'significant-';

/** The stream id of significant event `significantEventId` (a UUID): `significant-<id>`. */
export function significantStreamId(significantEventId: string): string {
  return `${SIGNIFICANT_STREAM_PREFIX}${significantEventId}`;
}

/**
 * A window of time one raise stands for (docs/significant-events.md, "Floods are bounded"): at most
 * one raise per (code, subject, window), carrying how many causes it stands for.
 */
export interface SignificantCauseWindow {
  /** ISO-8601 start of the window, a multiple of its length since the epoch (the ledger's clock). */
  readonly start: string;
  /** Its length in seconds (`SIGNIFICANT_FLOOD_WINDOW_SECONDS`; 60 for a rate-limit storm). */
  readonly seconds: number;
  /** Whom the causes are of: a device's or caller's `role:id`, `*` for every caller. */
  readonly subject: string;
  /** How many causes the raise stands for (at least 1). */
  readonly count: number;
  /**
   * True for the raise of a window's causes after its first: the first is raised at once (count 1,
   * no `rest`), the rest when the window ends (`count` of them, named by the second). Absent otherwise.
   */
  readonly rest?: true;
}

/**
 * A ledger event as the cause (`kind` absent in raises written before the tagged causes: such a
 * raise reads and verifies as an event cause). With `window`, the raise stands for every such cause
 * of the device `window.subject` in the window (the first one named here).
 */
export interface SignificantEventEventCause {
  readonly kind?: 'event';
  readonly eventId: string;
  /** Decimal string (bigint). */
  readonly globalPosition: string;
  readonly streamId: string;
  readonly eventType: string;
  readonly window?: SignificantCauseWindow;
}

/** Refusals of the API as the cause: the first refused request of the window and how many it stands for. */
export interface SignificantEventRefusalCause {
  readonly kind: 'refusal';
  /** The refusal's code of the error table. */
  readonly errorCode: string;
  /** Its `details.reason`, when it has one. */
  readonly reason?: string;
  /** The first refused request's id (`X-Request-Id`). */
  readonly requestId: string;
  readonly actorId: string;
  readonly actorRole: string;
  readonly tableId?: string;
  readonly window: SignificantCauseWindow;
}

/** A record of the projector as the cause: a quarantined record or a projection incident (a halted partition). */
export interface SignificantEventProjectorCause {
  readonly kind: 'projector';
  readonly record: 'quarantine' | 'incident';
  /** The record's key: `topic/partition/offset@<µs quarantined>` of a quarantined record, `topic/partition@<µs halted>#<id>` of an incident. */
  readonly key: string;
  readonly consumerGroup: string;
  /** The quarantine's reason, or the incident's code. */
  readonly reason: string;
}

/** A divergence the verifier found as the cause (`GET /audit/anchors/verify`). */
export interface SignificantEventVerifierCause {
  readonly kind: 'verifier';
  /** The divergence's kind (`HEAD_MISMATCH`, `ANCHOR_FORK`, …, docs/anchors.md). */
  readonly divergence: string;
  /** Where it was found (`anchors`, `kafka`, `anchor-file`, …). */
  readonly source: string;
  /** What it concerns: `stream@version#event` or `anchor <seq>`. */
  readonly where: string;
}

/** The 429 refusals of a minute, over all callers, at or above the threshold, as the cause. */
export interface SignificantEventRateWindowCause {
  readonly kind: 'rate-limit-window';
  /** The minute (`seconds` 60, `subject` `*`); `count` is the threshold reached. */
  readonly window: SignificantCauseWindow;
  /** `RATE_LIMIT_STORM_PER_MINUTE` when raised. */
  readonly threshold: number;
}

/** What a significant event was raised by (docs/significant-events.md, "Causes"): a tagged union on `kind` (absent: an event). */
export type SignificantEventCause = SignificantEventEventCause | SignificantEventRefusalCause | SignificantEventProjectorCause | SignificantEventVerifierCause | SignificantEventRateWindowCause;

/** The kind of a cause (`event` when untagged). */
export function causeKindOf(cause: { readonly kind?: string }): string {
  return cause.kind ?? 'event';
}

/**
 * A significant event raised (docs/significant-events.md): a kind of the catalogue
 * (`@ledger/significant-events`) recognised in its cause (a ledger event, refusals of a window, a
 * projector's record, a verifier's divergence, a storm of 429s) by the API (role `system`). Its id
 * is derived from the cause's stable key and the code, so the same cause raises once.
 */
export interface SignificantEventRaisedData {
  /** UUID; also the event id of this raise and the suffix of its stream. */
  readonly significantEventId: string;
  /** Catalogue code `AREA.REASON`. */
  readonly code: string;
  /** The catalogue's severity of the code when raised: info, low, medium, high, critical. */
  readonly severity: string;
  readonly cause: SignificantEventCause;
  /** The cause's table (absent for a ledger-wide cause, table id `*`). */
  readonly tableId?: string;
  readonly shoeId?: string;
  readonly roundId?: string;
  /** The shoe's dealer when the cause happened, when known. */
  readonly dealerId?: string;
  /** The principal whose act caused it: the cause event's or refusal's actor id, else the raiser (`projector`, `verifier`, `rate-limits`); the acknowledgement must come from someone else. */
  readonly actor: string;
  /** Small facts of the cause, strings only (minor units as decimal strings, skew in ms as a decimal string). */
  readonly details: Readonly<Record<string, string>>;
}

/** A second person (pit manager or auditor, not the raise's actor) acknowledged a significant event with a reason. */
export interface SignificantEventAcknowledgedData {
  readonly significantEventId: string;
  readonly code: string;
  /** Why, 3..500 characters. */
  readonly reason: string;
  /** The acknowledging principal (token subject; also the envelope's actor). */
  readonly acknowledgedBy: string;
  readonly role: 'pit-manager' | 'auditor';
}
