/**
 * CPU seconds of every member of a cluster (docs/development.md, "Benchmarks", "On the cluster"),
 * read from /proc: each ledger service and HAProxy and Redis by its pid, each Kafka broker by its
 * JVM's pid (every thread counted), and each PostgreSQL server as its postmaster's own time plus its
 * children's — the live ones by their pids, the ones that ended by the postmaster's `cutime` and
 * `cstime` (what the kernel adds when a child is reaped), so a backend that ends during a
 * measurement still counts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { balancerPids } from '../../scripts/cluster/balancer';
import { brokerPid } from '../../scripts/cluster/kafka';
import { postmasterPid } from '../../scripts/cluster/pg-server';
import { servicePid } from '../../scripts/cluster/services';
import type { Topology } from '../../scripts/cluster/topology';

/** The groups a sizing table has a row for: the ledger's three services, PostgreSQL (both servers), Kafka (every broker), and the front (HAProxy + Redis). */
export type CpuGroup = 'api' | 'relay' | 'projector' | 'postgres' | 'kafka' | 'front';

/** CPU seconds by group, and by member (`api-1`, `kafka-2`, `pg-primary`, …). */
export interface CpuReading {
  readonly byGroup: Record<CpuGroup, number>;
  readonly byMember: Record<string, number>;
}

const TICKS_PER_SECOND = 100;

interface ProcTimes {
  readonly ppid: number;
  /** utime + stime, seconds. */
  readonly own: number;
  /** cutime + cstime (reaped children), seconds. */
  readonly children: number;
}

/** `/proc/<pid>/stat` as times, or null when the process is gone. */
function procTimes(pid: number): ProcTimes | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after the command: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime (clock ticks)
    return { ppid: Number(f[1]), own: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND, children: (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** Every process's parent, once per reading (the PostgreSQL servers' children are found by it). */
function parents(): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const t = procTimes(Number(entry));
    if (t) out.set(t.ppid, [...(out.get(t.ppid) ?? []), Number(entry)]);
  }
  return out;
}

/** A postmaster's time, its reaped children's, and its live children's, seconds; 0 when it does not run. */
function serverSeconds(pid: number | null, tree: Map<number, number[]>): number {
  if (pid === null) return 0;
  const p = procTimes(pid);
  if (!p) return 0;
  const live = (tree.get(pid) ?? []).reduce((n, c) => n + (procTimes(c)?.own ?? 0), 0);
  return p.own + p.children + live;
}

/**
 * Reads the CPU seconds every member of `t` has used so far. A member that does not run counts 0
 * (subtract two readings only across a span in which no member restarted).
 */
export function readClusterCpu(t: Topology): CpuReading {
  const byMember: Record<string, number> = {};
  const byGroup: Record<CpuGroup, number> = { api: 0, relay: 0, projector: 0, postgres: 0, kafka: 0, front: 0 };
  const add = (group: CpuGroup, name: string, seconds: number) => {
    byMember[name] = seconds;
    byGroup[group] += seconds;
  };
  for (const s of t.services) {
    const pid = servicePid(t, s);
    add(s.app, s.name, pid === null ? 0 : (procTimes(pid)?.own ?? 0));
  }
  for (const b of t.brokers) {
    const pid = brokerPid(b);
    add('kafka', `kafka-${b.nodeId}`, pid === null ? 0 : (procTimes(pid)?.own ?? 0));
  }
  const tree = parents();
  for (const name of ['pg-primary', 'pg-standby']) add('postgres', name, serverSeconds(postmasterPid(join(t.postgres.dir, name)), tree));
  const front = balancerPids(t);
  add('front', 'haproxy', front.haproxy === null ? 0 : (procTimes(front.haproxy)?.own ?? 0));
  add('front', 'redis', front.redis === null ? 0 : (procTimes(front.redis)?.own ?? 0));
  return { byGroup, byMember };
}

/** `b − a` member by member and group by group, seconds (rounded to 0.01). */
export function cpuDelta(a: CpuReading, b: CpuReading): CpuReading {
  const sub = <K extends string>(x: Record<K, number>, y: Record<K, number>): Record<K, number> =>
    Object.fromEntries(Object.keys(y).map((k) => [k, Math.round(((y[k as K] ?? 0) - (x[k as K] ?? 0)) * 100) / 100])) as Record<K, number>;
  return { byGroup: sub(a.byGroup, b.byGroup), byMember: sub(a.byMember, b.byMember) };
}

/** CPU microseconds per event by group: `seconds × 10^6 ÷ events`, rounded; null groups when no event. */
export function microsPerEvent(delta: CpuReading, events: number): Record<CpuGroup, number | null> {
  return Object.fromEntries(Object.entries(delta.byGroup).map(([k, s]) => [k, events > 0 ? Math.round(((s as number) * 1e6) / events) : null])) as Record<CpuGroup, number | null>;
}

/** Cores each group uses at rest: CPU seconds over `seconds` of no load, divided by them (rounded to 0.001). */
export function idleCores(delta: CpuReading, seconds: number): Record<CpuGroup, number> {
  return Object.fromEntries(Object.entries(delta.byGroup).map(([k, s]) => [k, Math.round(((s as number) / seconds) * 1000) / 1000])) as Record<CpuGroup, number>;
}

/**
 * CPU microseconds per event by group above the group's rest: `(seconds − idle cores × window) ×
 * 10^6 ÷ events`, rounded, never below 0; null groups when no event.
 */
export function marginalMicrosPerEvent(o: { delta: CpuReading; idle: Record<CpuGroup, number>; windowSeconds: number; events: number }): Record<CpuGroup, number | null> {
  return Object.fromEntries(Object.entries(o.delta.byGroup).map(([k, s]) => [k, o.events > 0 ? Math.max(0, Math.round((((s as number) - o.idle[k as CpuGroup] * o.windowSeconds) * 1e6) / o.events)) : null])) as Record<
    CpuGroup,
    number | null
  >;
}
