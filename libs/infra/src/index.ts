/** Infrastructure shared by the apps: Kafka topic definitions, the leader-elected outbox publisher. */
export * from './kafka/topics';
export * from './outbox/leader-outbox-publisher';
export * from './database/roles';
export * from './database/session-settings';
export * from './database/host-selection';
export * from './health/health';
export * from './health/preflight';
export * from './health/sync-commit';
