/**
 * The write side's persistence on PostgreSQL: the event store (append with optimistic concurrency,
 * idempotency, hash chain, gap-free positions, transactional outbox), its migrations, the outbox relay
 * to Kafka, and the chain verifier. Plain classes: the Nest app wraps them.
 *
 * Importing `data-source` also builds (never connects) the TypeORM CLI's default DataSource.
 */
export * from './constants';
export * from './errors';
export * from './logger';
export * from './hash';
export * from './record-signature';
export * from './rows';
export { createDataSource, runMigrations, MIGRATION_LOCK_KEY, type DataSourceOptions } from './data-source';
export * from './migrations';
export * from './event-store';
export type { OpenSignificantCount, SignificantChange, SignificantChangesPage, SignificantEventLedgerReads, StoredSignificantEvent } from './significant-reads';
export * from './outbox-relay';
export * from './relay-record';
export * from './republish';
export type { IncrementalChainVerification, VerifiedHead } from './verification';
export { checkGlobalPositions, type PositionProblem, type PositionProblemKind, type RowQuery } from './position-check';
export { eventDataProblem } from './event-data-validation';
