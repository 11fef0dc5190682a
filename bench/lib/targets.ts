/**
 * The performance targets (bench/results/README.md "targets"), one row each, computed from the bench's figures:
 * `bench/results/latest.json` keeps them as `targets` (`{name, ours, ceiling, ratio, target, met}`
 * plus units and sizes), and the printed table shows the same rows. Pure: no I/O, so the unit spec
 * (test/bench/targets.unit.spec.ts) checks every verdict.
 *
 * Units: every `ratio` divides two figures in the SAME unit (`ratioMeaning` says which); for
 * throughputs it is ours ÷ ceiling, for latencies floor ÷ ours (≤ 1 either way when the ceiling
 * is a true ceiling), for the append-latency row the 20,000-event stream ÷ the 100-event stream.
 * A figure that was not measured is `null` and its target is `met: false`, never assumed.
 */

/** One row of `targets`. */
export interface TargetRow {
  /** Short name (the table, first words). */
  readonly name: string;
  /** The full wording of the figure. */
  readonly figure: string;
  readonly ours: number | null;
  readonly ceiling: number | null;
  readonly ratio: number | null;
  /** The target, in words. */
  readonly target: string;
  readonly met: boolean;
  /** Unit of `ours` and `ceiling`. */
  readonly unit: string;
  readonly ratioMeaning: string | null;
  /** The size measured (events, bets, rows...), in words. */
  readonly size: string;
  /** True when the size measured differs from the target's (quick mode): `met` is then judged at that size. */
  readonly sizeDiffers: boolean;
  /** Why a figure is missing, or what else the verdict took into account. */
  readonly note?: string;
}

/** The figures the targets are computed from (each null when its phase did not run). */
export interface TargetInputs {
  readonly batched: {
    /** Best batch size's client events per second (facts and bets the clients sent). */
    readonly clientEventsPerSecond: number;
    /** Client events of that run and seconds the COPY of the same rows took. */
    readonly clientEvents: number;
    readonly copySeconds: number | null;
    readonly batchSize: number;
  } | null;
  readonly unbatched: { readonly requestsPerSecond: number; readonly p99Ms: number | null; readonly clients: number; readonly commitsPerSecond: number | null } | null;
  readonly lag: {
    readonly offeredEventsPerSecond: number;
    readonly achievedEventsPerSecond: number | null;
    /** False when the run itself found it not sustained (e.g. requests abandoned far behind schedule). */
    readonly sustained: boolean;
    readonly p99Ms: number | null;
    readonly unprojected: number;
    readonly floorMs: number | null;
    readonly seconds: number;
  } | null;
  readonly round: { readonly bets: number; readonly msMax: number | null; readonly floorMs: number | null } | null;
  readonly relay: { readonly eventsPerSecond: number | null; readonly producerRecordsPerSecond: number | null; readonly producerHasHeaders: boolean; readonly backlog: number } | null;
  readonly rebuild: { readonly events: number; readonly eventsPerSecond: number | null; readonly copyEventsPerSecond: number | null } | null;
  /** Peak RSS (MiB) of each process under the bench; a missing process is null. */
  readonly memory: { readonly api: number | null; readonly relay: number | null; readonly projector: number | null; readonly quick: boolean } | null;
  readonly append: {
    readonly shortEvents: number;
    readonly longEvents: number;
    readonly shortP50: number | null;
    readonly longP50: number | null;
    readonly shortP99: number | null;
    readonly longP99: number | null;
    readonly samples: number;
  } | null;
  readonly audit: { readonly rows: number; readonly p99Ms: number | null; readonly requests: number; readonly failed: number } | null;
}

const div = (a: number | null | undefined, b: number | null | undefined, digits = 3): number | null => {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  const f = 10 ** digits;
  return Math.round((a / b) * f) / f;
};
const r0 = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x));
const r1 = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10);

/** The sizes the targets are stated at. */
export const TARGET_SIZES = { roundBets: 10_000, rebuildEvents: 1_000_000, auditRows: 2_000_000, lagRate: 1000, appendShort: 100, appendLong: 20_000, unbatchedClients: 8 } as const;

/** Within ±20 %: `x / ref` in [0.8, 1.2]. */
export function within20(x: number | null, ref: number | null): boolean {
  const q = div(x, ref, 6);
  return q !== null && q >= 0.8 && q <= 1.2;
}

