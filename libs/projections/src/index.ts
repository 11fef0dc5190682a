/**
 * The projector engine (docs/architecture.md §7): applies the ledger's events to the projections it
 * is handed (the read model's, `@ledger/read-model`) in PostgreSQL (schema `read`), through a Kafka
 * consumer with exactly-once effect, and rebuilds them from the topic. It knows no projection.
 *
 * Data flow: Kafka `baccarat.ledger.events.v1` → {@link ProjectionRunner} (consumer group
 * `ledger-projector`) → {@link ProjectionApplier} (one transaction per batch: every projection +
 * the checkpoint) → tables `read.*`. {@link rebuildProjections} replays the topic into an empty
 * schema; {@link projectionChecksums} proves two schemas hold the same state.
 */
export * from './errors';
export * from './logger';
export * from './gaming-day';
export * from './rational';
export * from './schema-name';
export * from './event-record';
export * from './record-verification';
export * from './quarantine';
export * from './projection-tx';
export { FoldedRow } from './row-fold';
export * from './projection';
export * from './projection-set';
export * from './migrations';
export * from './change-notice';
export * from './applier';
export * from './runner';
export * from './incidents';
export * from './resume';
export * from './checksums';
export * from './rebuild';
export * from './scoped-rebuild';
export * from './data-source';
export * from './config';
