import { loadConfig } from '../load-config';
import { LedgerApiEnv } from './ledger-api';
import { isTrustProxy, trustProxyValue } from './limits';

describe('TRUST_PROXY (docs/architecture.md §10)', () => {
  it('takes a hop count, or a comma list of addresses, CIDR blocks and Express range names', () => {
    expect(trustProxyValue('1')).toBe(1);
    expect(trustProxyValue('0')).toBe(0);
    expect(trustProxyValue('loopback')).toEqual(['loopback']);
    expect(trustProxyValue(' 10.0.0.0/8, loopback ,fd00::/8,192.168.1.7 ')).toEqual(['10.0.0.0/8', 'loopback', 'fd00::/8', '192.168.1.7']);
  });

  it('refuses anything else: true, words, bad addresses and prefixes, an empty list', () => {
    for (const bad of ['true', 'all', '10.0.0.0/33', 'fd00::/129', '10.0.0', '10.0.0.1/8/1', ',', '', '1000', '-1', '10.0.0.0/x']) expect([bad, isTrustProxy(bad)]).toEqual([bad, false]);
  });

  it('is validated with the configuration: a bad value or a non-redis URL is named, nothing partial', () => {
    expect(() => loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', LIMITS_REDIS_URL: 'http://cache:6379' })).toThrow(/LIMITS_REDIS_URL/);
    expect(() => loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', LIMITS_REDIS_PREFIX: 'has space' })).toThrow(/LIMITS_REDIS_PREFIX/);
    const ok = loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', TRUST_PROXY: '10.0.0.0/8,loopback', LIMITS_REDIS_URL: 'redis://:pw@cache:6379/1' });
    expect(ok).toMatchObject({ TRUST_PROXY: '10.0.0.0/8,loopback', LIMITS_REDIS_URL: 'redis://:pw@cache:6379/1', LIMITS_REDIS_PREFIX: 'ledger:limits:', LIMITS_LEASE_MS: 30_000 });
    expect(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development' })).toMatchObject({ TRUST_PROXY: undefined, LIMITS_REDIS_URL: undefined });
  });

  it('never echoes the Redis URL (it may hold a password)', () => {
    let message = '';
    try {
      loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development', LIMITS_REDIS_URL: 'nope://:hunter2@x' });
    } catch (e) {
      message = String(e);
    }
    expect(message).toContain('LIMITS_REDIS_URL');
    expect(message).not.toContain('hunter2');
  });
});
