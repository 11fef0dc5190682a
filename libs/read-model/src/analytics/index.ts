/**
 * Analytics topics (docs/architecture.md §7): records derived from the ledger for downstream consumers,
 * written to an outbox in the projector's transaction and published with CloudEvents headers.
 * Documented in `docs/asyncapi/asyncapi.yaml`.
 */
export * from './analytics-records';
export * from './analytics-outbox';
export * from './memory-state';
export * from './analytics-publisher';
export * from './analytics-config';
export * from './analytics-references';
