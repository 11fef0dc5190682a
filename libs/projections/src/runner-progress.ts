import { catalogueCounter, catalogueHistogram } from '@ledger/metrics';
import type { ApplyBatchResult } from './applier';

/** Counters of a runner, cumulative since start. */
export interface RunnerProgress {
  readonly applied: number;
  readonly skippedBelowCheckpoint: number;
  readonly skippedDuplicates: number;
  /** Records refused and kept in quarantine (see `record-verification.ts`). */
  readonly quarantined: number;
  readonly transactions: number;
  /** partition → next offset committed to the database by this runner. */
  readonly positions: ReadonlyMap<number, bigint>;
}

/**
 * What a `ProjectionRunner` has done since start: its counters, the next offset it committed
 * per partition, and the metrics of each committed transaction (docs/architecture.md §8); in
 * rebuild mode, whether the partitions reached the offsets to stop at.
 */
export class ProgressCounters {
  private readonly counters = { applied: 0, skippedBelowCheckpoint: 0, skippedDuplicates: 0, quarantined: 0, transactions: 0 };
  private readonly positions = new Map<number, bigint>();

  /** Counters so far (a copy). */
  snapshot(): RunnerProgress {
    return { ...this.counters, positions: new Map(this.positions) };
  }

  /**
   * Counts a committed transaction and records its metrics: one observation of its duration, the
   * events it applied, the records it quarantined by reason. Its position is {@link advance}d apart.
   * @param applySeconds how long the transaction took, in seconds
   */
  committed(result: ApplyBatchResult, applySeconds: number): void {
    this.counters.transactions++;
    this.counters.applied += result.applied;
    this.counters.skippedBelowCheckpoint += result.skippedBelowCheckpoint;
    this.counters.skippedDuplicates += result.skippedDuplicates;
    this.counters.quarantined += result.quarantined;
    // docs/architecture.md §8: one observation per committed transaction
    catalogueHistogram('projectorApplyDuration').observe(applySeconds);
    if (result.applied > 0) catalogueCounter('projectorApplied').inc(result.applied);
    for (const [reason, n] of result.quarantinedByReason ?? []) catalogueCounter('projectorQuarantined').inc({ reason }, n);
  }

  /** Moves a partition's position to `nextOffset` when that is further (never back). */
  advance(partition: number, nextOffset: bigint): void {
    if (nextOffset > (this.positions.get(partition) ?? -1n)) this.positions.set(partition, nextOffset);
  }

  /**
   * Rebuild mode: whether a partition reached its offset to stop at (committed, or fetched up to
   * it: the records in between are not data), then counted as at that offset; and whether every
   * partition of `stopAt` has reached its own.
   * @param fetchedUpTo the offset after the partition's last fetched record
   */
  reachedStop(stopAt: ReadonlyMap<number, bigint>, partition: number, fetchedUpTo: bigint): { readonly partition: boolean; readonly all: boolean } {
    const target = stopAt.get(partition)!;
    const reached = (this.positions.get(partition) ?? 0n) >= target || fetchedUpTo >= target;
    if (!reached) return { partition: false, all: false };
    this.advance(partition, target);
    return { partition: true, all: [...stopAt].every(([p, o]) => o <= 0n || (this.positions.get(p) ?? 0n) >= o) };
  }
}
