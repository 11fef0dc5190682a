/**
 * The read model (docs/architecture.md §7): one folder per read model (audit, shoe state, outcomes,
 * settlements, reconciliation, roads, significant events), each with its projection (folded by the projector engine,
 * `@ledger/projections`), its tables and their row types, and its typed queries, live and as-of side
 * by side; the list of every projection the engine is handed; the read model's own migrations; the
 * analytics records derived from it. The API reads it as one object, {@link ReadModel}, with the
 * engine's bookkeeping (`health`), through the typed SQL boundary ({@link rows}, {@link first},
 * {@link exec}). Nothing outside this library names a table of the projections' schema in SQL
 * (`test/read-model-owner.unit.spec.ts`).
 */
export * from './all-projections';
export * from './audit';
export * from './shoe-state';
export * from './outcomes';
export * from './settlements';
export * from './reconciliation';
export * from './roads';
export * from './significant-events';
export * from './analytics';
export * from './migrations';
export * from './sql';
export * from './read-model';
export * from './audit/queries';
export * from './audit/staff-queries';
export * from './shoe-state/queries';
export * from './outcomes/queries';
export * from './settlements/queries';
export * from './reconciliation/queries';
export * from './roads/queries';
export * from './significant-events/queries';
export * from './health/queries';
