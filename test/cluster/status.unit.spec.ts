/**
 * `npm run cluster -- status` (scripts/cluster/status.ts; docs/operations.md, "The production
 * topology"): when the cluster counts as healthy, what the text says when no relay holds the lease,
 * and that one status reads the PostgreSQL pair once and opens one Kafka admin client.
 */
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import type { PairStatus } from '../../scripts/cluster/postgres';
import { clusterStatus, formatStatus, servicesSettled, statusHealthy, type ClusterStatus, type MemberStatus } from '../../scripts/cluster/status';
import { topology } from '../../scripts/cluster/topology';

const pairReads = jest.fn();
const adminsOpened = jest.fn();

jest.mock('../../scripts/cluster/postgres', () => ({
  ...jest.requireActual('../../scripts/cluster/postgres'),
  status: async (): Promise<PairStatus> => {
    pairReads();
    const primary = { name: 'pg-primary' as const, port: 1, pid: 11, role: 'primary' as const };
    const standby = { name: 'pg-standby' as const, port: 2, pid: 12, role: 'standby' as const };
    return { nodes: [primary, standby], primary, standby, syncState: 'sync', replayLagBytes: 0, replayLagMs: 0, promoted: false };
  },
}));

jest.mock('../../scripts/cluster/kafka', () => ({
  ...jest.requireActual('../../scripts/cluster/kafka'),
  withAdmin: async (_t: unknown, fn: (admin: unknown) => Promise<unknown>) => {
    adminsOpened();
    const admin = {
      listTopics: async () => [LEDGER_EVENTS_TOPIC],
      fetchTopicMetadata: async () => [{ name: LEDGER_EVENTS_TOPIC, partitions: [0, 1].map((p) => ({ partitionId: p, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3] })) }],
      describeTopicConfigs: async () => new Map([[LEDGER_EVENTS_TOPIC, { 'min.insync.replicas': '2' }]]),
      describeGroup: async () => ({ members: [] }),
    };
    return fn(admin);
  },
}));

const up = (name: string, extra: Partial<MemberStatus> = {}): MemberStatus => ({ name, pid: 100, port: 1, up: true, ...extra });

/** A whole cluster: every member up, one relay holding the lease, each projector three partitions. */
function healthy(): ClusterStatus {
  return {
    members: [
      up('kafka-1'),
      up('kafka-2'),
      up('kafka-3'),
      up('redis'),
      up('haproxy'),
      up('api-1'),
      up('api-2'),
      up('relay-1', { holdsLease: true, note: 'holds the lease (publishes)' }),
      up('relay-2', { holdsLease: false, note: 'standby' }),
      up('projector-1', { eventsPartitions: [0, 1, 2] }),
      up('projector-2', { eventsPartitions: [3, 4, 5] }),
    ],
    topics: [{ name: LEDGER_EVENTS_TOPIC, partitions: 6, minReplicas: 3, minIsr: 3, minInsyncReplicas: 2, leaders: { 1: 2, 2: 2, 3: 2 } }],
    postgres: { healthy: true, lines: ['replication  standby sync'], pair: null },
    backends: null,
    leaseHolder: 'vm:100:abc',
  };
}

const withMembers = (f: (m: MemberStatus) => MemberStatus): ClusterStatus => ({ ...healthy(), members: healthy().members.map(f) });

describe('statusHealthy and formatStatus (npm run cluster -- status)', () => {
  it('Given every member up, one relay holding the lease and each projector holding partitions, Then the cluster is healthy', () => {
    expect(statusHealthy(healthy())).toBe(true);
    expect(formatStatus(healthy())).toContain('cluster: healthy');
    expect(formatStatus(healthy())).not.toContain('relay lease');
  });

  it('Given a projector up but holding no partition of the events topic, Then it is not healthy and the text names it', () => {
    const s = withMembers((m) => (m.name === 'projector-2' ? { ...m, eventsPartitions: [] } : m));
    expect(statusHealthy(s)).toBe(false);
    expect(formatStatus(s)).toContain(`projector-2  holds no partition of ${LEDGER_EVENTS_TOPIC}`);
    expect(formatStatus(s)).toContain('cluster: NOT healthy');
  });

  it('Given both relays up and neither holding the lease, Then it is not healthy and the text says no relay holds it', () => {
    const s = { ...withMembers((m) => (m.holdsLease ? { ...m, holdsLease: false, note: 'standby' } : m)), leaseHolder: null };
    expect(statusHealthy(s)).toBe(false);
    expect(formatStatus(s)).toContain('relay lease  held by no relay of the cluster (no live lease): nothing publishes the outbox');
  });

  it('Given a live lease naming a process that is none of the relays, Then it is not healthy and the text quotes the holder', () => {
    const s = { ...withMembers((m) => (m.holdsLease ? { ...m, holdsLease: false } : m)), leaseHolder: 'elsewhere:4242:x' };
    expect(statusHealthy(s)).toBe(false);
    expect(formatStatus(s)).toContain('(the live lease names elsewhere:4242:x)');
  });

  it('Given two relays that both claim the lease, Then it is not healthy', () => {
    const s = withMembers((m) => (m.name.startsWith('relay-') ? { ...m, holdsLease: true } : m));
    expect(statusHealthy(s)).toBe(false);
    expect(formatStatus(s)).toContain('relay lease  held by relay-1 and relay-2 at once');
  });

  it('Given a member down, a standby not synchronous or a topic below RF 3, Then it is not healthy (as before)', () => {
    expect(statusHealthy(withMembers((m) => (m.name === 'api-2' ? { ...m, up: false } : m)))).toBe(false);
    expect(statusHealthy({ ...healthy(), postgres: { ...healthy().postgres, healthy: false } })).toBe(false);
    expect(statusHealthy({ ...healthy(), topics: [{ ...healthy().topics![0], minIsr: 2 }] })).toBe(false);
  });

  it('Given a cluster with nothing running, Then clusterStatus reads the PostgreSQL pair once and opens one Kafka admin client', async () => {
    const s = await clusterStatus(topology('/tmp/ledger-status-unit-nothing-here', 21_000));
    expect(pairReads).toHaveBeenCalledTimes(1);
    expect(adminsOpened).toHaveBeenCalledTimes(1);
    expect(s.topics?.map((x) => x.name)).toEqual([LEDGER_EVENTS_TOPIC]);
    expect(s.postgres.healthy).toBe(true);
    expect(statusHealthy(s)).toBe(false);
  });
});

describe('what cluster up waits for (servicesSettled)', () => {
  it('Given a promoted pair without its standby, Then the services have settled though the cluster is not healthy', () => {
    const s = { ...healthy(), postgres: { healthy: false, lines: ['replication  standby not connected (the standby was promoted)'], pair: null } };
    expect(statusHealthy(s)).toBe(false);
    expect(servicesSettled(s)).toBe(true);
  });

  it('Given a projector without partitions yet, or no relay holding the lease, or a member down, Then they have not', () => {
    const h = healthy();
    const noPartitions = { ...h, members: h.members.map((m) => (m.name === 'projector-2' ? { ...m, eventsPartitions: [] } : m)) };
    const noLease = { ...h, members: h.members.map((m) => (m.name === 'relay-1' ? { ...m, holdsLease: false } : m)) };
    const down = { ...h, members: h.members.map((m) => (m.name === 'api-2' ? { ...m, up: false } : m)) };
    expect([servicesSettled(h), servicesSettled(noPartitions), servicesSettled(noLease), servicesSettled(down)]).toEqual([true, false, false, false]);
  });
});
