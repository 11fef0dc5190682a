/**
 * `npm run cluster -- status` (docs/operations.md, "The production topology"): every member of the
 * cluster with its pid and whether it answers, the topics as the brokers read them back
 * (partitions, replicas, in-sync replicas, `min.insync.replicas`), the PostgreSQL pair, HAProxy's
 * view of the API instances, which relay holds the lease and which partitions each projector holds.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KafkaAdmin } from '@ledger/kafka';
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { balancerPids, backendStates, redisAnswers, redisPassword, type BackendState } from './balancer';
import { postgresStatus, readPair, relayLeaseHolder, type PostgresPairStatus } from './database';
import { brokerPid, readTopicsWith, withAdmin, type TopicReadBack } from './kafka';
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
  /** A relay: whether the live lease row names this process. */
  readonly holdsLease?: boolean;
  /** A projector: the partitions of the events topic (`LEDGER_EVENTS_TOPIC`) the consumer group gave it. */
  readonly eventsPartitions?: readonly number[];
}

/** Everything `status` reports. */
export interface ClusterStatus {
  readonly members: readonly MemberStatus[];
  /** The ledger's topics as read back from the brokers; null when no broker answered. */
  readonly topics: readonly TopicReadBack[] | null;
  readonly postgres: PostgresPairStatus;
  /** HAProxy's view of the API instances; null when its statistics do not answer. */
  readonly backends: readonly BackendState[] | null;
  /** The live relay lease's holder (`<host>:<pid>:<nonce>`); null when no lease is live or it cannot be read. */
  readonly leaseHolder: string | null;
}

const PROJECTOR_GROUP = process.env.PROJECTOR_GROUP ?? 'ledger-projector';

/** A member of the projectors' consumer group: its client id and the partitions it holds, by topic. */
interface GroupMember {
  readonly clientId: string;
  readonly assignment: Readonly<Record<string, readonly number[]>>;
}

