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

/** The ledger event a significant event was raised by (its cause), as the raise names it. */
export interface SignificantEventCause {
  readonly eventId: string;
  /** Decimal string (bigint). */
  readonly globalPosition: string;
  readonly streamId: string;
  readonly eventType: string;
}

/**
 * A significant event raised (docs/significant-events.md): a kind of the catalogue
 * (`@ledger/significant-events`) recognised in a ledger event (its cause) by the significant-event
 * monitor of the API (role `system`). Its id is derived from (cause event id, code), so a cause
 * delivered twice raises once.
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
  /** The principal whose act caused it: the cause event's actor id (the acknowledgement must come from someone else). */
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
