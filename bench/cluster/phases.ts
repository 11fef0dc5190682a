/**
 * The cluster bench's two measurements (docs/development.md, "Benchmarks", "On the cluster"):
 *
 * - **ingest with 1 vs 2 API instances**: the same closed-loop load (bench/phases/ingest.ts) through
 *   HAProxy, once with `api-2` stopped (HAProxy sees it DOWN) and once with both; each run's window
 *   lasts until the relay has published and the projectors have applied every event it recorded,
 *   so the CPU every member used in it, divided by the events, is that member's cost per event;
 * - **projection with 1 vs 2 projectors**: a backlog recorded and published while no projector
 *   runs, then applied by one projector, and an equal backlog by two (one consumer group splitting
 *   the partitions); events/s from the first checkpoint that moved to the last.
 */
import { ingestBatched, ingestUnbatched, type IngestFigures } from '../phases/ingest';
import type { Pg } from '../lib/pg';
import { machineCpu, nowMs, round, say, sleep, waitFor } from '../lib/util';
import type { LedgerClient } from '@ledger/simulator';
import type { KafkaAdmin } from '@ledger/kafka';
import { cpus } from 'node:os';
import { backendStates } from '../../scripts/cluster/balancer';
import { startService, stopService, waitHealthy } from '../../scripts/cluster/services';
import type { ServiceSpec, Topology } from '../../scripts/cluster/topology';
import { cpuDelta, idleCores, marginalMicrosPerEvent, microsPerEvent, readClusterCpu, type CpuGroup, type CpuReading } from './meter';

/** What a measurement needs: the cluster, a client through HAProxy, the primary, an admin client, the topic. */
export interface ClusterBench {
  readonly t: Topology;
  readonly client: LedgerClient;
  readonly pg: Pg;
  readonly admin: KafkaAdmin;
  readonly topic: string;
  /** A prefix unique to the run (shoe ids). */
  readonly run: string;
  /** Cores each group uses at rest ({@link idleRun}); all 0 until measured. */
  idle: Record<CpuGroup, number>;
}

/** One ingest run. */
export interface IngestRun {
  readonly apis: number;
  readonly kind: 'unbatched' | 'batched';
  readonly load: IngestFigures;
  /** Events the store gained (settlements and results included). */
  readonly events: number;
  /** From the load's end until every event was published and applied, ms. */
  readonly drainMs: number;
  /** Busy cores of the machine while the load ran (of {@link cores}). */
  readonly machineBusyCores: number | null;
  readonly cores: number;
  /** CPU seconds from the load's start to the drain's end. */
  readonly cpu: CpuReading;
  /** CPU µs per event, everything the group used in the window. */
  readonly microsPerEvent: Record<CpuGroup, number | null>;
  /** CPU µs per event above the group's rest (what one more event costs). */
  readonly marginalMicrosPerEvent: Record<CpuGroup, number | null>;
}

/** One projection run. */
export interface ProjectionRun {
  readonly projectors: number;
  readonly backlog: number;
  /** From the projectors' start to the first checkpoint that moved (process start, group join), ms. */
  readonly startupMs: number;
  readonly seconds: number;
  readonly eventsPerSecond: number | null;
  readonly cpu: CpuReading;
  readonly microsPerEvent: Record<CpuGroup, number | null>;
}

const member = (t: Topology, name: string): ServiceSpec => {
  const s = t.services.find((x) => x.name === name);
  if (!s) throw new Error(`no member ${name}`);
  return s;
};

async function storeEvents(pg: Pg): Promise<number> {
  return (await pg.query(`SELECT count(*)::int AS n FROM events`)).rows[0].n;
}

async function topicRecords(admin: KafkaAdmin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(BigInt(o.high) - BigInt(o.low)), 0);
}

async function projectedOffsets(pg: Pg, topic: string): Promise<number> {
  const { rows } = await pg.query(`SELECT coalesce(sum(next_offset), 0)::bigint::text AS n FROM read.checkpoints WHERE consumer_group = 'ledger-projector' AND topic = $1`, [topic]);
  return Number(rows[0].n);
}

/** Waits until the relay has published every event of the store. @returns the records on the topic */
async function published(b: ClusterBench, timeoutMs: number): Promise<number> {
  const want = await storeEvents(b.pg);
  return waitFor(
    `the relay to publish ${want} events`,
    async () => {
      const n = await topicRecords(b.admin, b.topic);
      return n >= want ? n : null;
    },
    timeoutMs,
    100,
  );
}

/** Waits until the projectors' checkpoints reach the topic's end. */
async function projected(b: ClusterBench, records: number, timeoutMs: number): Promise<void> {
  await waitFor(`the projectors to apply ${records} records`, async () => (await projectedOffsets(b.pg, b.topic)) >= records, timeoutMs, 100);
}

/** Runs `api-1` alone (`api-2` stopped, HAProxy sees it DOWN) or both (both UP). */
async function setApis(t: Topology, n: 1 | 2): Promise<void> {
  const api2 = member(t, 'api-2');
  if (n === 1) await stopService(t, api2);
  else {
    startService(t, api2);
    await waitHealthy(api2, 120_000);
  }
  const want = n === 1 ? ['UP', 'DOWN'] : ['UP', 'UP'];
  await waitFor(
    `HAProxy to see ${n} API instance(s)`,
    async () => {
      const s = await backendStates(t);
      return s.length === 2 && s.every((x, i) => x.status.startsWith(want[i]));
    },
    60_000,
    250,
  );
}

