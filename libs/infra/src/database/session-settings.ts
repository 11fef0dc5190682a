import type { ClientConfig, PoolConfig } from 'pg';
import { isPlainPostgresUrl } from '@ledger/config';
import { pgConnectionOptions } from './host-selection';

/**
 * Database hygiene of every connection the ledger opens (docs/architecture.md §5): the one place
 * that turns the typed settings (`DB_STATEMENT_TIMEOUT_MS`, `DB_MIGRATIONS_STATEMENT_TIMEOUT_MS`,
 * `DB_IDLE_IN_TRANSACTION_TIMEOUT_MS`, `DB_CONNECT_TIMEOUT_MS`, `DB_KEEPALIVE_IDLE_MS` of
 * `WithDatabase` in `@ledger/config`) into `pg` options. Every TypeORM DataSource (API, projector,
 * migrations, rebuild) and every raw `pg` Client (relay and analytics outbox publishers, anchor
 * publisher, verify) is built through {@link pgClientConfig} or {@link pgPoolConfig}.
 *
 * What is set on each session:
 * - `statement_timeout` and `idle_in_transaction_session_timeout` as startup parameters (server
 *   side: `SHOW statement_timeout` shows them);
 * - `tcp_keepalives_idle` / `_interval` / `_count` on the server's side and keepalive on the client's
 *   socket;
 * - `connectionTimeoutMillis`: the connect timeout and, for a pool, the wait for a free connection.
 *
 * `idle_session_timeout` is deliberately not set: the relay leader's session sits idle (outside any
 * transaction) while it holds its session-level advisory lock, and must not be ended for that.
 */
