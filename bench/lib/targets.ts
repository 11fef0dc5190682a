/**
 * The performance targets (bench/results/README.md "targets"), one row each, computed from the bench's figures:
 * `bench/results/latest.json` keeps them as `targets` (`{name, ours, ceiling, ratio, target, met}`
 * plus units and sizes), and the printed table shows the same rows. Pure: no I/O, so the unit spec
 * (test/bench/targets.unit.spec.ts) checks every verdict.
 *
 * Units: every `ratio` divides two figures in the SAME unit (`ratioMeaning` says which); for
 * throughputs it is ours ÷ ceiling, for latencies floor ÷ ours (≤ 1 either way when the ceiling
 * is a true ceiling), for the append-latency row the 20,000-event stream ÷ the 100-event stream.
 * A figure that was not measured is `null` and its target is `met: false`, never assumed; its
 * `status` is then 'not measured' and `reason` says why (the phase or ceiling that failed, with its
 * error, or that it did not run in this run).
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
  /** 'met', 'not met', or 'not measured' (a figure the verdict needs is missing: `reason` says why). */
  readonly status: TargetStatus;
  /** Why the target was not measured (only with status 'not measured'). */
  readonly reason?: string;
}

/** A target's verdict. */
export type TargetStatus = 'met' | 'not met' | 'not measured';

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
  /** CPU per bet (µs: API + PostgreSQL backends ÷ bets) of each batch size measured, e.g. 500, 2,000, 10,000. */
  readonly perBetCost?: readonly { readonly batchSize: number; readonly microsPerBet: number | null }[] | null;
  /** The phases and ceilings that failed in this run (`failures` in latest.json: name → error message). */
  readonly failures?: Readonly<Record<string, string>>;
  /** The phases that did not run in this run (`--only`). */
  readonly skipped?: readonly string[];
}

const div = (a: number | null | undefined, b: number | null | undefined, digits = 3): number | null => {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  const f = 10 ** digits;
  return Math.round((a / b) * f) / f;
};
const r0 = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x));
const r1 = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10);

/** The sizes the targets are stated at. */
export const TARGET_SIZES = {
  batchedBets: 500,
  costSmallBets: 500,
  costLargeBets: 10_000,
  roundBets: 10_000,
  rebuildEvents: 1_000_000,
  auditRows: 2_000_000,
  lagRate: 1000,
  appendShort: 100,
  appendLong: 20_000,
  unbatchedClients: 8,
} as const;

/** Within ±20 %: `x / ref` in [0.8, 1.2]. */
export function within20(x: number | null, ref: number | null): boolean {
  const q = div(x, ref, 6);
  return q !== null && q >= 0.8 && q <= 1.2;
}

/** A row before its verdict: `measured` says whether every figure the verdict needs is there. */
type Draft = Omit<TargetRow, 'status' | 'reason'> & {
  readonly measured: boolean;
  /** The phases and ceilings whose failure leaves the row unmeasured, e.g. 'ingest.batched', 'ceilings.producer' (a failure named so or under it). */
  readonly phases: readonly string[];
  /** The `--only` phases the row needs, e.g. 'ingest', 'ceilings'. */
  readonly needs: readonly string[];
  /** Why it is not measured when no phase failed nor was left out (e.g. a size the run does not measure). */
  readonly missing?: string;
};

const MISSING = 'not measured in this run';

/** Why a row is not measured: the failures of its phases, else the phases left out, else the row's own reason. */
function missingReason(d: Draft, i: TargetInputs): string {
  const phases = ['setup', ...d.phases];
  const failed = Object.entries(i.failures ?? {}).filter(([k]) => phases.some((p) => k === p || k.startsWith(`${p}.`)));
  if (failed.length > 0) return failed.map(([k, e]) => `${k} failed: ${e}`).join('; ');
  const skipped = d.needs.filter((p) => i.skipped?.includes(p));
  if (skipped.length > 0) return `not run in this run (--only): ${skipped.join(', ')}`;
  return d.missing ?? MISSING;
}

/** The verdict of a row: 'not measured' (with its reason) when a figure it needs is missing. */
function finish(d: Draft, i: TargetInputs): TargetRow {
  const { measured, phases: _phases, needs: _needs, missing: _missing, ...row } = d;
  if (!measured) return { ...row, met: false, status: 'not measured', reason: missingReason(d, i) };
  return { ...row, status: row.met ? 'met' : 'not met' };
}

