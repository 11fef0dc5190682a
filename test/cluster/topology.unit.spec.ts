import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliUsageError } from '@ledger/cli';
import { haproxyConfig, redisConfig, redisPassword } from '../../scripts/cluster/balancer';
import { brokerProperties } from '../../scripts/cluster/kafka';
import { clusterDatabaseUrls, serviceEnv } from '../../scripts/cluster/services';
import { COUNTS, DEFAULT_PORT_BASE, REPLICATION, REPO_ROOT, topology, topologyFromEnv } from '../../scripts/cluster/topology';

describe('the cluster topology (docs/operations.md, "The production topology")', () => {
  const t = topology('/tmp/stack-x', 31_000);

  it('Given a base port, Then every member has its own port, all above the base', () => {
    const ports = [...t.brokers.flatMap((b) => [b.port, b.controllerPort]), t.postgres.primaryPort, t.postgres.standbyPort, t.redis.port, t.balancer.port, t.balancer.statsPort, ...t.services.map((s) => s.port)];
    expect(new Set(ports).size).toBe(ports.length);
    expect(Math.min(...ports)).toBeGreaterThan(31_000);
    expect(t.dir).toBe('/tmp/stack-x/cluster');
  });

  it('Then it has three brokers, two APIs, two relays and two projectors', () => {
    expect(t.brokers).toHaveLength(3);
    expect(COUNTS).toEqual({ brokers: 3, apis: 2, relays: 2, projectors: 2 });
    expect(t.services.map((s) => s.name)).toEqual(['api-1', 'api-2', 'relay-1', 'relay-2', 'projector-1', 'projector-2']);
  });

  it('Given a base port out of range, Then it is refused', () => {
    expect(() => topology('/tmp/x', 80)).toThrow(/CLUSTER_PORT_BASE/);
    expect(() => topology('/tmp/x', 65_500)).toThrow(/CLUSTER_PORT_BASE/);
  });

  it.each([
    ['abc', /got "abc"/],
    ['', /got ""/],
    ['  ', /got " {2}"/],
    ['29000.5', /got "29000.5"/],
    ['0x7000', /got "0x7000"/],
    ['80', /1025\.\.65000.*CLUSTER_PORT_BASE="80"/],
  ])('Given CLUSTER_PORT_BASE=%j, Then topologyFromEnv refuses with one line quoting the raw text', (raw, message) => {
    const attempt = () => topologyFromEnv({ STACK_DIR: '/tmp/x', CLUSTER_PORT_BASE: raw });
    expect(attempt).toThrow(CliUsageError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(/^[^\n]+$/);
  });

  it('Given CLUSTER_PORT_BASE unset or a whole number (blanks around it ignored), Then topologyFromEnv takes it', () => {
    expect(topologyFromEnv({ STACK_DIR: '/tmp/x' }).redis.port).toBe(DEFAULT_PORT_BASE + 379);
    expect(topologyFromEnv({ STACK_DIR: '/tmp/x', CLUSTER_PORT_BASE: ' 26000 ' }).redis.port).toBe(26_379);
  });

  it('Given a bad CLUSTER_PORT_BASE, Then `npm run cluster -- status` exits 2 with one line on stderr and no stack trace', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', 'status'], { cwd: REPO_ROOT, env: { ...process.env, CLUSTER_PORT_BASE: 'abc' }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('cluster: CLUSTER_PORT_BASE must be a whole number 1025..65000 (or unset for 29000), got "abc"\n');
    expect(r.stdout).toBe('');
  });

  it('Given a base whose ports fall among the ephemeral ports (Linux: 32768–60999), Then it is refused', () => {
    expect(() => topology('/tmp/x', 33_000)).toThrow(/ephemeral ports/);
    expect(() => topology('/tmp/x', 32_600)).toThrow(/ephemeral ports/);
    // its PostgreSQL standby is at base+433: 32,400 + 433 = 32,833, past 32,768
    expect(() => topology('/tmp/x', 32_400)).toThrow(/ephemeral ports/);
    expect(() => topology('/tmp/x', 32_300)).not.toThrow();
  });

  it('Given a broker, Then its defaults put every topic at RF 3 / min ISR 2, with the three voters and no unclean election', () => {
    const p = brokerProperties(t, t.brokers[1]);
    expect(p).toContain(`node.id=2\n`);
    expect(p).toContain(`default.replication.factor=${REPLICATION.factor}\n`);
    expect(p).toContain(`min.insync.replicas=${REPLICATION.minInsync}\n`);
    expect(p).toContain(`offsets.topic.replication.factor=3\n`);
    expect(p).toContain('unclean.leader.election.enable=false\n');
    expect(p).toContain(`controller.quorum.voters=1@127.0.0.1:${t.brokers[0].controllerPort},2@127.0.0.1:${t.brokers[1].controllerPort},3@127.0.0.1:${t.brokers[2].controllerPort}\n`);
  });

  it('Then HAProxy balances both APIs on their readiness, forwards the client address, and retries only failed connections', () => {
    const cfg = haproxyConfig(t);
    for (const a of t.services.filter((s) => s.app === 'api')) expect(cfg).toContain(`server ${a.name} 127.0.0.1:${a.port} check`);
    expect(cfg).toContain('option httpchk GET /health/ready');
    expect(cfg).toContain('option forwardfor');
    expect(cfg).toContain('retry-on conn-failure');
    expect(cfg).toContain(`bind 127.0.0.1:${t.balancer.port}`);
  });

  it('Then every service connects to both PostgreSQL servers, primary first, read-write only, and to the three brokers', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cluster-topology-'));
    try {
      const t = topology(scratch, 31_000);
      const urls = clusterDatabaseUrls(t);
      expect(urls.app).toBe(`postgres://ledger_app:ledger_app@127.0.0.1:${t.postgres.primaryPort},127.0.0.1:${t.postgres.standbyPort}/ledger?target_session_attrs=read-write`);
      for (const s of t.services) {
        const env = serviceEnv(t, s);
        expect(env.KAFKA_BROKERS.split(',')).toHaveLength(3);
        expect(env.DATABASE_URL).toContain('target_session_attrs=read-write');
      }
      const api = serviceEnv(t, t.services[0]);
      expect(api).toMatchObject({ TRUST_PROXY: 'loopback', LIMITS_REDIS_URL: `redis://:${redisPassword(t)}@127.0.0.1:${t.redis.port}` });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('Then Redis requires a password generated once into <cluster>/redis/password (mode 0600), the one the APIs get in LIMITS_REDIS_URL', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cluster-redis-'));
    try {
      const t = topology(scratch, 31_000);
      const password = redisPassword(t);
      expect(password).toMatch(/^[0-9a-f]{48}$/);
      expect(statSync(join(t.redis.dir, 'password')).mode & 0o777).toBe(0o600);
      expect(redisPassword(t)).toBe(password);
      expect(redisConfig(t)).toContain(`\nrequirepass ${password}\n`);
      expect(redisConfig(t)).toContain('bind 127.0.0.1\n');
      expect(serviceEnv(t, t.services[0]).LIMITS_REDIS_URL).toBe(`redis://:${password}@127.0.0.1:${t.redis.port}`);
      expect(redisPassword(topology(mkdtempSync(join(scratch, 'other-')), 31_000))).not.toBe(password);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
