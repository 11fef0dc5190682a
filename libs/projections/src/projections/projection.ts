import type { LedgerEvent } from '@ledger/events';
import type { ProjectionTx } from '../projection-tx';

/** Names of the projections (also the keys of `projectionChecksums`). */
export type ProjectionName = 'audit_events' | 'shoe_state' | 'reconciliation' | 'hand_outcomes' | 'bet_settlements' | 'roads';

/** A table a projection owns, as the checksum reads it. */
export interface ProjectionTable {
  readonly name: string;
  /** Deterministic total order of its rows (a unique key). */
  readonly orderBy: string;
  /** Columns left out of the checksum (wall-clock times); projection tables have none today. */
  readonly excludeColumns?: readonly string[];
}

/**
 * A projection: folds ledger events into its tables with SQL, inside the transaction it is given.
 * "Pure-ish": the only effect of `apply` is SQL through `tx`; no clock, no randomness, no I/O of
 * its own, so replaying the same events gives the same rows (guarantee 7).
 */
export interface Projection {
  readonly name: ProjectionName;
  readonly tables: readonly ProjectionTable[];
  /** Applies one event (already upcast). Throws ProjectionError when the event contradicts the state. */
  apply(event: LedgerEvent, tx: ProjectionTx): Promise<void>;
}
