import { loadConfig, MigrationCliEnv, parsePostgresUrl } from '@ledger/config';
import { chooseHost, passesOf, satisfies } from './host-selection';
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

describe('multi-host URLs (docs/operations.md, "A primary with a synchronous standby")', () => {
  const PAIR = 'postgres://ledger_app:pw@127.0.0.1:55432,127.0.0.1:55433/ledger?target_session_attrs=read-write';

  it('a one-host URL goes to pg as it is, without a stream: it connects as it always did', () => {
    expect(pgClientConfig('postgres://u:p@127.0.0.1:5432/db', 'app')).not.toHaveProperty('stream');
    expect(pgPoolConfig(2, undefined, 'postgres://u:p@127.0.0.1:5432/db')).not.toHaveProperty('connectionString');
    expect(pgPoolConfig(2, undefined, 'postgres://u:p@127.0.0.1:5432/db')).not.toHaveProperty('stream');
  });

  it('a multi-host URL gives pg its first host (which pg can read) and a stream that chooses the host', () => {
    const c = pgClientConfig(PAIR, 'app');
    expect(c.connectionString).toBe('postgres://ledger_app:pw@127.0.0.1:55432/ledger');
    expect(typeof c.stream).toBe('function');
    const pool = pgPoolConfig(3, undefined, PAIR);
    expect(pool).toMatchObject({ max: 3, connectionString: 'postgres://ledger_app:pw@127.0.0.1:55432/ledger' });
    expect(typeof pool.stream).toBe('function');
    // one host with target_session_attrs is checked too
    expect(typeof pgClientConfig('postgres://u:p@h:1/db?target_session_attrs=primary', 'app').stream).toBe('function');
  });

  it('a malformed multi-host URL is refused', () => {
    expect(() => pgClientConfig('postgres://u:p@a:1,b:x/db', 'app')).toThrow('host 2 ("b:x") has no valid port');
  });

  it('which sessions satisfy which target_session_attrs (libpq’s rules), prefer-standby in two rounds', () => {
    const primary = { inRecovery: false, readOnly: false };
    const standby = { inRecovery: true, readOnly: true };
    const readOnlyPrimary = { inRecovery: false, readOnly: true };
    const table = (['any', 'read-write', 'read-only', 'primary', 'standby'] as const).map((a) => [a, satisfies(a, primary), satisfies(a, standby), satisfies(a, readOnlyPrimary)]);
    expect(table).toEqual([
      ['any', true, true, true],
      ['read-write', true, false, false],
      ['read-only', false, true, true],
      ['primary', true, false, true],
      ['standby', false, true, false],
    ]);
    expect(passesOf('prefer-standby')).toEqual(['standby', 'any']);
    expect(passesOf('read-write')).toEqual(['read-write']);
  });

  it('no host in time: the error names every host and why it was passed over', async () => {
    const url = parsePostgresUrl(PAIR);
    await expect(chooseHost({ url, connectTimeoutMs: 0 })).rejects.toThrow(
      'no host of 127.0.0.1:55432,127.0.0.1:55433 gave a read-write session within 0 ms (127.0.0.1:55432: not asked in time; 127.0.0.1:55433: not asked in time)',
    );
    await expect(chooseHost({ url, connectTimeoutMs: 1000 }, () => true)).resolves.toBeNull();
  });
});
