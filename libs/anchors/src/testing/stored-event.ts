import type { LedgerEvent } from '@ledger/events';

/**
 * A stored ledger event for the significant-event checks' unit specs: on shoe `S1` of table `T1`,
 * stream version 9, global position 40, occurred and recorded at `at` (no skew) unless `over` says
 * otherwise. Test support only.
 * @param o.actor `[id, role]`
 */
export function storedEvent(o: { readonly id: string; readonly type: string; readonly actor: readonly [string, string]; readonly data: Record<string, unknown>; readonly at: string }, over: Partial<LedgerEvent> = {}): LedgerEvent {
  return {
    eventId: o.id,
    type: o.type,
    schemaVersion: 1,
    streamId: 'shoe-S1',
    streamVersion: 9,
    globalPosition: '40',
    tableId: 'T1',
    occurredAt: o.at,
    recordedAt: o.at,
    actor: { id: o.actor[0], role: o.actor[1] },
    correlationId: 'c',
    causationId: 'c',
    data: o.data,
    ...over,
  } as unknown as LedgerEvent;
}