/** Every target row, in the order. */
export function computeTargets(i: TargetInputs): TargetRow[] {
  const rows: TargetRow[] = [];
  const missing = 'not measured in this run';

  // 1. batched ingest: both numbers in client events/s
  {
    const b = i.batched;
    const ceiling = b && b.copySeconds ? b.clientEvents / b.copySeconds : null;
    const ratio = div(b?.clientEventsPerSecond, ceiling);
    rows.push({
      name: 'batched ingest',
      figure: 'batched ingest (bets in batches, client events/s)',
      ours: r0(b?.clientEventsPerSecond),
      ceiling: r0(ceiling),
      ratio,
      target: '≥ 12,000 client ev/s and ≥ 0.5 × COPY of the same rows in the same units',
      met: !!b && b.clientEventsPerSecond >= 12_000 && ratio !== null && ratio >= 0.5,
      unit: 'client events/s',
      ratioMeaning: 'ours ÷ (the same run’s client events ÷ seconds to COPY every row that run wrote, with its indexes, keys and constraints)',
      size: b ? `batches of ${b.batchSize} bets, ${b.clientEvents} client events` : missing,
      sizeDiffers: false,
      ...(b && ceiling === null ? { note: 'no COPY ceiling measured: the ratio cannot be judged' } : {}),
    });
  }
  // 2. unbatched ingest
  {
    const u = i.unbatched;
    rows.push({
      name: 'unbatched ingest',
      figure: 'unbatched ingest (one bet or fact per request, 8 clients)',
      ours: r0(u?.requestsPerSecond),
      ceiling: r0(u?.commitsPerSecond),
      ratio: div(u?.requestsPerSecond, u?.commitsPerSecond),
      target: '≥ 1,500 req/s, p99 < 50 ms',
      met: !!u && u.requestsPerSecond >= 1500 && u.p99Ms !== null && u.p99Ms < 50,
      unit: 'requests/s (ceiling: independent single-row commits/s, pgbench)',
      ratioMeaning: 'requests/s ÷ commits/s (one commit per request at best)',
      size: u ? `${u.clients} clients, p99 ${u.p99Ms} ms` : missing,
      sizeDiffers: !!u && u.clients !== TARGET_SIZES.unbatchedClients,
    });
  }
  // 3. lag: only a sustained run yields a figure
  {
    const l = i.lag;
    const ok = !!l && l.sustained && l.achievedEventsPerSecond !== null && l.offeredEventsPerSecond > 0 && l.achievedEventsPerSecond >= 0.95 * l.offeredEventsPerSecond;
    const ours = ok ? l!.p99Ms : null;
    rows.push({
      name: 'lag at 1,000 events/s',
      figure: 'lag at 1,000 events/s truly offered (achieved ≥ 95%)',
      ours: r1(ours),
      ceiling: r1(l?.floorMs),
      ratio: ok ? div(l!.floorMs, ours) : null,
      target: 'p99 < 250 ms, scheduled → projected, achieved ≥ 95 % of the offer',
      met: ok && ours !== null && ours < 250 && l!.unprojected === 0 && l!.offeredEventsPerSecond >= TARGET_SIZES.lagRate,
      unit: 'ms (p99, scheduled send → projected)',
      ratioMeaning: 'floor ÷ ours (floor: Kafka producer p99 at 1,000/s + one commit)',
      size: l ? `offered ${l.offeredEventsPerSecond} ev/s for ${l.seconds} s, achieved ${r0(l.achievedEventsPerSecond)} ev/s` : missing,
      sizeDiffers: !!l && l.offeredEventsPerSecond !== TARGET_SIZES.lagRate,
      ...(l && !ok ? { note: `not sustained: achieved ${r0(l.achievedEventsPerSecond)} of ${l.offeredEventsPerSecond} ev/s offered (< 95 %); no lag figure is claimed` } : {}),
      ...(l && ok && l.unprojected > 0 ? { note: `${l.unprojected} request(s) never seen projected` } : {}),
    });
  }
  // 4. the big round
  {
    const r = i.round;
    rows.push({
      name: '10,000-bet round',
      figure: "10,000-bet round, last card's request → every settlement projected",
      ours: r1(r?.msMax),
      ceiling: r1(r?.floorMs),
      ratio: div(r?.floorMs, r?.msMax),
      target: '< 1,000 ms',
      met: !!r && r.msMax !== null && r.msMax < 1000,
      unit: "ms (the last card's request sent → the last settlement projected; worst run)",
      ratioMeaning: 'floor ÷ ours (floor: produce + consume + COPY of the round’s events at the ceilings’ rates)',
      size: r ? `${r.bets} bets` : missing,
      sizeDiffers: !!r && r.bets !== TARGET_SIZES.roundBets,
    });
  }
  // 5. relay
  {
    const r = i.relay;
    const ratio = div(r?.eventsPerSecond, r?.producerRecordsPerSecond);
    rows.push({
      name: 'relay to Kafka',
      figure: 'relay to Kafka',
      ours: r0(r?.eventsPerSecond),
      ceiling: r0(r?.producerRecordsPerSecond),
      ratio,
      target: '≥ 50,000 ev/s and ≥ 0.3 × a producer with the same record size and headers',
      met: !!r && (r.eventsPerSecond ?? 0) >= 50_000 && ratio !== null && ratio >= 0.3 && r.producerHasHeaders,
      unit: 'records/s',
      ratioMeaning: 'events/s ÷ records/s of a Java producer (acks=all) sending records of the relay’s mean size with the relay’s headers',
      size: r ? `backlog of ${r.backlog} events` : missing,
      sizeDiffers: false,
      ...(r && !r.producerHasHeaders ? { note: 'the producer ceiling ran without the relay’s headers: not comparable' } : {}),
    });
  }
  // 6. rebuild
  {
    const r = i.rebuild;
    const ratio = div(r?.eventsPerSecond, r?.copyEventsPerSecond);
    rows.push({
      name: 'rebuild of 1,000,000 events',
      figure: 'rebuild of 1,000,000 events',
      ours: r0(r?.eventsPerSecond),
      ceiling: r0(r?.copyEventsPerSecond),
      ratio,
      target: '≥ 30,000 ev/s and ≥ 0.8 × COPY of its rows with the same indexes',
      met: !!r && (r.eventsPerSecond ?? 0) >= 30_000 && ratio !== null && ratio >= 0.8,
      unit: 'events/s',
      ratioMeaning: 'events/s ÷ (events ÷ seconds to COPY every row the rebuild wrote, same indexes and constraints)',
      size: r ? `${r.events} events` : missing,
      sizeDiffers: !!r && r.events < TARGET_SIZES.rebuildEvents,
    });
  }
  // 7. memory
  {
    const m = i.memory;
    const each = m ? [m.api, m.relay, m.projector] : [];
    const worst = each.some((x) => x === null) ? null : Math.max(...(each as number[]));
    rows.push({
      name: 'peak RSS under the bench',
      figure: 'peak RSS under the bench',
      ours: r1(worst),
      ceiling: null,
      ratio: null,
      target: 'API, relay, projector each < 300 MiB',
      met: !!m && worst !== null && worst < 300,
      unit: 'MiB (VmHWM, the largest of the three)',
      ratioMeaning: null,
      size: m ? `API ${m.api}, relay ${m.relay}, projector ${m.projector} MiB` : missing,
      sizeDiffers: !!m && m.quick,
      ...(m && worst === null ? { note: 'a process did not run: its peak is unknown' } : {}),
    });
  }
  // 8. append latency, short vs long stream
  {
    const a = i.append;
    const okP50 = !!a && within20(a.longP50, a.shortP50);
    const okP99 = !!a && within20(a.longP99, a.shortP99);
    rows.push({
      name: 'append latency 100 vs 20,000',
      figure: 'append latency, stream of 100 vs 20,000 events',
      ours: r1(a?.longP50),
      ceiling: r1(a?.shortP50),
      ratio: div(a?.longP50, a?.shortP50),
      target: 'within ±20 % (p50 and p99)',
      met: okP50 && okP99,
      unit: 'ms (p50 of one-bet appends; ours = the long stream, ceiling = the short stream)',
      ratioMeaning: 'long-stream latency ÷ short-stream latency (1 = flat); p99 ratio in size',
      size: a ? `${a.shortEvents} vs ${a.longEvents} events, ${a.samples} appends each, p99 ${a.shortP99} vs ${a.longP99} ms (ratio ${div(a.longP99, a.shortP99)})` : missing,
      sizeDiffers: !!a && (a.shortEvents > 2 * TARGET_SIZES.appendShort || a.longEvents < TARGET_SIZES.appendLong),
    });
  }
  // 9. audit page
  {
    const a = i.audit;
    rows.push({
      name: 'audit page over ≥ 2,000,000 events',
      figure: 'audit page (filters + keyset) over ≥ 2,000,000 events',
      ours: r1(a?.p99Ms),
      ceiling: null,
      ratio: null,
      target: 'p99 < 100 ms',
      met: !!a && a.failed === 0 && a.p99Ms !== null && a.p99Ms < 100 && a.rows >= TARGET_SIZES.auditRows,
      unit: 'ms (p99 of GET /audit/events pages, every filter combination, first and keyset pages)',
      ratioMeaning: null,
      size: a ? `${a.rows} rows in audit_events, ${a.requests} pages` : missing,
      sizeDiffers: !!a && a.rows < TARGET_SIZES.auditRows,
      ...(a && a.failed > 0 ? { note: `${a.failed} page request(s) failed` } : {}),
    });
  }
  return rows;
}
