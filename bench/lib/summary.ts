/**
 * From the run's `results` (bench/run.ts) to the two printed tables: {@link targetInputs} feeds
 * bench/lib/targets.ts (the targets, `targets` in latest.json), {@link detailRows} is the
 * figures table (`table` in latest.json). Every ratio divides two figures in the same unit.
 */
import type { IngestFigures } from '../phases/ingest';
import type { LagFigures } from '../phases/lag';
import type { RoundFigures } from '../phases/round';
import type { RelayFigures } from '../phases/relay';
import type { AppendFigures } from '../phases/append';
import type { AuditFigures } from '../phases/audit';
import type { CommitCeiling, ConsumerCeiling, CopyCeiling, HeaderProducerCeiling, ProducerCeiling } from '../phases/ceilings';
import type { Row } from './report';
import { computeTargets, TARGET_SIZES, type TargetInputs } from './targets';
import { fmtInt, round } from './util';

interface Ceilings {
  copyIngest?: Record<string, CopyCeiling>;
  copyRebuild?: CopyCeiling & { events: number };
  commits?: CommitCeiling;
  producer?: HeaderProducerCeiling;
  producerAt1000?: HeaderProducerCeiling;
  producerPerformanceNoHeaders?: ProducerCeiling;
  consumer?: ConsumerCeiling;
}

type Results = Record<string, unknown>;
const ceilingsOf = (r: Results) => (r.ceilings ?? {}) as Ceilings;
const ingestOf = (r: Results) => r.ingest as { unbatched?: IngestFigures; batched?: Record<string, IngestFigures> } | undefined;

/** The batch size the batched-ingest target is judged at (500 bets a request), and its figures; null when not measured. */
function targetBatch(r: Results): { size: string; f: IngestFigures } | null {
  const size = String(TARGET_SIZES.batchedBets);
  const f = ingestOf(r)?.batched?.[size];
  return f ? { size, f } : null;
}

/** µs of CPU per bet (API + PostgreSQL backends serving the bench database ÷ bets) of each batch size measured. */
export function perBetCost(r: Results): { batchSize: number; microsPerBet: number | null }[] {
  return Object.entries(ingestOf(r)?.batched ?? {})
    .map(([size, f]) => {
      const cpu = (f as IngestFigures & { cpu?: Record<string, number | null> }).cpu;
      const api = cpu?.apiCpuSeconds;
      const pg = cpu?.postgresBackendsCpuSeconds;
      const ok = typeof api === 'number' && typeof pg === 'number' && f.bets > 0;
      return { batchSize: Number(size), microsPerBet: ok ? round(((api + pg) * 1e6) / f.bets, 1) : null };
    })
    .sort((a, b) => a.batchSize - b.batchSize);
}

/** The lag floor: the producer's p99 at 1,000 records/s with the relay's records + one commit (ms). */
function lagFloor(ce: Ceilings): number | null {
  const p99 = ce.producerAt1000?.latencyMs.p99;
  const c = ce.commits;
  if (p99 === null || p99 === undefined || !c?.independentCommitsPerSecond) return null;
  return p99 + 1000 / (c.independentCommitsPerSecond / c.clients);
}

/** Rebuild COPY ceiling in events/s: the rebuild's events ÷ seconds to COPY all its rows. */
function rebuildCopyRate(ce: Ceilings): number | null {
  const c = ce.copyRebuild;
  return c && c.seconds > 0 ? c.events / c.seconds : null;
}

/** The round floor: produce + consume + COPY of the round's events at the ceilings' rates (ms). */
function roundFloor(ce: Ceilings, bets: number): number | null {
  const n = bets + 2;
  const copy = rebuildCopyRate(ce);
  if (!ce.producer?.recordsPerSecond || !ce.consumer?.recordsPerSecond || !copy) return null;
  return (n / ce.producer.recordsPerSecond + n / ce.consumer.recordsPerSecond + n / copy) * 1000;
}

/** The run's outcome beside its figures: what failed (name → error message) and which phases `--only` left out. */
export interface RunOutcome {
  readonly quick: boolean;
  readonly failures: Readonly<Record<string, string>>;
  readonly skipped: readonly string[];
}

