/**
 * One typed configuration per process (docs/architecture.md §5): the schemas (`LedgerApiEnv`,
 * `RelayEnv`, `ProjectorEnv`, `TokenToolEnv`), the decorators they are made of, and
 * {@link loadConfig}, which validates an environment against one of them at start.
 */
export * from './config-error';
export * from './env-var';
export * from './load-config';
export * from './schemas';
