/**
 * End-to-end lag at a fixed offered load, open loop (bench/lib/openloop.ts): `shoes` simulated
 * shoes (table facts one per request, each round's bets as one batch of ≈16, the last card settling
 * them) are interleaved into one schedule, fixed before the run, whose expected events arrive at
 * `rate` events/s for `seconds`. Each request is due at its scheduled time whatever the answers;
 * a shoe's requests stay in order, so when a shoe's previous answer is late its next request waits
 * for it — and that wait counts, because the lag runs from the SCHEDULED time:
 *
 *   lag = scheduled send → the request's LAST event seen projected (polled every `pollMs`; the
 *   events of one request share a stream, hence a partition, and are applied in order).
 *
 * The shoes are many so that each shoe's interval (shoes ÷ requests/s) is far above a request's
 * latency (`perShoeIntervalMs` in the figures). A run whose achieved rate (events accepted ÷ the
 * window, or until the last answer when later) is under 95 % of the offer is reported as not
 * sustained: its lag percentiles are kept in `lagMsUnsustained` for diagnosis, `lagMs` is null.
 * A shoe that falls more than `abandonAfterMs` behind its schedule stops sending (`abandoned`
 * requests; such a run is never sustained), so an overloaded run stays bounded in time.
 *
 * Stages, per measured request, on one wall clock (the bench's `Date`/performance clock and
 * PostgreSQL's timestamps read the same system clock on this machine), made monotone
 * (`monotoneStages`: a boundary that comes out earlier than the previous one — a `now()` taken at
 * transaction start — is raised to it and counted in `stageClockInversions`):
 *   queue    scheduled → sent (waiting for the shoe's previous answer, or the bench's timer)
 *   request  sent → 201
 *   relay    201 → `outbox.published_at` (the relay marked the row published)
 *   project  published → `applied_events.applied_at` (the projector applied it)
 *   seen     applied → seen by the bench's poll (includes up to `pollMs` of polling)
 */
import type { Pg } from '../lib/pg';
import { LedgerClient } from '@ledger/simulator';
import { benchTables, send, shoeSteps, type Sent, type Step } from '../lib/workload';
import { latencySummary, nowMs, percentile, round, say, sleep } from '../lib/util';
import { achievedRate, buildSchedule, lagFromSchedule, monotoneStages, runOpenLoop, sustained } from '../lib/openloop';
import { projectedProbe, publishedAt } from '../lib/probe';

export interface LagFigures {
  readonly offeredEventsPerSecond: number;
  readonly achievedEventsPerSecond: number | null;
  /** Achieved ≥ 95 % of the offer. */
  readonly sustained: boolean;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly shoes: number;
  /** Mean time between two requests of one shoe in the schedule (ms). */
  readonly perShoeIntervalMs: number | null;
  readonly requests: number;
  readonly events: number;
  readonly measuredRequests: number;
  /** Scheduled → projected; null when not sustained. */
  readonly lagMs: ReturnType<typeof latencySummary> | null;
  /** The same figures of a run that was not sustained (diagnosis only, not a lag figure). */
  readonly lagMsUnsustained?: ReturnType<typeof latencySummary>;
  readonly requestLatencyMs: ReturnType<typeof latencySummary>;
  /** Requests never sent: their shoe fell more than `abandonAfterMs` behind its schedule (the run is then not sustained). */
  readonly abandoned: number;
  readonly abandonAfterMs: number;
  /** Scheduled → actually sent. */
  readonly scheduleSlipMs: ReturnType<typeof latencySummary>;
  readonly stagesMs: Record<string, { p50: number | null; p99: number | null; count: number }>;
  readonly stageMeaning: Record<string, string>;
  readonly stageClockInversions: number;
  readonly stageSources: string[];
  readonly unprojected: number;
  readonly pollMs: number;
}

interface LagSent extends Sent {
  /** Scheduled send time (ms since the epoch). */
  readonly scheduledAt: number;
}

const STAGE_MEANING: Record<string, string> = {
  queue: 'scheduled → sent: waiting for the shoe’s previous answer (or the bench’s timer)',
  request: 'sent → 201: the API appended and answered',
  relay: '201 → outbox.published_at: the relay marked the row published',
  project: 'outbox.published_at → applied_events.applied_at: Kafka, the projector’s fetch and apply',
  seen: 'applied_at → seen by the bench’s poll (≤ pollMs of polling, and the projector’s commit)',
};

