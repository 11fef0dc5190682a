import { databaseUrlForRole, resolveDatabaseUrls } from './database-roles';
import { loadConfig } from './load-config';
import { formatPostgresUrl, hasHostList, isPlainPostgresUrl, parsePostgresUrl, PostgresUrlError, postgresUrlProblem } from './postgres-url';
import { MigrationCliEnv } from './schemas';
import { shownTarget } from './startup-error';
import { ConfigError } from './config-error';

const PAIR = 'postgres://ledger_app:pw@127.0.0.1:55432,127.0.0.1:55433/ledger?target_session_attrs=read-write';

describe('PostgreSQL URLs with several hosts (docs/operations.md, "A primary with a synchronous standby")', () => {
  it('takes libpq’s host list apart, in order, with the login, database, parameters and target_session_attrs', () => {
    expect(parsePostgresUrl(`${PAIR}&sslmode=disable`)).toEqual({
      protocol: 'postgres:',
      userInfo: 'ledger_app:pw',
      hosts: [
        { host: '127.0.0.1', port: 55432 },
        { host: '127.0.0.1', port: 55433 },
      ],
      path: '/ledger',
      query: 'sslmode=disable',
      targetSessionAttrs: 'read-write',
    });
  });

  it('a host without a port gets 5432; IPv6 in brackets; no target_session_attrs is any', () => {
    const p = parsePostgresUrl('postgresql://u@db1,[::1]:6000,db3/x');
    expect(p.hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: '::1', port: 6000 },
      { host: 'db3', port: 5432 },
    ]);
    expect(p.targetSessionAttrs).toBe('any');
    expect(formatPostgresUrl(p)).toBe('postgresql://u@db1:5432,[::1]:6000,db3:5432/x');
  });

  it.each(['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'])('accepts target_session_attrs=%s', (attrs) => {
    expect(parsePostgresUrl(`postgres://u:p@a:1,b:2/db?target_session_attrs=${attrs}`).targetSessionAttrs).toBe(attrs);
    expect(postgresUrlProblem(`postgres://u:p@a:1/db?target_session_attrs=${attrs}`)).toBeUndefined();
  });

  it.each([
    ['postgres://u:p@a:1,/db', 'host 2 ("") is empty'],
    ['postgres://u:p@a:1,b:x/db', 'host 2 ("b:x") has no valid port (1..65535)'],
    ['postgres://u:p@a:1,b:70000/db', 'host 2 ("b:70000") has no valid port (1..65535)'],
    ['postgres://u:p@a:1,b c:2/db', 'host 2 ("b c:2") is not a host name or address'],
    ['postgres://u:p@a:1,b:2/db?target_session_attrs=writable', 'target_session_attrs "writable" is not one of any, read-write, read-only, primary, standby, prefer-standby'],
    ['postgres://u:p@a:1,b:2/db?target_session_attrs=any&target_session_attrs=primary', 'target_session_attrs is given more than once'],
    ['mysql://u:p@a:1,b:2/db', 'it does not start with postgres:// or postgresql://'],
    ['postgres://u:p@a:1,b:2/db#x', 'it has a fragment (#)'],
  ])('refuses %s: %s', (url, problem) => {
    expect(() => parsePostgresUrl(url)).toThrow(PostgresUrlError);
    expect(postgresUrlProblem(url)).toBe(problem);
  });

  it('one host stays what it was: any URL the WHATWG parser reads, target_session_attrs checked when present', () => {
    expect(postgresUrlProblem('postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger')).toBeUndefined();
    expect(postgresUrlProblem('postgres:///ledger')).toBeUndefined();
    expect(postgresUrlProblem('http://127.0.0.1/ledger')).toBe('it does not start with postgres:// or postgresql://');
    expect(postgresUrlProblem('postgres://h:99999/db')).toBe('not a URL');
    expect(postgresUrlProblem('postgres://h/db?target_session_attrs=master')).toMatch(/target_session_attrs "master"/);
    expect(isPlainPostgresUrl('postgres://u:p@h:1/db?sslmode=disable')).toBe(true);
    expect(isPlainPostgresUrl('postgres://u:p@h:1/db?target_session_attrs=read-write')).toBe(false);
    expect(hasHostList('postgres://u:p,q@h:1/db')).toBe(false);
    expect(hasHostList(PAIR)).toBe(true);
  });

  it('the configuration takes a multi-host DATABASE_URL and derives the other roles’ URLs from it, same hosts', () => {
    const env = loadConfig(MigrationCliEnv, { DATABASE_URL: PAIR });
    expect(env.DATABASE_URL).toBe(PAIR);
    expect(env.MIGRATIONS_DATABASE_URL).toBe('postgres://ledger_owner:ledger_owner@127.0.0.1:55432,127.0.0.1:55433/ledger?target_session_attrs=read-write');
    expect(resolveDatabaseUrls({ DATABASE_URL: PAIR }).relay).toBe(databaseUrlForRole(PAIR, 'ledger_relay'));
    expect(databaseUrlForRole('postgres://a:b@h:1/db', 'ledger_relay')).toBe('postgres://ledger_relay:ledger_relay@h:1/db');
  });

  it('the configuration refuses a malformed multi-host URL, saying what is wrong', () => {
    let err: unknown;
    try {
      loadConfig(MigrationCliEnv, { DATABASE_URL: 'postgres://u:p@a:1,b:port/db' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      {
        variable: 'DATABASE_URL',
        message: expect.stringMatching(/^expected a postgres:\/\/ or postgresql:\/\/ URL, one host or several .*, got "postgres:\/\/u:p@a:1,b:port\/db" \(host 2 \("b:port"\) has no valid port \(1\.\.65535\)\)$/),
      },
    ]);
  });

  it('a startup error shows every host, never the login', () => {
    expect(shownTarget(PAIR)).toBe('127.0.0.1:55432,127.0.0.1:55433/ledger');
    expect(shownTarget('postgres://u:p@h:1/db')).toBe('h:1/db');
  });
});
