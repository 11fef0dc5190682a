import { significantEventIdOf } from '@ledger/anchors';
import { ConcurrencyError, DuplicateEventError, type PgEventStore } from '@ledger/event-store';
import { LEDGER_WIDE_TABLE_ID, significantStreamId, type LedgerEvent, type SignificantEventRaisedData } from '@ledger/events';
import type { SignificantEventDraft } from '@ledger/significant-events';

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
 * Appends the raise `data` (caused by `cause`) through the event store's one append: stream
 * `significant-<id>` at version 1, table id the cause's, actor {@link MONITOR_ACTOR}, correlation
 * the cause's, causation the cause's event id.
 * @returns true when appended, false when it was raised before (the stream exists or the id is taken)
 */
export async function appendRaise(store: PgEventStore, cause: LedgerEvent, data: SignificantEventRaisedData): Promise<boolean> {
  try {
    const r = await store.append({
      streamId: significantStreamId(data.significantEventId),
      tableId: cause.tableId,
      expectedVersion: 0,
      events: [{ eventId: data.significantEventId, type: 'SignificantEventRaised', data }],
      metadata: { actor: MONITOR_ACTOR, correlationId: cause.correlationId, causationId: cause.eventId },
    });
    // every id recorded already with the same content: raised before (a redelivery)
    return r.outcome === 'APPENDED';
  } catch (err) {
    if (err instanceof ConcurrencyError || err instanceof DuplicateEventError) return false;
    throw err;
  }
}
