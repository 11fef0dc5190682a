/**
 * What every phase of the bench shares (bench/run.ts, bench/steps.ts): the configured addresses
 * (bench/lib/config.ts), the sizes, the run's topics and folders, the connections, the results
 * being filled and the failures recorded (bench/lib/contain.ts); and the services the phases start
 * (the API, the relay, the projector as child processes from dist/, each given the configured
 * brokers and database) with their CPU meters and peak memory.
 */
import { join } from 'node:path';
import { cpus } from 'node:os';
import { heapOption, SERVICE_HEAP_MIB, type HeapSizedService } from '@ledger/config';
import { significantEventsTopicOf } from '@ledger/infra';
import type { KafkaAdmin, KafkaClient } from '@ledger/kafka';
import type { LedgerClient } from '@ledger/simulator';
import type { BenchConfig } from './config';
import type { Pg } from './pg';
import { startNodeService, stopService, type Service } from './procs';
import { cpuSecondsOf, machineCpu, round, say, waitFor } from './util';
import type { CopyExport, RecordSample } from '../phases/ceilings';

/** Sizes of one run: the full run, or the quick run for CI (every figure by the same code, small). */
export function sizesFor(quick: boolean) {
  return quick
    ? {
        unbatched: { clients: 4, seconds: 4, betsPerRound: 20 },
        batched: { clients: 2, sizes: [500, 2000], betsPerSize: 6000 },
        append: { shortEvents: 100, longEvents: 20_000, samples: 60, perShortShoe: 10 },
        lag: { rate: 1000, seconds: 6, warmupSeconds: 1, shoes: 64, pollMs: 5 },
        round: { bets: 1000, batchSize: 1000, runs: 1 },
        audit: { rows: 100_000, values: 2, pages: 3 },
        significant: { clients: 4, seconds: 12, betsPerRound: 20, maxShoes: 4 },
        rebuild: { events: 20_000, concurrency: 2, maxRecordsPerTx: 5000 },
        pgbench: { seconds: 2, clients: 8 },
        producer: { records: 100_000, latencySeconds: 3, sampleRecords: 2000 },
      }
    : {
        unbatched: { clients: 8, seconds: 15, betsPerRound: 20 },
        batched: { clients: 3, sizes: [500, 2000, 10000], betsPerSize: 60_000 },
        append: { shortEvents: 100, longEvents: 20_000, samples: 300, perShortShoe: 10 },
        lag: { rate: 1000, seconds: 20, warmupSeconds: 3, shoes: 96, pollMs: 5 },
        round: { bets: 10_000, batchSize: 10_000, runs: 3 },
        audit: { rows: 2_000_000, values: 6, pages: 4 },
        significant: { clients: 8, seconds: 30, betsPerRound: 20, maxShoes: 12 },
        rebuild: { events: 1_000_000, concurrency: 2, maxRecordsPerTx: 5000 },
        pgbench: { seconds: 5, clients: 8 },
        producer: { records: 1_000_000, latencySeconds: 10, sampleRecords: 5000 },
      };
}

/** The sizes of a run ({@link sizesFor}). */
export type Sizes = ReturnType<typeof sizesFor>;

/** Peak memory (MiB, VmHWM) and CPU seconds of one process the bench ran. */
export interface ProcessFigures {
  peakMiB: number;
  cpuSeconds: number | null;
  note?: string;
}

/** The topics of one run, `bench.<run>.*`. */
export function topicsOf(run: string) {
  return {
    ingest: `bench.${run}.ingest`,
    live: `bench.${run}.live`,
    /** The live topic's significant events' copy (the relay's `significantEventsTopicOf`), created with the others so a reader can subscribe first. */
    liveSignificant: significantEventsTopicOf(`bench.${run}.live`),
    rebuild: `bench.${run}.rebuild`,
    perf: `bench.${run}.perf`,
    roundOutcomes: `bench.${run}.analytics.round-outcomes`,
    settlements: `bench.${run}.analytics.settlements`,
    roads: `bench.${run}.analytics.roads`,
  };
}

/** Everything the phases share; connections and services are set as the run goes. */
export interface BenchContext {
  readonly run: string;
  readonly quick: boolean;
  readonly profile: boolean;
  readonly config: BenchConfig;
  readonly sizes: Sizes;
  readonly topics: ReturnType<typeof topicsOf>;
  readonly dirs: { readonly log: string; readonly tmp: string; readonly profile: string };
  readonly readSchema: string;
  readonly rebuildSchema: string;
  readonly want: (phase: string) => boolean;
  /** Figures by phase (latest.json). */
  readonly results: Record<string, unknown>;
  readonly memory: Record<string, ProcessFigures>;
  /** Phase or ceiling name → error message (bench/lib/contain.ts). */
  readonly failures: Record<string, string>;
  readonly exports: Record<string, CopyExport>;
  pg: (Pg & { end(): Promise<void> }) | null;
  kafka: KafkaClient | null;
  admin: KafkaAdmin | null;
  client: LedgerClient | null;
  recordSample: RecordSample | null;
  api: Service | null;
  relay: Service | null;
  projector: Service | null;
}

/** The services running now. */
export const liveServices = (c: BenchContext): Service[] => [c.api, c.relay, c.projector].filter((s): s is Service => s !== null);

