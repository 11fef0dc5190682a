/**
 * The read model (docs/architecture.md §7): one folder per read model, each with its projection
 * (folded by the projector engine, `@ledger/projections`), its tables and their row types; the
 * list of every projection the engine is handed; the read model's own migrations; the analytics
 * records derived from it.
 */
export * from './all-projections';
export * from './audit';
export * from './shoe-state';
export * from './outcomes';
export * from './settlements';
export * from './reconciliation';
export * from './roads';
export * from './analytics';
export * from './migrations';