/** Options of one ingest run. */
export interface IngestOptions {
  readonly apis: 1 | 2;
  readonly kind: 'unbatched' | 'batched';
  /** Unbatched: clients and seconds; batched: clients, batch size and bets. */
  readonly clients: number;
  readonly seconds: number;
  readonly batchSize: number;
  readonly bets: number;
}

/** Measures what every group uses at rest (once what was recorded is published and applied), over `seconds` with no load, into `b.idle`. @returns it */
export async function idleRun(b: ClusterBench, seconds: number): Promise<Record<CpuGroup, number>> {
  await projected(b, await published(b, 600_000), 600_000);
  await sleep(2000);
  const cpu0 = readClusterCpu(b.t);
  const t0 = nowMs();
  await sleep(seconds * 1000);
  b.idle = idleCores(cpuDelta(cpu0, readClusterCpu(b.t)), (nowMs() - t0) / 1000);
  say(
    `at rest: ${Object.entries(b.idle)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} cores`,
  );
  return b.idle;
}

/** One ingest run (see the file comment). */
export async function ingestRun(b: ClusterBench, o: IngestOptions): Promise<IngestRun> {
  await setApis(b.t, o.apis);
  const before = await storeEvents(b.pg);
  const cpu0 = readClusterCpu(b.t);
  const m0 = machineCpu();
  const t0 = nowMs();
  const prefix = `${b.run}-${o.kind}-${o.apis}api`;
  const load =
    o.kind === 'unbatched'
      ? await ingestUnbatched(b.client, { prefix, clients: o.clients, seconds: o.seconds, betsPerRound: 8 })
      : await ingestBatched(b.client, { prefix, clients: o.clients, batchSize: o.batchSize, bets: o.bets });
  const m1 = machineCpu();
  const loadEnd = nowMs();
  const records = await published(b, 600_000);
  await projected(b, records, 600_000);
  const drainMs = Math.round(nowMs() - loadEnd);
  const cpu = cpuDelta(cpu0, readClusterCpu(b.t));
  const events = (await storeEvents(b.pg)) - before;
  const cores = cpus().length;
  const busy = round((m1.busy - m0.busy) / ((m1.total - m0.total) / cores), 2);
  say(`ingest ${o.kind}, ${o.apis} API: ${events} events, ${load.clientEventsPerSecond} client ev/s, ${load.requestsPerSecond} req/s, drained ${drainMs} ms after`);
  const marginal = marginalMicrosPerEvent({ delta: cpu, idle: b.idle, windowSeconds: (nowMs() - t0) / 1000, events });
  return { apis: o.apis, kind: o.kind, load, events, drainMs, machineBusyCores: busy, cores, cpu, microsPerEvent: microsPerEvent(cpu, events), marginalMicrosPerEvent: marginal };
}

/** Options of one projection run. */
export interface ProjectionOptions {
  readonly projectors: 1 | 2;
  /** Bets of the backlog (batched ingest, 500 a request). */
  readonly bets: number;
  /**
   * Shoes dealt at once for the backlog (one client each): a shoe's events are one key, so one
   * partition, so one projector; a backlog of few shoes cannot be spread over the group.
   */
  readonly shoes: number;
}

/** One projection run (see the file comment); every projector runs again after it. */
export async function projectionRun(b: ClusterBench, o: ProjectionOptions): Promise<ProjectionRun> {
  const projectors = b.t.services.filter((s) => s.app === 'projector');
  for (const s of projectors) await stopService(b.t, s);
  await ingestBatched(b.client, { prefix: `${b.run}-backlog-${o.projectors}p`, clients: o.shoes, batchSize: 500, bets: o.bets });
  const records = await published(b, 600_000);
  const start = await projectedOffsets(b.pg, b.topic);
  const backlog = records - start;
  const cpu0 = readClusterCpu(b.t);
  const t0 = nowMs();
  const running = projectors.slice(0, o.projectors);
  for (const s of running) startService(b.t, s);
  let firstAt = NaN;
  let atFirst = start;
  for (;;) {
    const n = await projectedOffsets(b.pg, b.topic);
    if (n > start && !Number.isFinite(firstAt)) [firstAt, atFirst] = [nowMs(), n];
    if (n >= records) break;
    if (nowMs() - t0 > 600_000) throw new Error(`projection: ${n - start} of ${backlog} applied after 600 s`);
    await sleep(50);
  }
  const seconds = (nowMs() - firstAt) / 1000;
  const cpu = cpuDelta(cpu0, readClusterCpu(b.t));
  for (const s of projectors.slice(o.projectors)) startService(b.t, s);
  for (const s of projectors) await waitHealthy(s, 120_000);
  const eventsPerSecond = seconds > 0 ? round((records - atFirst) / seconds) : null;
  say(`projection, ${o.projectors} projector(s): ${backlog} records in ${seconds.toFixed(1)} s (${eventsPerSecond} ev/s)`);
  return { projectors: o.projectors, backlog, startupMs: Math.round(firstAt - t0), seconds: round(seconds, 2)!, eventsPerSecond, cpu, microsPerEvent: microsPerEvent(cpu, backlog) };
}
