import type { LedgerEvent } from '@ledger/events';
import { computeEventHash, type HashedEnvelope } from './hash';
import type { Prepared } from './append-request';

/** An event of an append hashed on its stream's head: the envelope the store writes, with its hash. */
export type ChainedEvent = HashedEnvelope & { hash: string };

/**
 * The envelopes of `p`'s events as versions `head.version + 1…` of the stream, each hash chained to
 * the one before it (the first to `head.lastHash`, docs/guarantees.md §8). One object per event,
 * built once: an append of 10,000 events makes no second copy of them (see {@link withPositions}).
 */
export function chainEvents(p: Prepared, head: { readonly version: number; readonly lastHash: string }): ChainedEvent[] {
  let prevHash = head.lastHash;
  return p.events.map((e, i) => {
    const event: ChainedEvent = {
      eventId: e.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      streamId: p.streamId,
      streamVersion: head.version + i + 1,
      tableId: p.tableId,
      occurredAt: p.occurredAt,
      recordedAt: p.recordedAt,
      actor: p.actor,
      correlationId: p.correlationId,
      causationId: p.causationId,
      prevHash,
      data: e.data,
      hash: '',
    };
    // the hash covers the hashed fields only (hashedFields): the placeholder is not part of it
    event.hash = computeEventHash(event);
    prevHash = event.hash;
    return event;
  });
}

/**
 * The chained events as recorded: each given its global position (`positions[i]`, as text) in
 * place, so the events the append answers are the very objects {@link chainEvents} built.
 */
export function withPositions(chained: readonly ChainedEvent[], positions: readonly string[]): LedgerEvent[] {
  const recorded = chained as Array<ChainedEvent & { globalPosition?: string }>;
  for (let i = 0; i < recorded.length; i++) recorded[i].globalPosition = positions[i];
  return recorded as unknown as LedgerEvent[];
}