/**
 * `node` options of a service: its heap as production runs it (SERVICE_HEAP_MIB: the API's instances
 * `api*` as `ledger`), and `--cpu-prof` into the profile folder when profiling.
 */
export function nodeArgs(c: BenchContext, name: string): string[] {
  const service = name.startsWith('api') ? 'ledger' : name;
  const heap = service in SERVICE_HEAP_MIB ? [heapOption(service as HeapSizedService)] : [];
  return [...heap, ...(c.profile ? ['--cpu-prof', '--cpu-prof-dir', join(c.dirs.profile, name)] : [])];
}

/** Stops a service by its pid and keeps its peak memory and CPU under `key` (summed over its instances). */
export async function stopAndRecord(c: BenchContext, s: Service | null, key: string): Promise<void> {
  if (!s) return;
  const r = await stopService(s);
  const prev = c.memory[key];
  c.memory[key] = { peakMiB: Math.max(prev?.peakMiB ?? 0, r.peakMiB), cpuSeconds: (prev?.cpuSeconds ?? 0) + (r.cpuSeconds ?? 0) };
  say(`stopped ${s.name} (pid ${s.pid}): peak RSS ${r.peakMiB} MiB, CPU ${r.cpuSeconds} s, exit ${r.exitCode}`);
}

/** CPU seconds of the PostgreSQL backends serving the bench database, by pid. */
async function backendCpu(c: BenchContext, pg: Pg): Promise<Map<number, number>> {
  const { rows } = await pg.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [c.config.databaseName]);
  return new Map(rows.map((r: { pid: number }) => [r.pid, cpuSecondsOf(r.pid) ?? 0]));
}

/**
 * Starts a CPU meter over a phase; the function it returns gives the CPU seconds since, per
 * service, of the PostgreSQL backends, of the bench itself, and the machine's busy cores.
 */
export async function cpuMeter(c: BenchContext, pg: Pg) {
  const m0 = machineCpu();
  const self0 = cpuSecondsOf('self') ?? 0;
  const p0 = new Map(liveServices(c).map((s) => [s.name, cpuSecondsOf(s.pid) ?? 0]));
  const b0 = await backendCpu(c, pg);
  return async () => {
    const m1 = machineCpu();
    const b1 = await backendCpu(c, pg);
    let backends = 0;
    for (const [pid, x] of b1) backends += x - (b0.get(pid) ?? 0);
    const out: Record<string, number | null> = {
      machineBusyCores: round((m1.busy - m0.busy) / ((m1.total - m0.total) / cpus().length), 2),
      postgresBackendsCpuSeconds: round(backends, 2),
      benchCpuSeconds: round((cpuSecondsOf('self') ?? 0) - self0, 2),
    };
    for (const s of liveServices(c)) out[`${s.name}CpuSeconds`] = round((cpuSecondsOf(s.pid) ?? 0) - (p0.get(s.name) ?? 0), 2);
    return out;
  };
}

/** Starts the API on 127.0.0.1:BENCH_PORT writing to `topic`, and waits for /health. @throws Error when it exits or does not answer in 60 s */
export async function startApi(c: BenchContext, topic: string, label: string): Promise<Service> {
  const env = { PORT: String(c.config.port), HOST: '127.0.0.1', DATABASE_URL: c.config.databaseUrl, LEDGER_EVENTS_TOPIC: topic, READ_SCHEMA: c.readSchema, LOG_LEVEL: 'warn' };
  const api = startNodeService(label, 'apps/ledger/src/main.js', env, c.dirs.log, nodeArgs(c, label));
  c.api = api;
  await waitFor(
    'the API to answer /health',
    async () => {
      if (api.exitCode !== null) throw new Error(`${label} exited (${api.exitCode}); see ${api.logFile}`);
      return fetch(`http://127.0.0.1:${c.config.port}/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    60_000,
    200,
  );
  say(`${label} up (pid ${api.pid}) on :${c.config.port}, topic ${topic}`);
  return api;
}

/** Starts the relay (the configured database and brokers) unless it runs. */
export function startRelay(c: BenchContext): Service {
  c.relay ??= startNodeService('relay', 'apps/relay/src/main.js', { DATABASE_URL: c.config.databaseUrl, KAFKA_BROKERS: c.config.brokers.join(','), RELAY_HTTP_PORT: '0', LOG_LEVEL: 'warn' }, c.dirs.log, nodeArgs(c, 'relay'));
  return c.relay;
}

/** Starts the projector on the live topic into the bench's read schema (the configured database and brokers). */
export function startProjector(c: BenchContext): Service {
  const env = {
    DATABASE_URL: c.config.databaseUrl,
    KAFKA_BROKERS: c.config.brokers.join(','),
    LEDGER_EVENTS_TOPIC: c.topics.live,
    PROJECTOR_GROUP: `bench-projector-${c.run}`,
    PROJECTIONS_SCHEMA: c.readSchema,
    ANALYTICS_ROUND_OUTCOMES_TOPIC: c.topics.roundOutcomes,
    ANALYTICS_SETTLEMENTS_TOPIC: c.topics.settlements,
    ANALYTICS_ROADS_TOPIC: c.topics.roads,
    PROJECTOR_HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  c.projector = startNodeService('projector', 'apps/projector/src/main.js', env, c.dirs.log, nodeArgs(c, 'projector'));
  return c.projector;
}
