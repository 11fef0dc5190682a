/**
 * `npm run cluster -- status` (docs/operations.md, "The production topology"): every member of the
 * cluster with its pid and whether it answers, the topics as the brokers read them back
 * (partitions, replicas, in-sync replicas, `min.insync.replicas`), the PostgreSQL pair, HAProxy's
 * view of the API instances, which relay holds the lease and which partitions each projector holds.
 */
import { createKafka } from '@ledger/kafka';
import { balancerPids, backendStates, type BackendState } from './balancer';
import { postgresStatus, relayLeaseHolder, type PostgresPairStatus } from './database';
import { brokerPid, readBackTopics, type TopicReadBack } from './kafka';
import { portOpen } from './processes';
import { healthUrl, servicePid } from './services';
import { REPLICATION, type Topology } from './topology';

/** One process of the cluster. */
export interface MemberStatus {
  readonly name: string;
  readonly pid: number | null;
  readonly port: number;
  /** It runs and answers (its port, or its health URL for a ledger service). */
  readonly up: boolean;
  /** What else is worth a line: a relay's lease, a projector's partitions, a broker's leaderships. */
  readonly note?: string;
}

/** Everything `status` reports. */
export interface ClusterStatus {
  readonly members: readonly MemberStatus[];
  /** The ledger's topics as read back from the brokers; null when no broker answered. */
  readonly topics: readonly TopicReadBack[] | null;
  readonly postgres: PostgresPairStatus;
  /** HAProxy's view of the API instances; null when its statistics do not answer. */
  readonly backends: readonly BackendState[] | null;
}

const PROJECTOR_GROUP = process.env.PROJECTOR_GROUP ?? 'ledger-projector';

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

/** The partitions of the events topic each projector (by its client host and id) holds. */
async function projectorAssignments(t: Topology): Promise<{ clientId: string; partitions: string }[]> {
  const kafka = createKafka({ clientId: 'ledger-cluster-status', brokers: t.bootstrap.split(','), logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const g = await admin.describeGroup(PROJECTOR_GROUP);
    return g.members.map((m) => ({
      clientId: m.clientId,
      partitions: Object.entries(m.assignment)
        .map(([topic, ps]) => `${topic}[${[...ps].sort((a, b) => a - b).join(',')}]`)
        .join(' '),
    }));
  } finally {
    await admin.disconnect();
  }
}

/** Reads the status of every member of `t`; never throws (what cannot be read is reported as down or null). */
export async function clusterStatus(t: Topology): Promise<ClusterStatus> {
  const topics = await readBackTopics(t).catch(() => null);
  const members: MemberStatus[] = [];
  for (const b of t.brokers) {
    const leads = topics?.reduce((n, x) => n + (x.leaders[b.nodeId] ?? 0), 0);
    members.push({ name: `kafka-${b.nodeId}`, pid: brokerPid(b), port: b.port, up: brokerPid(b) !== null && (await portOpen(b.port)), note: leads === undefined ? undefined : `leads ${leads} partitions` });
  }
  const pids = balancerPids(t);
  members.push({ name: 'redis', pid: pids.redis, port: t.redis.port, up: pids.redis !== null && (await portOpen(t.redis.port)) });
  members.push({ name: 'haproxy', pid: pids.haproxy, port: t.balancer.port, up: pids.haproxy !== null && (await portOpen(t.balancer.port)) });
  const lease = await relayLeaseHolder(t).catch(() => null);
  const assignments = await projectorAssignments(t).catch(() => []);
  for (const s of t.services) {
    const pid = servicePid(t, s);
    let note: string | undefined;
    if (s.app === 'relay' && pid !== null) note = lease?.includes(`:${pid}:`) ? 'holds the lease (publishes)' : 'standby';
    if (s.app === 'projector' && pid !== null)
      note = `partitions ${
        assignments
          .filter((a) => a.clientId.includes(String(pid)))
          .map((a) => a.partitions)
          .join(' ') || 'none'
      }`;
    members.push({ name: s.name, pid, port: s.port, up: pid !== null && (await answers(healthUrl(s))), note });
  }
  return { members, topics, postgres: await postgresStatus(t), backends: await backendStates(t).catch(() => null) };
}

/** Whether every member is up, both PostgreSQL servers run with the standby synchronous, and every topic is at RF 3 / min ISR 2 with its ISR full. */
export function statusHealthy(s: ClusterStatus): boolean {
  const topicsOk = s.topics !== null && s.topics.length > 0 && s.topics.every((x) => x.minReplicas >= REPLICATION.factor && x.minIsr >= REPLICATION.factor && x.minInsyncReplicas === REPLICATION.minInsync);
  return s.members.every((m) => m.up) && topicsOk && s.postgres.healthy;
}

/** The status as lines of text. */
export function formatStatus(s: ClusterStatus): string {
  const lines = s.members.map((m) => `${m.name.padEnd(12)} ${m.up ? 'up  ' : 'DOWN'} ${m.pid ? `pid ${m.pid}` : 'no process'}`.padEnd(32) + ` 127.0.0.1:${m.port}${m.note ? `  ${m.note}` : ''}`);
  lines.push(...s.postgres.lines);
  if (s.backends) lines.push(`haproxy sees ${s.backends.map((b) => `${b.name} ${b.status} (${b.requests} requests)`).join(', ')}`);
  if (s.topics === null) lines.push('topics       no broker answered');
  else for (const x of s.topics) lines.push(`topic ${x.name}: ${x.partitions} partitions, replicas ${x.minReplicas}, in sync ${x.minIsr}, min.insync.replicas ${x.minInsyncReplicas ?? '?'}`);
  lines.push(statusHealthy(s) ? 'cluster: healthy' : 'cluster: NOT healthy');
  return `${lines.join('\n')}\n`;
}
