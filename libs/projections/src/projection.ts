import type { LedgerEvent } from '@ledger/events';
import type { ProjectionTx } from './projection-tx';

/**
 * A projection's name, unique in its set (also its key in `projectionChecksums`). The engine knows no
 * projection: the read model's (`@ledger/read-model`, `ALL_PROJECTIONS`) are handed to it.
 */
export type ProjectionName = string;

/** A table a projection owns, as the checksum reads it. */
export interface ProjectionTable {
  readonly name: string;
  /** Deterministic total order of its rows (a unique key). */
  readonly orderBy: string;
  /** Columns left out of the checksum (wall-clock times); projection tables have none today. */
  readonly excludeColumns?: readonly string[];
  /**
   * How a scoped rebuild (`scoped-rebuild.ts`) selects this table's rows of one gaming table and
   * of one gaming day (`scopedChecksums`). A table without the predicate of a requested scope is
   * not compared under it (a shoe's row belongs to no single gaming day). @default none
   */
  readonly scope?: ProjectionTableScope;
  /**
   * Secondary indexes of the table a replay keeps while it loads (`rebuild-indexes.ts` drops every
   * other one and creates it after the load): those the projections' statements look rows up by
   * during apply or at commit (e.g. a shoe's rounds), which would otherwise scan the table. @default none
   */
  readonly keptInRebuild?: readonly string[];
}

/**
 * SQL condition on a row of the table (its columns unqualified) true exactly for the rows in scope.
 * @param param the placeholder of the scope's value (a table id as `text`, a gaming day as `date`, e.g. `$2::date`)
 * @param t the qualified name of a table of the same schema (for a sub-select on another table)
 */
export type ScopePredicate = (param: string, t: (table: string) => string) => string;

/** The scope predicates of a {@link ProjectionTable}. */
export interface ProjectionTableScope {
  /** The rows of one gaming table (e.g. `table_id = $1`). */
  readonly tableId?: ScopePredicate;
  /** The rows of the rounds of one gaming day (the round's gaming day, `gamingDay` of gaming-day.ts). */
  readonly gamingDay?: ScopePredicate;
  /** Tables of OTHER projections the predicates read: a scoped rebuild replays their projections too. @default none */
  readonly uses?: readonly string[];
}

/**
 * A projection: folds ledger events into its tables with SQL, inside the transaction it is given.
 * "Pure-ish": the only effect is SQL through `tx`; no clock, no randomness, no I/O of its own, so
 * replaying the same events gives the same rows (docs/guarantees.md §7).
 *
 * Projections do not depend on the order they run in (docs/architecture.md §7). For each event the
 * applier runs every projection's {@link prepare}, then every projection's {@link apply}:
 * - `prepare` may read the projection's own tables and the tables it declares in {@link reads}
 *   (other projections'), and sees the state after the previous event, whatever the order;
 * - `apply` reads and writes the projection's OWN tables only (what it needs of the event it takes
 *   from the event, from its own rows, or from what `prepare` returned);
 * - work queued for commit ({@link ProjectionTx.beforeCommit}) may read the declared tables too:
 *   it runs after every event of the batch.
 * The applier checks at start that every declared table belongs to a projection of its list, and
 * {@link ProjectionTx.t} refuses, while a projection runs, any table outside these rules.
 *
 * @typeParam P what `prepare` hands to `apply` (`undefined` without a `prepare`)
 */
export interface Projection<P = unknown> {
  readonly name: ProjectionName;
  readonly tables: readonly ProjectionTable[];
  /** Tables of other projections this one reads (in `prepare` and at commit). @default none */
  readonly reads?: readonly string[];
  /**
   * Once per transaction, before its first event: holds the rows its events will change or read
   * (`tx.preload(table, keyColumn, keys)`: one statement per table instead of one per row, the
   * batch folded in memory; docs/architecture.md §7). Reads only, under the rules of `prepare`
   * (own tables and declared reads). Optional: without it, rows are read at first use.
   * @param events the batch's verified events, in order (some may be skipped later as duplicates)
   */
  preload?(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void>;
  /**
   * Reads what `apply` will need of the state before `event` (another projection's rows, or its own).
   * Must not write. Throws ProjectionError when the event contradicts the state.
   */
  prepare?(event: LedgerEvent, tx: ProjectionTx): Promise<P>;
  /** Applies one event (already upcast). Throws ProjectionError when the event contradicts the state. */
  apply(event: LedgerEvent, tx: ProjectionTx, prepared: P): Promise<void>;
}

/**
 * Work the applier does for each event it applies, after every projection has applied it, in the
 * same transaction (the analytics outbox of `@ledger/read-model`): it commits or rolls back with
 * the projections and the checkpoint. A replay (`rebuildProjections`) runs none, so it emits nothing.
 */
export interface AppliedEventEffect {
  /** For the set check's message. */
  readonly name: string;
  /** Tables of the projections it reads (checked at construction like a projection's {@link Projection.reads}). */
  readonly reads: readonly string[];
  /** Runs once per applied event, after every projection's `apply`; writes through `tx` (e.g. `tx.append`). */
  apply(event: LedgerEvent, tx: ProjectionTx): Promise<unknown>;
}