/** Batched ingest at 500 bets a request, against the COPY of the same rows (both in client events/s). */
function batchedRow(i: TargetInputs): Draft {
  const b = i.batched;
  const ceiling = b && b.copySeconds ? b.clientEvents / b.copySeconds : null;
  const ratio = div(b?.clientEventsPerSecond, ceiling);
  return {
    name: 'batched ingest',
    figure: 'batched ingest, 500 bets a request (client events/s)',
    ours: r0(b?.clientEventsPerSecond),
    ceiling: r0(ceiling),
    ratio,
    target: '≥ 12,000 client ev/s and ≥ 0.5 × COPY of the same rows in the same units',
    met: !!b && b.clientEventsPerSecond >= 12_000 && ratio !== null && ratio >= 0.5,
    unit: 'client events/s',
    ratioMeaning: 'ours ÷ (the same run’s client events ÷ seconds to COPY every row that run wrote, with its indexes, keys and constraints)',
    size: b ? `batches of ${b.batchSize} bets, ${b.clientEvents} client events` : MISSING,
    sizeDiffers: !!b && b.batchSize !== TARGET_SIZES.batchedBets,
    measured: !!b && ratio !== null,
    phases: ['ingest.api', 'ingest.batched.500', 'ceilings.copyIngest.ingest500'],
    needs: ['ingest', 'ceilings'],
    ...(b && ceiling === null ? { note: 'no COPY ceiling measured: the ratio cannot be judged' } : {}),
  };
}

/** CPU per bet of a 10,000-bet request against a 500-bet one (2,000 shown beside them). */
function perBetCostRow(i: TargetInputs): Draft {
  const sizes = i.perBetCost ?? [];
  const at = (n: number) => sizes.find((s) => s.batchSize === n)?.microsPerBet ?? null;
  const small = at(TARGET_SIZES.costSmallBets);
  const large = at(TARGET_SIZES.costLargeBets);
  const ratio = div(large, small);
  const side = sizes.map((s) => `${s.batchSize.toLocaleString('en-US')}: ${r1(s.microsPerBet) ?? '–'} µs`).join(', ');
  const measuredSizes = sizes.filter((s) => s.microsPerBet !== null).map((s) => s.batchSize.toLocaleString('en-US'));
  return {
    name: 'per-bet cost 10,000 vs 500',
    figure: 'CPU per bet of a 10,000-bet request vs a 500-bet request (2,000 beside them)',
    ours: r1(large),
    ceiling: r1(small),
    ratio,
    target: '10,000-bet cost within 25 % of the 500-bet cost (ratio ≤ 1.25)',
    met: ratio !== null && ratio <= 1.25,
    unit: 'µs CPU per bet (API + PostgreSQL backends; ours = 10,000 bets a request, ceiling = 500)',
    ratioMeaning: 'µs per bet at 10,000 ÷ µs per bet at 500 (1 = flat)',
    size: sizes.length > 0 ? side : MISSING,
    sizeDiffers: false,
    measured: ratio !== null,
    phases: ['ingest.api', 'ingest.batched'],
    needs: ['ingest'],
    missing: sizes.length > 0 ? `needs 500- and 10,000-bet requests; this run measured ${measuredSizes.join(', ') || 'none'}` : undefined,
  };
}

/** Unbatched ingest: one bet or fact a request, 8 clients. */
function unbatchedRow(i: TargetInputs): Draft {
  const u = i.unbatched;
  return {
    name: 'unbatched ingest',
    figure: 'unbatched ingest (one bet or fact per request, 8 clients)',
    ours: r0(u?.requestsPerSecond),
    ceiling: r0(u?.commitsPerSecond),
    ratio: div(u?.requestsPerSecond, u?.commitsPerSecond),
    target: '≥ 1,500 req/s, p99 < 50 ms',
    met: !!u && u.requestsPerSecond >= 1500 && u.p99Ms !== null && u.p99Ms < 50,
    unit: 'requests/s (ceiling: independent single-row commits/s, pgbench)',
    ratioMeaning: 'requests/s ÷ commits/s (one commit per request at best)',
    size: u ? `${u.clients} clients, p99 ${u.p99Ms} ms` : MISSING,
    sizeDiffers: !!u && u.clients !== TARGET_SIZES.unbatchedClients,
    measured: !!u && u.p99Ms !== null,
    phases: ['ingest.api', 'ingest.unbatched'],
    needs: ['ingest'],
  };
}

