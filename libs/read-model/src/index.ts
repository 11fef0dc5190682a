/**
 * The read side's queries (docs/architecture.md §7): the read models of the projections' schema
 * (`PROJECTIONS_SCHEMA`, `read` by default) as one object, {@link ReadModel}, grouped per read model
 * (audit, shoe state, outcomes, settlements, reconciliation, roads) with the projection engine's
 * bookkeeping (`health`), and the typed SQL boundary ({@link rows}, {@link first}, {@link exec}) every
 * query goes through. Nothing outside this library names a table of that schema in SQL
 * (`test/read-model-owner.unit.spec.ts`).
 */
export * from './sql';
export * from './read-model';
export * from './audit/queries';
export * from './audit/staff-queries';
export * from './shoe-state/queries';
export * from './outcomes/queries';
export * from './settlements/queries';
export * from './reconciliation/queries';
export * from './roads/queries';
export * from './health/queries';
