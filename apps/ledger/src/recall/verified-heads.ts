import { Injectable } from '@nestjs/common';
import type { IncrementalChainVerification, PgEventStore, VerifiedHead } from '@ledger/event-store';
import { ByteLru } from '../kernel/byte-lru';

/** Streams whose verified head this process remembers (~200 B each: the LRU holds at most ~2 MB). */
const MAX_STREAMS = 10_000;
/** Estimated bytes of one remembered head: the stream id, a 64-hex hash, a version, the map entry. */
const HEAD_BYTES = 200;

/**
 * The last verified head of each shoe stream recall has checked (docs/guarantees.md §8, "What recall
 * proves"): the version and hash a successful chain verification ended on. Recall verifies from
 * there ({@link PgEventStore.verifyStreamSince}): it proves the stored event at that version still
 * carries that hash, then re-hashes only the events after it, so its cost follows the events
 * appended since the last recall, not the shoe's length.
 *
 * Kept in this process's memory only, where the database login cannot reach it: a head is
 * remembered only from a verification that found no problem, and that verification itself started
 * from genesis or from a head remembered the same way. Forgotten on a failed verification, on
 * eviction (least recently used beyond {@link MAX_STREAMS}) and on restart: the next recall of the
 * stream then verifies it whole.
 */
@Injectable()
export class VerifiedHeads {
  private readonly heads = new ByteLru<VerifiedHead>(MAX_STREAMS * HEAD_BYTES, MAX_STREAMS);

  /**
   * Verifies `streamId` from its remembered head (the whole stream when none), then remembers the
   * new head when the chain is sound, or forgets the old one when it is not.
   */
  async verify(store: PgEventStore, streamId: string): Promise<IncrementalChainVerification> {
    const result = await store.verifyStreamSince(streamId, this.heads.get(streamId) ?? null);
    if (result.ok) this.heads.set(streamId, result.head, HEAD_BYTES);
    else this.heads.delete(streamId);
    return result;
  }
}