/** Lag at 1,000 events/s offered: only a sustained run yields a figure (an unsustained one is not met). */
function lagRow(i: TargetInputs): Draft {
  const l = i.lag;
  const ok = !!l && l.sustained && l.achievedEventsPerSecond !== null && l.offeredEventsPerSecond > 0 && l.achievedEventsPerSecond >= 0.95 * l.offeredEventsPerSecond;
  const ours = ok ? l!.p99Ms : null;
  return {
    name: 'lag at 1,000 events/s',
    figure: 'lag at 1,000 events/s truly offered (achieved ≥ 95%)',
    ours: r1(ours),
    ceiling: r1(l?.floorMs),
    ratio: ok ? div(l!.floorMs, ours) : null,
    target: 'p99 < 250 ms, scheduled → projected, achieved ≥ 95 % of the offer',
    met: ok && ours !== null && ours < 250 && l!.unprojected === 0 && l!.offeredEventsPerSecond >= TARGET_SIZES.lagRate,
    unit: 'ms (p99, scheduled send → projected)',
    ratioMeaning: 'floor ÷ ours (floor: Kafka producer p99 at 1,000/s + one commit)',
    size: l ? `offered ${l.offeredEventsPerSecond} ev/s for ${l.seconds} s, achieved ${r0(l.achievedEventsPerSecond)} ev/s` : MISSING,
    sizeDiffers: !!l && l.offeredEventsPerSecond !== TARGET_SIZES.lagRate,
    measured: !!l && (!ok || ours !== null),
    phases: ['live', 'lag'],
    needs: ['lag'],
    ...(l && !ok ? { note: `not sustained: achieved ${r0(l.achievedEventsPerSecond)} of ${l.offeredEventsPerSecond} ev/s offered (< 95 %); no lag figure is claimed` } : {}),
    ...(l && ok && l.unprojected > 0 ? { note: `${l.unprojected} request(s) never seen projected` } : {}),
  };
}

/** The big round: the last card's request → every settlement projected. */
function roundRow(i: TargetInputs): Draft {
  const r = i.round;
  return {
    name: '10,000-bet round',
    figure: "10,000-bet round, last card's request → every settlement projected",
    ours: r1(r?.msMax),
    ceiling: r1(r?.floorMs),
    ratio: div(r?.floorMs, r?.msMax),
    target: '< 1,000 ms',
    met: !!r && r.msMax !== null && r.msMax < 1000,
    unit: "ms (the last card's request sent → the last settlement projected; worst run)",
    ratioMeaning: 'floor ÷ ours (floor: produce + consume + COPY of the round’s events at the ceilings’ rates)',
    size: r ? `${r.bets} bets` : MISSING,
    sizeDiffers: !!r && r.bets !== TARGET_SIZES.roundBets,
    measured: !!r && r.msMax !== null,
    phases: ['live', 'round'],
    needs: ['round'],
  };
}

/** The relay against a Java producer sending its own records and headers. */
function relayRow(i: TargetInputs): Draft {
  const r = i.relay;
  const ratio = div(r?.eventsPerSecond, r?.producerRecordsPerSecond);
  return {
    name: 'relay to Kafka',
    figure: 'relay to Kafka',
    ours: r0(r?.eventsPerSecond),
    ceiling: r0(r?.producerRecordsPerSecond),
    ratio,
    target: '≥ 50,000 ev/s and ≥ 0.3 × a producer with the same record size and headers',
    met: !!r && (r.eventsPerSecond ?? 0) >= 50_000 && ratio !== null && ratio >= 0.3 && r.producerHasHeaders,
    unit: 'records/s',
    ratioMeaning: 'events/s ÷ records/s of a Java producer (acks=all) sending records of the relay’s mean size with the relay’s headers',
    size: r ? `backlog of ${r.backlog} events` : MISSING,
    sizeDiffers: false,
    measured: !!r && ratio !== null,
    phases: ['ingest.api', 'relay', 'ceilings.producer'],
    needs: ['ceilings'],
    ...(r && !r.producerHasHeaders ? { note: 'the producer ceiling ran without the relay’s headers: not comparable' } : {}),
  };
}

/** The rebuild from offset zero against the COPY of its rows. */
function rebuildRow(i: TargetInputs): Draft {
  const r = i.rebuild;
  const ratio = div(r?.eventsPerSecond, r?.copyEventsPerSecond);
  return {
    name: 'rebuild of 1,000,000 events',
    figure: 'rebuild of 1,000,000 events',
    ours: r0(r?.eventsPerSecond),
    ceiling: r0(r?.copyEventsPerSecond),
    ratio,
    target: '≥ 30,000 ev/s and ≥ 0.8 × COPY of its rows with the same indexes',
    met: !!r && (r.eventsPerSecond ?? 0) >= 30_000 && ratio !== null && ratio >= 0.8,
    unit: 'events/s',
    ratioMeaning: 'events/s ÷ (events ÷ seconds to COPY every row the rebuild wrote, same indexes and constraints)',
    size: r ? `${r.events} events` : MISSING,
    sizeDiffers: !!r && r.events < TARGET_SIZES.rebuildEvents,
    measured: !!r && ratio !== null,
    phases: ['rebuild', 'ceilings.copyRebuild'],
    needs: ['rebuild', 'ceilings'],
  };
}

