import { Logger } from '@nestjs/common';
import { significantEventIdFor, significantEventIdOf } from '@ledger/anchors';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, DuplicateEventError, type PgEventStore } from '@ledger/event-store';
import { LEDGER_WIDE_TABLE_ID, significantStreamId, type LedgerEvent, type SignificantCauseWindow, type SignificantEventCause, type SignificantEventEventCause, type SignificantEventRaisedData } from '@ledger/events';
import { significantEventSpec, type SignificantEventCode, type SignificantEventDraft } from '@ledger/significant-events';
import { significantMetrics } from './significant-metrics';

const logger = new Logger('SignificantEventRaise');

/** The actor of every raise: the API's significant-event monitor (role `system`). */
export const MONITOR_ACTOR = { id: 'significant-event-monitor', role: 'system' } as const;

/** The data of the raise of `draft` caused by `cause` (its dealer: the shoe's when the cause happened, or null). */
export function raiseData(cause: LedgerEvent, draft: SignificantEventDraft, dealerId: string | null): SignificantEventRaisedData {
  const shoeId = cause.streamId.startsWith('shoe-') ? cause.streamId.slice('shoe-'.length) : null;
  return {
    significantEventId: significantEventIdOf(cause.eventId, draft.code, draft.scopeKey),
    code: draft.code,
    severity: draft.severity,
    cause: { eventId: cause.eventId, globalPosition: cause.globalPosition, streamId: cause.streamId, eventType: cause.type },
    ...(cause.tableId !== LEDGER_WIDE_TABLE_ID ? { tableId: cause.tableId } : {}),
    ...(shoeId ? { shoeId } : {}),
    ...(draft.roundId ? { roundId: draft.roundId } : {}),
    ...(dealerId ? { dealerId } : {}),
    actor: cause.actor.id,
    details: draft.details,
  };
}

/**
 * The data of the one raise of a device's skewed facts in `window` (docs/significant-events.md,
 * "Floods are bounded"): its first fact `first` as the cause, with the window and how many it stands
 * for; the id from (code, device, window).
 */
export function windowedRaiseData(first: LedgerEvent, draft: SignificantEventDraft, dealerId: string | null, window: SignificantCauseWindow): SignificantEventRaisedData {
  const one = raiseData(first, draft, dealerId);
  const cause: SignificantEventEventCause = { ...(one.cause as SignificantEventEventCause), kind: 'event', window };
  return { ...one, significantEventId: significantEventIdFor(draft.code, cause), cause, details: { ...one.details, count: String(window.count), windowStart: window.start, windowSeconds: String(window.seconds) } };
}

/**
 * Appends the raise `data` (caused by `cause`) through the event store's one append: stream
 * `significant-<id>` at version 1, table id the cause's, actor {@link MONITOR_ACTOR}, correlation
 * the cause's, causation the cause's event id.
 * @returns true when appended, false when it was raised before (the stream exists or the id is taken)
 */
export async function appendRaise(store: PgEventStore, cause: LedgerEvent, data: SignificantEventRaisedData): Promise<boolean> {
  return appendRaiseData(store, data, { tableId: cause.tableId, correlationId: cause.correlationId, causationId: cause.eventId });
}

/** What a raise whose cause is not a ledger event carries besides its cause (docs/significant-events.md, "Causes"). */
export interface NonEventRaise {
  readonly code: SignificantEventCode;
  readonly cause: SignificantEventCause;
  /** The refusal's actor id, else the raiser's name (`projector`, `verifier`, `rate-limits`). */
  readonly actor: string;
  readonly tableId?: string | null;
  /** Small facts as strings. */
  readonly details: Readonly<Record<string, string>>;
}

/** The data of a raise whose cause is not a ledger event, its id from the cause's stable key. */
export function nonEventRaiseData(r: NonEventRaise): SignificantEventRaisedData {
  return {
    significantEventId: significantEventIdFor(r.code, r.cause),
    code: r.code,
    severity: significantEventSpec(r.code).severity,
    cause: r.cause,
    ...(r.tableId ? { tableId: r.tableId } : {}),
    actor: r.actor,
    details: r.details,
  };
}

/**
 * Appends a raise through the event store's one append (stream `significant-<id>` at version 1,
 * actor {@link MONITOR_ACTOR}); `meta.tableId` null: ledger-wide (`*`); causation, when none, the correlation.
 * A version conflict or a taken event id is "raised before" only when version 1 of the stream is
 * this raise (a `SignificantEventRaised` of the same id and code); anything else there (a stream
 * squatted before the database refused it, or the id taken by another event) is logged at error and
 * counted in `ledger_significant_raise_conflicts_total{code}` (docs/significant-events.md, "What the
 * database refuses"), and not raised.
 * @returns true when appended, false when it was raised before or could not be (see above)
 */
export async function appendRaiseData(store: PgEventStore, data: SignificantEventRaisedData, meta: { readonly tableId?: string | null; readonly correlationId?: string; readonly causationId?: string }): Promise<boolean> {
  const correlationId = meta.correlationId ?? randomUUID();
  const streamId = significantStreamId(data.significantEventId);
  try {
    const r = await store.append({
      streamId,
      tableId: meta.tableId ?? LEDGER_WIDE_TABLE_ID,
      expectedVersion: 0,
      events: [{ eventId: data.significantEventId, type: 'SignificantEventRaised', data }],
      metadata: { actor: MONITOR_ACTOR, correlationId, causationId: meta.causationId ?? correlationId },
    });
    // every id recorded already with the same content: raised before (a redelivery)
    return r.outcome === 'APPENDED';
  } catch (err) {
    if (!(err instanceof ConcurrencyError || err instanceof DuplicateEventError)) throw err;
    const [first] = await store.readStream(streamId, 1, 1);
    if (isSameRaise(first, data)) return false;
    significantMetrics.raiseConflicts.inc({ code: data.code });
    logger.error(
      `significant event ${data.significantEventId} (${data.code}) NOT raised: ${first ? `version 1 of ${streamId} is a ${first.type} (event ${first.eventId}, actor ${first.actor.role} ${first.actor.id}), not this raise` : `its id is taken by another event (${err.message})`}`,
    );
    return false;
  }
}

/** Whether `e` (version 1 of a significant stream, if any) is the raise `data`: a `SignificantEventRaised` of the same id and code. */
function isSameRaise(e: LedgerEvent | undefined, data: SignificantEventRaisedData): boolean {
  if (e?.type !== 'SignificantEventRaised') return false;
  const d = (e as LedgerEvent<'SignificantEventRaised'>).data;
  return d.significantEventId === data.significantEventId && d.code === data.code;
}
