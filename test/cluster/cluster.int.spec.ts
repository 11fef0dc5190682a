/**
 * `npm run cluster -- up | status | down` on this machine (docs/operations.md, "The production
 * topology"), in a folder and on ports of its own: every member starts and is reported up; the
 * topics read back from the brokers are at replication factor 3 with `min.insync.replicas` 2 and a
 * full ISR; the standby is synchronous; one relay holds the lease; the projectors split the events
 * topic's partitions; a shoe dealt through HAProxy is projected, and HAProxy sends requests to both API instances.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerClient, generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import type { ClusterStatus } from '../../scripts/cluster/status';
import { waitApplied } from '../support/shoe-steps';
import { downLeftovers } from './leftovers';
import { shareKafkaJars } from '../../scripts/cluster/kafka';
import { REPO_ROOT, topology } from '../../scripts/cluster/topology';

const STACK_DIR = join(REPO_ROOT, '.stack', `cluster-spec-${process.pid}`);
const BASE = 31_000;
const t = topology(STACK_DIR, BASE);
const env = { ...process.env, STACK_DIR, CLUSTER_PORT_BASE: String(BASE) };

/** Runs `npm run cluster -- <args>` (through tsx) and returns its exit code and output. */
function cluster(args: string[], timeoutMs: number): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/cluster.ts', ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function status(): ClusterStatus {
  return JSON.parse(cluster(['status', '--json'], 60_000).stdout) as ClusterStatus;
}

beforeAll(async () => {
  await downLeftovers('cluster-spec', BASE);
  // the brokers' jars are the checkout's (fetched once by scripts/stack.sh)
  mkdirSync(STACK_DIR, { recursive: true });
  shareKafkaJars(STACK_DIR);
  const up = cluster(['up'], 420_000);
  if (up.status !== 0) throw new Error(`cluster up failed (${up.status}):\n${up.stderr.slice(-4000)}`);
}, 450_000);

afterAll(() => {
  const down = cluster(['down'], 180_000);
  if (down.status === 0) rmSync(STACK_DIR, { recursive: true, force: true });
  else process.stderr.write(`cluster down failed, ${STACK_DIR} kept:\n${down.stderr.slice(-2000)}\n`);
}, 200_000);

describe('npm run cluster (docs/operations.md, "The production topology")', () => {
  it('Given the cluster is up, Then status shows every member up and exits 0', () => {
    const r = cluster(['status'], 60_000);
    expect(r.stdout).toContain('cluster: healthy');
    expect(r.status).toBe(0);
    const s = status();
    expect(s.members.map((m) => m.name).sort()).toEqual(['api-1', 'api-2', 'haproxy', 'kafka-1', 'kafka-2', 'kafka-3', 'projector-1', 'projector-2', 'redis', 'relay-1', 'relay-2'].sort());
    expect(s.members.filter((m) => !m.up)).toEqual([]);
  });

  it('Then every topic read back from the brokers has 3 replicas, all in sync, and min.insync.replicas 2', () => {
    const s = status();
    const names = (s.topics ?? []).map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining([LEDGER_EVENTS_TOPIC, 'baccarat.ledger.anchors.v1']));
    for (const x of s.topics ?? []) expect({ name: x.name, replicas: x.minReplicas, isr: x.minIsr, minInsync: x.minInsyncReplicas }).toEqual({ name: x.name, replicas: 3, isr: 3, minInsync: 2 });
  });

  it('Then the PostgreSQL standby is synchronous, one relay publishes, and the projectors split the partitions', () => {
    const s = status();
    expect(s.postgres.healthy).toBe(true);
    expect(s.postgres.lines.join('\n')).toMatch(/sync/);
    const relays = s.members.filter((m) => m.name.startsWith('relay-'));
    expect(relays.filter((m) => m.note === 'holds the lease (publishes)')).toHaveLength(1);
    const held = s.members
      .filter((m) => m.name.startsWith('projector-'))
      .map((m) => [...(m.note ?? '').matchAll(new RegExp(`${LEDGER_EVENTS_TOPIC.replace(/\./g, '\\.')}\\[([0-9,]*)\\]`, 'g'))].flatMap((x) => x[1].split(',').filter(Boolean).map(Number)));
    expect(held.every((p) => p.length > 0)).toBe(true);
    expect(held.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('Given a shoe dealt through HAProxy and a few other reads, Then both API instances served requests and every event is projected', async () => {
    const table = (JSON.parse(readFileSync(join(REPO_ROOT, 'config/tables.json'), 'utf8')) as { tables: SimTable[] }).tables[0];
    const script = generateShoeScript(table, 'cluster-spec', { shoeId: `cluster-${process.pid}`, dealerId: 'dealer-1', accounts: 4, betChance: 0.5, maxRounds: 4 });
    const client = new LedgerClient(`http://127.0.0.1:${t.balancer.port}`, DEV_JWT_SECRET, { deviceTables: [table.tableId] });
    const stats = await runShoeScript(script, client);
    const stream = (await client.get('auditor', 'aud-1', `/shoes/${script.shoeId}/events?limit=10000`)) as { events: { eventId: string }[] };
    expect(stream.events.length).toBeGreaterThan(0);
    expect(stream.events.length).toBeLessThanOrEqual(stats.events);
    await waitApplied(client, stream.events[stream.events.length - 1].eventId);
    // a shoe's requests go to one instance (HAProxy hashes the shoe id); the other routes round robin
    for (let i = 0; i < 4; i++) await client.get('auditor', 'aud-1', '/tables');
    const backends = status().backends ?? [];
    expect(backends.map((b) => b.name).sort()).toEqual(['api-1', 'api-2']);
    for (const b of backends) expect(b.requests).toBeGreaterThan(0);
  }, 180_000);
});