/** Peak RSS of the API, the relay and the projector, each. */
function memoryRow(i: TargetInputs): Draft {
  const m = i.memory;
  const each = m ? [m.api, m.relay, m.projector] : [];
  const worst = each.length === 0 || each.some((x) => x === null) ? null : Math.max(...(each as number[]));
  const unknown = m ? (['API', 'relay', 'projector'] as const).filter((_, k) => each[k] === null) : [];
  return {
    name: 'peak RSS under the bench',
    figure: 'peak RSS under the bench',
    ours: r1(worst),
    ceiling: null,
    ratio: null,
    target: 'API, relay, projector each < 300 MiB',
    met: !!m && worst !== null && worst < 300,
    unit: 'MiB (VmHWM, the largest of the three)',
    ratioMeaning: null,
    size: m ? `API ${m.api}, relay ${m.relay}, projector ${m.projector} MiB` : MISSING,
    sizeDiffers: !!m && m.quick,
    measured: worst !== null,
    phases: ['ingest.api', 'relay', 'live'],
    needs: [],
    missing: m ? `${unknown.join(', ')} did not run: peak unknown` : undefined,
  };
}

/** Append latency on a 100- vs a 20,000-event stream. */
function appendRow(i: TargetInputs): Draft {
  const a = i.append;
  const okP50 = !!a && within20(a.longP50, a.shortP50);
  const okP99 = !!a && within20(a.longP99, a.shortP99);
  return {
    name: 'append latency 100 vs 20,000',
    figure: 'append latency, stream of 100 vs 20,000 events',
    ours: r1(a?.longP50),
    ceiling: r1(a?.shortP50),
    ratio: div(a?.longP50, a?.shortP50),
    target: 'within ±20 % (p50 and p99)',
    met: okP50 && okP99,
    unit: 'ms (p50 of one-bet appends; ours = the long stream, ceiling = the short stream)',
    ratioMeaning: 'long-stream latency ÷ short-stream latency (1 = flat); p99 ratio in size',
    size: a ? `${a.shortEvents} vs ${a.longEvents} events, ${a.samples} appends each, p99 ${a.shortP99} vs ${a.longP99} ms (ratio ${div(a.longP99, a.shortP99)})` : MISSING,
    sizeDiffers: !!a && (a.shortEvents > 2 * TARGET_SIZES.appendShort || a.longEvents < TARGET_SIZES.appendLong),
    measured: !!a && a.longP50 !== null && a.shortP50 !== null,
    phases: ['ingest.api', 'append'],
    needs: ['append'],
  };
}

/** Audit pages over ≥ 2,000,000 rows. */
function auditRow(i: TargetInputs): Draft {
  const a = i.audit;
  return {
    name: 'audit page over ≥ 2,000,000 events',
    figure: 'audit page (filters + keyset) over ≥ 2,000,000 events',
    ours: r1(a?.p99Ms),
    ceiling: null,
    ratio: null,
    target: 'p99 < 100 ms',
    met: !!a && a.failed === 0 && a.p99Ms !== null && a.p99Ms < 100 && a.rows >= TARGET_SIZES.auditRows,
    unit: 'ms (p99 of GET /audit/events pages, every filter combination, first and keyset pages)',
    ratioMeaning: null,
    size: a ? `${a.rows} rows in audit_events, ${a.requests} pages` : MISSING,
    sizeDiffers: !!a && a.rows < TARGET_SIZES.auditRows,
    measured: !!a && a.p99Ms !== null,
    phases: ['live', 'audit'],
    needs: ['audit'],
    ...(a && a.failed > 0 ? { note: `${a.failed} page request(s) failed` } : {}),
  };
}

/** Every target row, in the order; each 'met', 'not met' or 'not measured' (with its reason). */
export function computeTargets(i: TargetInputs): TargetRow[] {
  return [batchedRow, perBetCostRow, unbatchedRow, lagRow, roundRow, relayRow, rebuildRow, memoryRow, appendRow, auditRow].map((row) => finish(row(i), i));
}
