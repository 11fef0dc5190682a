/**
 * The cluster bench's sizing table and its printed summary (docs/development.md, "Benchmarks", "On
 * the cluster"): CPU microseconds per event by service, from the runs with both API instances, and
 * the 1-vs-2 instance ratios.
 */
import { renderTable } from '../lib/report';
import type { CpuGroup } from './meter';
import type { IngestRun, ProjectionRun } from './phases';

/** One row of the sizing table: a service's CPU per event under each load, and the cores 1,000 events/s of that load need. */
export interface SizingRow {
  /** A service, or `total` (their sum). */
  readonly service: CpuGroup | 'total';
  /** Cores the service's instances use at rest. */
  readonly idleCores: number | null;
  /** CPU µs per event above rest, one bet or fact per request. */
  readonly unbatchedMicros: number | null;
  /** CPU µs per event above rest, bets in batches. */
  readonly batchedMicros: number | null;
}

const GROUPS: readonly CpuGroup[] = ['api', 'relay', 'projector', 'postgres', 'kafka', 'front'];

/** The sizing table from the rest and the ingest runs with 2 API instances (the topology as deployed). */
export function sizingTable(ingest: readonly IngestRun[], idle: Record<CpuGroup, number>): SizingRow[] {
  const two = (kind: IngestRun['kind']) => ingest.find((r) => r.apis === 2 && r.kind === kind);
  const u = two('unbatched');
  const b = two('batched');
  const rows: SizingRow[] = GROUPS.map((service) => ({
    service,
    idleCores: idle[service],
    unbatchedMicros: u?.marginalMicrosPerEvent[service] ?? null,
    batchedMicros: b?.marginalMicrosPerEvent[service] ?? null,
  }));
  const total = (k: 'idleCores' | 'unbatchedMicros' | 'batchedMicros') => (rows.every((r) => r[k] !== null) ? Math.round(rows.reduce((n, r) => n + (r[k] as number), 0) * 1000) / 1000 : null);
  return [...rows, { service: 'total', idleCores: total('idleCores'), unbatchedMicros: total('unbatchedMicros'), batchedMicros: total('batchedMicros') }];
}

/** `b ÷ a` to three places, or null. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a && b ? Math.round((b / a) * 1000) / 1000 : null;
}

/** What {@link renderCluster} prints. */
export interface ClusterResults {
  readonly ingest: readonly IngestRun[];
  readonly projection: readonly ProjectionRun[];
  readonly sizing: readonly SizingRow[];
}

const num = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toLocaleString('en-US'));

/** The figures as text: the 1-vs-2 instance table, then the sizing table. */
export function renderCluster(r: ClusterResults): string {
  const run = (kind: IngestRun['kind'], apis: number) => r.ingest.find((x) => x.kind === kind && x.apis === apis);
  const proj = (n: number) => r.projection.find((x) => x.projectors === n);
  const scaling = renderTable('1 vs 2 instances (cluster)', [
    ...(['unbatched', 'batched'] as const).map((kind) => {
      const [a, b] = [run(kind, 1), run(kind, 2)];
      return {
        figure: `ingest ${kind} (client events/s), 1 → 2 APIs`,
        ours: `${num(a?.load.clientEventsPerSecond)} → ${num(b?.load.clientEventsPerSecond)}`,
        ceiling: `busy cores ${a?.machineBusyCores ?? '–'} → ${b?.machineBusyCores ?? '–'} of ${a?.cores ?? '–'}`,
        ratio: ratio(a?.load.clientEventsPerSecond, b?.load.clientEventsPerSecond),
      };
    }),
    { figure: 'projection of a backlog (events/s), 1 → 2 projectors', ours: `${num(proj(1)?.eventsPerSecond)} → ${num(proj(2)?.eventsPerSecond)}`, ceiling: '', ratio: ratio(proj(1)?.eventsPerSecond, proj(2)?.eventsPerSecond) },
  ]);
  const head = ['service', 'cores at rest', 'CPU µs/event above rest, unbatched', 'batched'];
  const cells = r.sizing.map((s) => [s.service, String(s.idleCores ?? '–'), num(s.unbatchedMicros), num(s.batchedMicros)]);
  const sizing = ['sizing (2 APIs; every instance of the service)', head.join(' | '), ...cells.map((c) => c.join(' | '))].join('\n');
  return `${scaling}\n${sizing}\n`;
}