export interface DatabaseSessionSettings {
  /** `statement_timeout`, ms; 0 = none. */
  readonly statementTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`, ms; 0 = none. */
  readonly idleInTransactionTimeoutMs: number;
  /** Connect timeout and pool acquire timeout, ms. */
  readonly connectTimeoutMs: number;
  /** TCP keepalive idle before the first probe, ms (client socket; server side rounded up to seconds). */
  readonly keepAliveIdleMs: number;
}

/** Which connection: a service's (`DB_STATEMENT_TIMEOUT_MS`) or the owner's for migrations and rebuilds (`DB_MIGRATIONS_STATEMENT_TIMEOUT_MS`). */
export type DatabaseSessionKind = 'service' | 'migrations';

/** The settings' variables as the configuration schemas hold them (`WithDatabase` of `@ledger/config`). */
export interface DatabaseSessionEnv {
  readonly DB_STATEMENT_TIMEOUT_MS: number;
  readonly DB_MIGRATIONS_STATEMENT_TIMEOUT_MS: number;
  readonly DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  readonly DB_CONNECT_TIMEOUT_MS: number;
  readonly DB_KEEPALIVE_IDLE_MS: number;
}

/** The schema defaults (the same numbers as `WithDatabase`; a unit spec checks they agree). */
export const DEFAULT_DATABASE_SESSION_ENV: DatabaseSessionEnv = {
  DB_STATEMENT_TIMEOUT_MS: 30_000,
  DB_MIGRATIONS_STATEMENT_TIMEOUT_MS: 600_000,
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 60_000,
  DB_CONNECT_TIMEOUT_MS: 10_000,
  DB_KEEPALIVE_IDLE_MS: 10_000,
};

/** Unanswered server-side keepalive probes before PostgreSQL drops the connection. */
const KEEPALIVE_COUNT = 3;

/**
 * The session settings of one kind of connection from a validated configuration.
 * @param env any configuration with `WithDatabase`'s variables (a partial one falls back to the defaults)
 */
export function databaseSessionSettings(env: Partial<DatabaseSessionEnv> = {}, kind: DatabaseSessionKind = 'service'): DatabaseSessionSettings {
  const e = { ...DEFAULT_DATABASE_SESSION_ENV, ...definedOnly(env) };
  return {
    statementTimeoutMs: kind === 'migrations' ? e.DB_MIGRATIONS_STATEMENT_TIMEOUT_MS : e.DB_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    keepAliveIdleMs: e.DB_KEEPALIVE_IDLE_MS,
  };
}

let processDefaults: { service: DatabaseSessionSettings; migrations: DatabaseSessionSettings } = {
  service: databaseSessionSettings({}, 'service'),
  migrations: databaseSessionSettings({}, 'migrations'),
};

/**
 * Sets the settings a connection gets when its creator passes none: each process's `main` calls it
 * once with its validated configuration, so connections made deep inside a library (an outbox
 * publisher, the anchor publisher) follow the process's configuration too. Until it is called,
 * the schema defaults apply: no connection is ever without timeouts.
 */
export function configureDatabaseSessions(env: Partial<DatabaseSessionEnv>): void {
  processDefaults = { service: databaseSessionSettings(env, 'service'), migrations: databaseSessionSettings(env, 'migrations') };
}

/** The settings of `kind` in force in this process (see {@link configureDatabaseSessions}). */
export function currentDatabaseSessionSettings(kind: DatabaseSessionKind = 'service'): DatabaseSessionSettings {
  return processDefaults[kind];
}

/**
 * Options of one raw `pg` Client with the session settings.
 * @param connectionString `postgres://user:pass@host:port/db`, or with several hosts and
 *   `target_session_attrs` (`postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`):
 *   then each connection goes to the first host that gives such a session (`./host-selection.ts`;
 *   docs/operations.md, "A primary with a synchronous standby")
 * @param applicationName `application_name` (shown in `pg_stat_activity`)
 * @param settings @default the process's ({@link currentDatabaseSessionSettings})
 * @throws PostgresUrlError when a URL with several hosts is malformed
 */
export function pgClientConfig(connectionString: string, applicationName: string, settings: DatabaseSessionSettings = currentDatabaseSessionSettings()): ClientConfig {
  const keepIdleS = Math.max(1, Math.ceil(settings.keepAliveIdleMs / 1000));
  const keepIntervalS = Math.max(1, Math.ceil(keepIdleS / 2));
  return {
    // a multi-host URL also gets the `stream` that chooses the host (host-selection.ts)
    ...pgConnectionOptions(connectionString, settings.connectTimeoutMs),
    application_name: applicationName,
    statement_timeout: settings.statementTimeoutMs,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: settings.keepAliveIdleMs,
    // the server's side of the same socket (ignored by PostgreSQL on Unix-domain sockets)
    options: `-c tcp_keepalives_idle=${keepIdleS} -c tcp_keepalives_interval=${keepIntervalS} -c tcp_keepalives_count=${KEEPALIVE_COUNT}`,
  };
}

/**
 * The pool options a TypeORM DataSource passes to `pg` (its `extra`), with the session settings;
 * `connectionTimeoutMillis` is then also the longest wait for a free connection of a full pool.
 * The application name stays TypeORM's own option, and so does the connection string of one
 * server. A URL with several hosts or `target_session_attrs` (docs/operations.md, "A primary with
 * a synchronous standby") puts its own `connectionString` (the first host's, which `pg` can read)
 * and the `stream` that chooses the host for every new connection of the pool into the options:
 * TypeORM lets `extra` override its own.
 * @param max pool size
 * @param settings @default the process's ({@link currentDatabaseSessionSettings})
 * @param connectionString the pool's URL (the DataSource's `url`) @default none (TypeORM's own, one server)
 * @throws PostgresUrlError when `connectionString` is not a PostgreSQL URL
 */
export function pgPoolConfig(max: number, settings: DatabaseSessionSettings = currentDatabaseSessionSettings(), connectionString?: string): PoolConfig {
  const { connectionString: c, application_name: _a, ...rest } = pgClientConfig(connectionString ?? '', '', settings);
  return { ...rest, ...(connectionString && !isPlainPostgresUrl(connectionString) ? { connectionString: c } : {}), max };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