export async function measureLag(
  client: LedgerClient,
  pg: Pg,
  o: { prefix: string; schema: string; rate: number; seconds: number; warmupSeconds: number; shoes: number; pollMs: number; drainTimeoutMs: number; abandonAfterMs?: number },
): Promise<LagFigures> {
  // a shoe hopelessly behind its schedule stops sending: the run is not sustained anyway, and the phase stays bounded
  const abandonAfterMs = o.abandonAfterMs ?? Math.max(10_000, o.seconds * 1000);
  const tables = benchTables();
  const perShoe: Step[][] = Array.from({ length: o.shoes }, (_, i) => shoeSteps({ table: tables[i % tables.length], shoeId: `${o.prefix}-lag-${i}`, seed: `${o.prefix}-lag-${i}`, rounds: 200, betMode: 'batch' }));
  const { schedule, expected, exhausted } = buildSchedule(perShoe, o.rate, o.seconds);
  const totalRequests = schedule.reduce((n, s) => n + s.length, 0);
  const perShoeIntervalMs = totalRequests > 0 ? round((o.seconds * 1000 * o.shoes) / totalRequests, 1) : null;
  if (exhausted.length) say(`lag: ${exhausted.length} shoe(s) ran out of steps inside the window; the offer falls short`);
  say(`lag: ${o.shoes} shoes, ${totalRequests} requests, ${expected} expected events at ${o.rate} events/s for ${o.seconds} s (open loop; a shoe every ${perShoeIntervalMs} ms)`);
  const probe = await projectedProbe(pg, o.schema);

  const pending = new Map<string, LagSent>();
  const seenAt = new Map<string, number>();
  const appliedAt = new Map<string, number>();
  const sent: LagSent[] = [];
  const slips: number[] = [];
  let sending = true;
  let drainDeadline = Infinity;

  const t0 = nowMs() + 200;
  const poller = (async () => {
    while (sending || pending.size > 0) {
      if (pending.size > 0) {
        const { rows } = await pg.query(probe.sql, [[...pending.keys()]]);
        const at = nowMs();
        for (const r of rows as { event_id: string; applied?: string }[]) {
          seenAt.set(r.event_id, at);
          if (r.applied !== undefined && r.applied !== null) appliedAt.set(r.event_id, Number(r.applied));
          pending.delete(r.event_id);
        }
        if (!sending && nowMs() > drainDeadline) break;
      }
      await sleep(o.pollMs);
    }
  })();

  // open loop: each shoe sends its requests at their scheduled times; only its own previous answer can hold one back
  const run = await runOpenLoop(schedule, {
    start: t0,
    now: nowMs,
    sleep,
    abandonAfterMs,
    send: (step: Step) => send(client, step),
    onSent: (rec) => {
      slips.push(Math.max(0, rec.sentAt - rec.scheduledAt));
      const x: LagSent = { ...rec.answer, scheduledAt: rec.scheduledAt };
      sent.push(x);
      const last = rec.answer.events[rec.answer.events.length - 1];
      if (last) pending.set(last.eventId, x);
    },
  });
  const abandoned = run.abandoned;
  sending = false;
  const lastAnswer = Math.max(...sent.map((s) => s.acceptedAt));
  drainDeadline = nowMs() + o.drainTimeoutMs;
  await poller;

  const events = sent.reduce((n, s) => n + s.events.length, 0);
  const achieved = round(achievedRate(events, o.seconds * 1000, lastAnswer - t0));
  const ok = sustained(achieved, o.rate) && abandoned === 0;
  const warmEnd = t0 + o.warmupSeconds * 1000;
  const measured = sent.filter((s) => s.scheduledAt >= warmEnd && s.events.length > 0);
  const lags: number[] = [];
  for (const s of measured) {
    const lag = lagFromSchedule(s.scheduledAt, seenAt.get(s.events[s.events.length - 1].eventId));
    if (lag !== null) lags.push(lag);
  }
  const st = await stages(pg, measured, seenAt, appliedAt, probe.hasAppliedAt);
  if (!ok) say(`lag: NOT SUSTAINED — achieved ${achieved} of ${o.rate} events/s offered (< 95 %${abandoned ? `; ${abandoned} requests abandoned more than ${abandonAfterMs} ms behind schedule` : ''}); no lag figure claimed`);
  return {
    offeredEventsPerSecond: o.rate,
    achievedEventsPerSecond: achieved,
    sustained: ok,
    seconds: o.seconds,
    warmupSeconds: o.warmupSeconds,
    shoes: o.shoes,
    perShoeIntervalMs,
    requests: sent.length,
    events,
    measuredRequests: measured.length,
    lagMs: ok ? latencySummary(lags) : null,
    ...(ok ? {} : { lagMsUnsustained: latencySummary(lags) }),
    requestLatencyMs: latencySummary(sent.map((s) => s.ms)),
    abandoned,
    abandonAfterMs,
    scheduleSlipMs: latencySummary(slips),
    stagesMs: st.stages,
    stageMeaning: STAGE_MEANING,
    stageClockInversions: st.clamped,
    stageSources: [probe.source, ...(st.note ? [st.note] : [])],
    unprojected: pending.size,
    pollMs: o.pollMs,
  };
}

/** Where the lag goes: per measured request, the monotone stages between scheduled, sent, 201, published, applied, seen. */
async function stages(pg: Pg, measured: LagSent[], seenAt: Map<string, number>, appliedAt: Map<string, number>, hasApplied: boolean) {
  const names = Object.keys(STAGE_MEANING);
  const per: number[][] = names.map(() => []);
  let clamped = 0;
  const lastIds = measured.map((s) => s.events[s.events.length - 1].eventId);
  const pub = await publishedAt(pg, lastIds).catch((e: unknown) => ({ at: new Map<string, number>(), note: `relay stage not measured: ${String(e)}` }));
  for (const s of measured) {
    const id = s.events[s.events.length - 1].eventId;
    const seen = seenAt.get(id);
    if (seen === undefined) continue;
    const b = monotoneStages([s.scheduledAt, s.startedAt, s.acceptedAt, pub.at.get(id) ?? null, hasApplied ? (appliedAt.get(id) ?? null) : null, seen]);
    clamped += b.clamped;
    b.stages.forEach((x, i) => {
      if (x !== null) per[i].push(x);
    });
  }
  const out: Record<string, { p50: number | null; p99: number | null; count: number }> = {};
  names.forEach((n, i) => (out[n] = { p50: round(percentile(per[i], 50), 1), p99: round(percentile(per[i], 99), 1), count: per[i].length }));
  return { stages: out, clamped, note: pub.note };
}