/** What {@link computeTargets} needs, from the results (figures of failed phases are absent, their failures named). */
export function targetInputs(r: Results, o: RunOutcome): TargetInputs {
  const quick = o.quick;
  const ce = ceilingsOf(r);
  const ing = ingestOf(r);
  const best = targetBatch(r);
  const lag = r.lag as LagFigures | undefined;
  const rnd = r.round as RoundFigures | undefined;
  const rel = r.relay as RelayFigures | undefined;
  const reb = r.rebuild as { events: number; eventsPerSecond: number } | undefined;
  const mem = r.memoryMiB as Record<string, { peakMiB: number }> | undefined;
  const app = r.append as AppendFigures | undefined;
  const aud = r.audit as AuditFigures | undefined;
  const peak = (k: string) => (mem?.[k] && Number.isFinite(mem[k].peakMiB) && mem[k].peakMiB > 0 ? mem[k].peakMiB : null);
  return {
    batched: best ? { clientEventsPerSecond: best.f.clientEventsPerSecond ?? 0, clientEvents: best.f.clientEvents, copySeconds: ce.copyIngest?.[`ingest${best.size}`]?.seconds ?? null, batchSize: Number(best.size) } : null,
    unbatched: ing?.unbatched
      ? { requestsPerSecond: ing.unbatched.requestsPerSecond ?? 0, p99Ms: ing.unbatched.latencyMs.all.p99, clients: ing.unbatched.clients, commitsPerSecond: ce.commits?.independentCommitsPerSecond ?? null }
      : null,
    lag: lag
      ? {
          offeredEventsPerSecond: lag.offeredEventsPerSecond,
          achievedEventsPerSecond: lag.achievedEventsPerSecond,
          sustained: lag.sustained,
          p99Ms: lag.lagMs?.p99 ?? null,
          unprojected: lag.unprojected,
          floorMs: lagFloor(ce),
          seconds: lag.seconds,
        }
      : null,
    round: rnd ? { bets: rnd.bets, msMax: rnd.projectedMsMax, floorMs: roundFloor(ce, rnd.bets) } : null,
    relay: rel ? { eventsPerSecond: rel.eventsPerSecond, producerRecordsPerSecond: ce.producer?.recordsPerSecond ?? null, producerHasHeaders: (ce.producer?.meanHeaders ?? 0) > 0, backlog: rel.backlog } : null,
    rebuild: reb ? { events: reb.events, eventsPerSecond: reb.eventsPerSecond, copyEventsPerSecond: rebuildCopyRate(ce) } : null,
    memory: mem ? { api: peak('api'), relay: peak('relay'), projector: peak('projector'), quick } : null,
    append: app ? { shortEvents: app.shortEvents, longEvents: app.longEvents, shortP50: app.short.p50, longP50: app.long.p50, shortP99: app.short.p99, longP99: app.long.p99, samples: app.samples } : null,
    audit: aud ? { rows: aud.rows, p99Ms: aud.pageMs.p99, requests: aud.requests, failed: aud.failed } : null,
    perBetCost: ing?.batched ? perBetCost(r) : null,
    failures: o.failures,
    skipped: o.skipped,
  };
}

/**
 * Completes the results of a run, whatever failed: `failures` (name → error message; {} when none),
 * `skipped`, `targets` (every target row, each 'met', 'not met' or 'not measured' with its reason)
 * and `table` (the figures that were measured). Mutates and returns `r`.
 */
export function finishResults(r: Results, o: RunOutcome): Results {
  r.failures = { ...o.failures };
  r.skipped = [...o.skipped];
  r.targets = computeTargets(targetInputs(r, o));
  r.table = detailRows(r);
  return r;
}

/** The figures table (every phase that ran), each figure next to its ceiling. */
export function detailRows(r: Results): Row[] {
  const rows: Row[] = [];
  const ce = ceilingsOf(r);
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? round(a / b, 3) : null);
  const ing = ingestOf(r);
  if (ing?.unbatched) {
    const u = ing.unbatched;
    rows.push({
      figure: `ingest unbatched, 1 bet/fact a request (${u.clients} clients)`,
      ours: `${fmtInt(u.requestsPerSecond)} req/s (${fmtInt(u.eventsPerSecond)} ev/s), p50/p99 ${u.latencyMs.all.p50}/${u.latencyMs.all.p99} ms`,
      ceiling: ce.commits ? `${fmtInt(ce.commits.independentCommitsPerSecond)} commits/s (pgbench; ${fmtInt(ce.commits.serialisedCommitsPerSecond)}/s via 1 counter row)` : '–',
      ratio: ratio(u.requestsPerSecond, ce.commits?.independentCommitsPerSecond),
    });
  }
  for (const [size, f] of Object.entries(ing?.batched ?? {})) {
    const c = ce.copyIngest?.[`ingest${size}`];
    const copyRate = c && c.seconds > 0 ? f.clientEvents / c.seconds : null;
    rows.push({
      figure: `ingest batched, ${size} bets a request (${f.clients} clients)`,
      ours: `${fmtInt(f.clientEventsPerSecond)} client ev/s (${fmtInt(f.eventsPerSecond)} stored), bets p50/p99 ${f.latencyMs.bets?.p50}/${f.latencyMs.bets?.p99} ms`,
      ceiling: c ? `${fmtInt(copyRate)} client ev/s (COPY of its ${fmtInt(c.rows)} rows in ${Object.keys(c.tables).length} tables, ${c.indexes} indexes, ${c.foreignKeys} FKs: ${c.seconds} s)` : '–',
      ratio: ratio(f.clientEventsPerSecond, copyRate),
    });
  }
  return [...rows, ...liveRows(r, ce)];
}

