/**
 * Tamper evidence anchored outside PostgreSQL (docs/guarantees.md §8, docs/architecture.md §10,
 * docs/anchors.md): signed checkpoints of the stream heads (Ed25519 over canonical JSON, a Merkle
 * root over the heads, a chain of checkpoints), their publisher in the relay process (anchor file +
 * Kafka topic), and the verifier of PostgreSQL against the checkpoints and the Kafka copy.
 */
export * from './merkle';
export * from './checkpoint';
export * from './keys';
export * from './anchor-file';
export * from './report';
export * from './anchor-log';
export * from './config';
export * from './sql';
export * from './kafka-io';
export * from './kafka-copy';
export * from './anchor-state';
export * from './anchor-publisher';
export * from './verify-ledger';
export * from './start';
export * from './report-text';
export * from './stream-anchor';
export * from './gaming-day-close';
export * from './evidence-chains';
export * from './evidence-check';
export * from './significant-check';
export * from './significant-completeness';
export * from './significant-stored';
export * from './evidence-anchor';
export * from './report-signer';
export * from './fairness-of-events';
export * from './fairness-raise';
export * from './close-fairness';
