/**
 * The cluster's Redis behind a password (scripts/cluster/balancer.ts; docs/operations.md, "The
 * production topology"): the real `redis-server` started by `redisUp` in a folder of its own (base
 * port 26000, nothing else of the cluster), then stopped. A client without the password, or with a
 * wrong one, is refused; the APIs' `LIMITS_REDIS_URL` gets in; status counts Redis up only when it
 * answers an authenticated PING; the password and the configuration holding it are mode 0600.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { balancerDown, balancerPids, redisAnswers, redisPassword, redisUp } from '../../scripts/cluster/balancer';
import { serviceEnv } from '../../scripts/cluster/services';
import { REPO_ROOT, topology } from '../../scripts/cluster/topology';

jest.setTimeout(120_000);

const root = join(REPO_ROOT, '.stack');
mkdirSync(root, { recursive: true });
const scratch = mkdtempSync(join(root, 'redis-auth-'));
const t = topology(scratch, 26_000);

beforeAll(async () => {
  await redisUp(t);
});

afterAll(async () => {
  await balancerDown(t);
  rmSync(scratch, { recursive: true, force: true });
});

describe('the cluster Redis requires its password', () => {
  it('Given no password or a wrong one, Then Redis refuses; given the password, Then it answers', async () => {
    expect(balancerPids(t).redis).not.toBeNull();
    expect(await redisAnswers(t.redis.port, null)).toBe(false);
    expect(await redisAnswers(t.redis.port, 'not-the-password')).toBe(false);
    expect(await redisAnswers(t.redis.port, redisPassword(t))).toBe(true);
  });

  it("Then the APIs' LIMITS_REDIS_URL gets in, and a URL without the password gets NOAUTH", async () => {
    const url = serviceEnv(t, t.services[0]).LIMITS_REDIS_URL;
    const withPassword = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    const without = new Redis(`redis://127.0.0.1:${t.redis.port}`, { lazyConnect: true, maxRetriesPerRequest: 0, enableReadyCheck: false, retryStrategy: () => null });
    without.on('error', () => undefined);
    try {
      await withPassword.connect();
      expect(await withPassword.set('ledger:limits:probe', '1', 'EX', 5)).toBe('OK');
      await without.connect();
      await expect(without.get('ledger:limits:probe')).rejects.toThrow(/NOAUTH/);
    } finally {
      withPassword.disconnect();
      without.disconnect();
    }
  });

  it('Then the password file and the configuration that holds it are readable by their owner only', () => {
    expect(statSync(join(t.redis.dir, 'password')).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.redis.dir, 'redis.conf')).mode & 0o777).toBe(0o600);
  });
});
