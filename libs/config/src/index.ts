/**
 * One typed configuration per process (docs/architecture.md §5): the schemas (`LedgerApiEnv`,
 * `RelayEnv`, `ProjectorEnv`, `TokenToolEnv`, `MigrationCliEnv`, `VerifyEnv`), the decorators they are made of,
 * {@link loadConfig}, which validates an environment against one of them at start, and the database
 * roles with the URL each process logs in with (docs/architecture.md §10), and the error a process
 * refuses to start with when its database or broker does not answer ({@link StartupError}).
 */
export * from './config-error';
export * from './database-roles';
export * from './env-var';
export * from './heap';
export * from './load-config';
export * from './postgres-url';
export * from './schemas';
export * from './startup-error';