/** The cluster Redis's password, or null when there is none yet (never generates one: status changes nothing). */
function redisPasswordIfAny(t: Topology): string | null {
  return existsSync(join(t.redis.dir, 'password')) ? redisPassword(t) : null;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

/** The members of the projectors' consumer group and what each holds, on a connected admin client. */
async function projectorAssignments(admin: KafkaAdmin): Promise<GroupMember[]> {
  const g = await admin.describeGroup(PROJECTOR_GROUP);
  return g.members.map((m) => ({ clientId: m.clientId, assignment: Object.fromEntries(Object.entries(m.assignment).map(([topic, ps]) => [topic, [...ps].sort((a, b) => a - b)])) }));
}

/** The topics and the projectors' group through ONE admin client; each null / empty when it cannot be read. */
async function readKafka(t: Topology): Promise<{ topics: TopicReadBack[] | null; group: GroupMember[] }> {
  return withAdmin(t, async (admin) => ({ topics: await readTopicsWith(admin).catch(() => null), group: await projectorAssignments(admin).catch(() => []) })).catch(() => ({ topics: null, group: [] }));
}

/**
 * Reads the status of every member of `t`: the PostgreSQL pair once (its status, then the lease on
 * the primary it found), the brokers through one admin client (topics, the projectors' group);
 * never throws (what cannot be read is reported as down or null).
 */
export async function clusterStatus(t: Topology): Promise<ClusterStatus> {
  const { topics, group } = await readKafka(t);
  const members: MemberStatus[] = [];
  for (const b of t.brokers) {
    const leads = topics?.reduce((n, x) => n + (x.leaders[b.nodeId] ?? 0), 0);
    members.push({ name: `kafka-${b.nodeId}`, pid: brokerPid(b), port: b.port, up: brokerPid(b) !== null && (await portOpen(b.port)), note: leads === undefined ? undefined : `leads ${leads} partitions` });
  }
  const pids = balancerPids(t);
  members.push({
    name: 'redis',
    pid: pids.redis,
    port: t.redis.port,
    up: pids.redis !== null && (await redisAnswers(t.redis.port, redisPasswordIfAny(t))),
    note: pids.redis === null ? undefined : 'requirepass (password in <cluster>/redis/password)',
  });
  members.push({ name: 'haproxy', pid: pids.haproxy, port: t.balancer.port, up: pids.haproxy !== null && (await portOpen(t.balancer.port)) });
  const pair = await readPair(t);
  const leaseHolder = await relayLeaseHolder(t, pair).catch(() => null);
  for (const s of t.services) {
    const pid = servicePid(t, s);
    const up = pid !== null && (await answers(healthUrl(s)));
    if (s.app === 'relay') {
      const holdsLease = pid !== null && !!leaseHolder?.includes(`:${pid}:`);
      members.push({ name: s.name, pid, port: s.port, up, holdsLease, note: pid === null ? undefined : holdsLease ? 'holds the lease (publishes)' : 'standby' });
    } else if (s.app === 'projector') {
      const mine = pid === null ? [] : group.filter((m) => m.clientId === `ledger-projector-${pid}`);
      const eventsPartitions = mine.flatMap((m) => m.assignment[LEDGER_EVENTS_TOPIC] ?? []);
      const held = mine.flatMap((m) => Object.entries(m.assignment).map(([topic, ps]) => `${topic}[${ps.join(',')}]`)).join(' ');
      members.push({ name: s.name, pid, port: s.port, up, eventsPartitions, note: pid === null ? undefined : `partitions ${held || 'none'}` });
    } else members.push({ name: s.name, pid, port: s.port, up });
  }
  return { members, topics, postgres: postgresStatus(pair), backends: await backendStates(t).catch(() => null), leaseHolder };
}

/** The relays whose process holds the live lease. */
const leaseHolders = (s: ClusterStatus) => s.members.filter((m) => m.holdsLease === true);

/**
 * Whether the cluster is whole: every member up; both PostgreSQL servers running with the standby
 * synchronous; every topic at RF 3 / min ISR 2 with its ISR full; exactly one relay holding the
 * lease; and every projector holding at least one partition of the events topic.
 */
export function statusHealthy(s: ClusterStatus): boolean {
  const topicsOk = s.topics !== null && s.topics.length > 0 && s.topics.every((x) => x.minReplicas >= REPLICATION.factor && x.minIsr >= REPLICATION.factor && x.minInsyncReplicas === REPLICATION.minInsync);
  const projectors = s.members.filter((m) => m.eventsPartitions !== undefined);
  const projectorsOk = projectors.every((m) => (m.eventsPartitions?.length ?? 0) > 0);
  return s.members.every((m) => m.up) && topicsOk && s.postgres.healthy && leaseHolders(s).length === 1 && projectorsOk;
}

/**
 * Whether the ledger's services have settled: every member up, exactly one relay holding the lease,
 * every projector holding partitions of the events topic. What `up` waits for: unlike
 * {@link statusHealthy} it does not ask for the synchronous standby, which a promoted pair lacks
 * until `rejoin`.
 */
export function servicesSettled(s: ClusterStatus): boolean {
  const projectors = s.members.filter((m) => m.eventsPartitions !== undefined);
  return s.members.every((m) => m.up) && leaseHolders(s).length === 1 && projectors.every((m) => (m.eventsPartitions?.length ?? 0) > 0);
}

/** The status as lines of text. */
export function formatStatus(s: ClusterStatus): string {
  const lines = s.members.map((m) => `${m.name.padEnd(12)} ${m.up ? 'up  ' : 'DOWN'} ${m.pid ? `pid ${m.pid}` : 'no process'}`.padEnd(32) + ` 127.0.0.1:${m.port}${m.note ? `  ${m.note}` : ''}`);
  const holders = leaseHolders(s);
  if (holders.length === 0) lines.push(`relay lease  held by no relay of the cluster${s.leaseHolder ? ` (the live lease names ${s.leaseHolder})` : ' (no live lease)'}: nothing publishes the outbox`);
  if (holders.length > 1) lines.push(`relay lease  held by ${holders.map((m) => m.name).join(' and ')} at once`);
  for (const m of s.members.filter((x) => x.eventsPartitions?.length === 0)) lines.push(`${m.name.padEnd(12)} holds no partition of ${LEDGER_EVENTS_TOPIC}`);
  lines.push(...s.postgres.lines);
  if (s.backends) lines.push(`haproxy sees ${s.backends.map((b) => `${b.name} ${b.status} (${b.requests} requests)`).join(', ')}`);
  if (s.topics === null) lines.push('topics       no broker answered');
  else for (const x of s.topics) lines.push(`topic ${x.name}: ${x.partitions} partitions, replicas ${x.minReplicas}, in sync ${x.minIsr}, min.insync.replicas ${x.minInsyncReplicas ?? '?'}`);
  lines.push(statusHealthy(s) ? 'cluster: healthy' : 'cluster: NOT healthy');
  return `${lines.join('\n')}\n`;
}