/** The figures table's rows after the ingest: append, relay, lag, round, audit, rebuild. */
function liveRows(r: Results, ce: Ceilings): Row[] {
  const rows: Row[] = [];
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? round(a / b, 3) : null);
  const app = r.append as AppendFigures | undefined;
  if (app) {
    rows.push({
      figure: `append 1 bet, stream of ${fmtInt(app.longEvents)} vs ${fmtInt(app.shortEvents)} events`,
      ours: `p50/p99 ${app.long.p50}/${app.long.p99} ms`,
      ceiling: `p50/p99 ${app.short.p50}/${app.short.p99} ms on ${app.shortEvents} events`,
      ratio: ratio(app.long.p50, app.short.p50),
    });
  }
  const rel = r.relay as (RelayFigures & { records?: { meanValueBytes: number; meanHeaders: number } }) | undefined;
  if (rel) {
    rows.push({
      figure: `relay → Kafka (backlog ${fmtInt(rel.backlog)}, ${rel.records?.meanValueBytes} B + ${rel.records?.meanHeaders} headers)`,
      ours: `${fmtInt(rel.eventsPerSecond)} ev/s`,
      ceiling: ce.producer ? `${fmtInt(ce.producer.recordsPerSecond)} rec/s (Java producer, same records and headers; ProducerPerformance without headers ${fmtInt(ce.producerPerformanceNoHeaders?.recordsPerSecond)})` : '–',
      ratio: ratio(rel.eventsPerSecond, ce.producer?.recordsPerSecond),
    });
  }
  const lag = r.lag as LagFigures | undefined;
  if (lag) {
    const floor = lagFloor(ce);
    const l = lag.lagMs;
    rows.push({
      figure: `lag scheduled → projected, ${fmtInt(lag.offeredEventsPerSecond)} ev/s offered ${lag.seconds} s (open loop)`,
      ours: lag.sustained && l ? `p50/p99 ${l.p50}/${l.p99} ms (achieved ${fmtInt(lag.achievedEventsPerSecond)} ev/s)` : `NOT SUSTAINED: achieved ${fmtInt(lag.achievedEventsPerSecond)} ev/s`,
      ceiling: floor !== null ? `floor ${round(floor, 1)} ms (producer p99 at 1,000/s + a commit)` : '–',
      ratio: floor !== null && lag.sustained && l?.p99 ? round(floor / l.p99, 3) : null,
    });
    const st = Object.entries(lag.stagesMs)
      .map(([k, v]) => `${k} ${v.p50}/${v.p99}`)
      .join(', ');
    rows.push({ figure: '  lag stages p50/p99 ms (see stageMeaning)', ours: st, ceiling: `${lag.stageClockInversions} clock inversion(s) clamped`, ratio: null });
  }
  const rnd = r.round as RoundFigures | undefined;
  if (rnd) {
    const floor = roundFloor(ce, rnd.bets);
    rows.push({
      figure: `round of ${fmtInt(rnd.bets)} bets: last card's request → all settled in the read model`,
      ours: `${rnd.runs.map((x) => fmtInt(x.projectedMs)).join(' / ')} ms (its 201 after ${rnd.runs.map((x) => fmtInt(x.lastCardRequestMs)).join(' / ')} ms)`,
      ceiling: floor !== null ? `floor ${fmtInt(floor)} ms (produce+consume+COPY ${fmtInt(rnd.bets + 2)} ev)` : '–',
      ratio: floor !== null && rnd.projectedMsMax ? round(floor / rnd.projectedMsMax, 3) : null,
    });
  }
  const aud = r.audit as AuditFigures | undefined;
  if (aud) {
    rows.push({
      figure: `audit pages (${Object.keys(aud.byFilter).length} filter sets, keyset) over ${fmtInt(aud.rows)} rows`,
      ours: `p50/p99 ${aud.pageMs.p50}/${aud.pageMs.p99} ms, ${aud.requests} pages, ${aud.failed} failed`,
      ceiling: '–',
      ratio: null,
    });
  }
  const reb = r.rebuild as { events: number; eventsPerSecond: number; durationMs: number; scoped?: ScopedFigure | null } | undefined;
  if (reb) {
    const copy = rebuildCopyRate(ce);
    rows.push({
      figure: `rebuild from offset 0 (${fmtInt(reb.events)} events)`,
      ours: `${fmtInt(reb.eventsPerSecond)} ev/s`,
      ceiling: `${fmtInt(copy)} ev/s COPY of its rows (${ce.copyRebuild?.strategy ?? '–'}); ${fmtInt(ce.consumer?.recordsPerSecond)} rec/s ConsumerPerf.`,
      ratio: ratio(reb.eventsPerSecond, copy),
    });
    const sc = reb.scoped;
    if (sc) {
      rows.push({
        figure: `scoped rebuild: ${sc.tableId} on ${sc.gamingDay} (${fmtInt(sc.events)} events applied)`,
        ours: `${fmtInt(sc.durationMs)} ms, rows ${sc.equal ? 'equal' : 'DIFFERENT'}`,
        ceiling: `full rebuild: ${fmtInt(reb.durationMs)} ms`,
        ratio: null,
      });
    }
  }
  return rows;
}

/** The bench rebuild worker's scoped rebuild (bench/rebuild-worker.ts `scopedFigures`). */
interface ScopedFigure {
  readonly tableId: string;
  readonly gamingDay: string;
  readonly events: number;
  readonly durationMs: number;
  readonly equal: boolean;
}
