import { loadConfig, MigrationCliEnv } from '@ledger/config';
import { configureDatabaseSessions, currentDatabaseSessionSettings, databaseSessionSettings, DEFAULT_DATABASE_SESSION_ENV, pgClientConfig, pgPoolConfig } from './session-settings';

describe('database session settings (docs/architecture.md §5)', () => {
  afterEach(() => configureDatabaseSessions({}));

  it('the defaults are the configuration schema defaults', () => {
    const env = loadConfig(MigrationCliEnv, {});
    const fromSchema = Object.fromEntries(Object.keys(DEFAULT_DATABASE_SESSION_ENV).map((k) => [k, (env as unknown as Record<string, number>)[k]]));
    expect(fromSchema).toEqual(DEFAULT_DATABASE_SESSION_ENV);
  });

  it('a raw client gets statement, idle-in-transaction and connect timeouts and keepalives on both ends', () => {
    const c = pgClientConfig('postgres://u:p@127.0.0.1:5432/db', 'app', databaseSessionSettings({ DB_STATEMENT_TIMEOUT_MS: 1500, DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 5000, DB_CONNECT_TIMEOUT_MS: 2000, DB_KEEPALIVE_IDLE_MS: 7000 }));
    expect(c).toEqual({
      connectionString: 'postgres://u:p@127.0.0.1:5432/db',
      application_name: 'app',
      statement_timeout: 1500,
      idle_in_transaction_session_timeout: 5000,
      connectionTimeoutMillis: 2000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 7000,
      options: '-c tcp_keepalives_idle=7 -c tcp_keepalives_interval=4 -c tcp_keepalives_count=3',
    });
  });

  it('migrations get their own statement timeout; a pool gets the same options and its size', () => {
    expect(databaseSessionSettings({}, 'migrations').statementTimeoutMs).toBe(DEFAULT_DATABASE_SESSION_ENV.DB_MIGRATIONS_STATEMENT_TIMEOUT_MS);
    const pool = pgPoolConfig(4);
    expect(pool).toMatchObject({ max: 4, statement_timeout: 30_000, connectionTimeoutMillis: 10_000, keepAlive: true });
    expect(pool).not.toHaveProperty('connectionString');
  });

  it('a connection made without settings follows the process configuration', () => {
    configureDatabaseSessions({ DB_STATEMENT_TIMEOUT_MS: 1234 });
    expect(currentDatabaseSessionSettings().statementTimeoutMs).toBe(1234);
    expect(pgClientConfig('postgres://x', 'a').statement_timeout).toBe(1234);
    expect(currentDatabaseSessionSettings('migrations').statementTimeoutMs).toBe(600_000);
  });
});
