/**
 * End-to-end lag at a fixed offered load (open loop): `shoes` simulated shoes (table facts one per
 * request, each round's bets as one batch of ≈16, the last card settling them) are interleaved
 * into one schedule whose expected events arrive at `rate` events/s for `seconds`. Each request
 * is sent at its scheduled time — not when the previous answer came back — except that a shoe's
 * next request waits for that shoe's previous answer (a table cannot deal before the ledger
 * accepted the bet close); how late requests went out is reported as schedule slip.
 *
 * Lag of a request = from its 201 to the moment the bench sees its LAST event in
 * `<schema>.applied_events` (polled every `pollMs`; events of one request share a stream, hence a
 * partition, and are applied in order, so the last one bounds them all).
 * Stage breakdown from database timestamps (same clock): 201 → `outbox.published_at` (relay
 * claimed the batch) → `applied_events.applied_at` (projector transaction started) → seen.
 */
import type { Pg } from '../lib/pg';
import { LedgerClient } from '@ledger/simulator';
import { benchTables, send, shoeSteps, type Sent, type Step } from '../lib/workload';
import { latencySummary, nowMs, percentile, round, say, sleep } from '../lib/util';

export interface LagFigures {
  readonly offeredEventsPerSecond: number;
  readonly achievedEventsPerSecond: number | null;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly shoes: number;
  readonly requests: number;
  readonly events: number;
  readonly measuredRequests: number;
  readonly lagMs: ReturnType<typeof latencySummary>;
  readonly requestLatencyMs: ReturnType<typeof latencySummary>;
  readonly scheduleSlipMs: ReturnType<typeof latencySummary>;
  readonly stagesMs: Record<string, { p50: number | null; p99: number | null }>;
  readonly unprojected: number;
  readonly pollMs: number;
}

interface Scheduled {
  readonly shoe: number;
  readonly step: Step;
  readonly at: number;
}

export async function measureLag(
  client: LedgerClient,
  pg: Pg,
  o: { prefix: string; schema: string; rate: number; seconds: number; warmupSeconds: number; shoes: number; pollMs: number; drainTimeoutMs: number },
): Promise<LagFigures> {
  const tables = benchTables();
  const perShoe: Step[][] = Array.from({ length: o.shoes }, (_, i) =>
    shoeSteps({ table: tables[i % tables.length], shoeId: `${o.prefix}-lag-${i}`, seed: `${o.prefix}-lag-${i}`, rounds: 200, betMode: 'batch' }),
  );
  // round-robin interleaving; each request's time = when its expected events fit the rate
  const schedule: Scheduled[][] = perShoe.map(() => []);
  const horizon = o.seconds * 1000;
  let expected = 0;
  const cursor = perShoe.map(() => 0);
  for (let progressed = true; progressed; ) {
    progressed = false;
    for (let i = 0; i < o.shoes; i++) {
      const step = perShoe[i][cursor[i]];
      if (!step) continue;
      const at = (expected / o.rate) * 1000;
      if (at >= horizon) continue;
      schedule[i].push({ shoe: i, step, at });
      cursor[i]++;
      expected += step.expectedEvents;
      progressed = true;
    }
  }
  const totalRequests = schedule.reduce((n, s) => n + s.length, 0);
  if (schedule.some((s, i) => cursor[i] >= perShoe[i].length)) say('lag: a shoe ran out of steps inside the window; raise --lag-shoes');
  say(`lag: ${o.shoes} shoes, ${totalRequests} requests, ${expected} expected events at ${o.rate} events/s for ${o.seconds} s (open loop)`);

  const pending = new Map<string, Sent>();
  const seenAt = new Map<string, number>();
  const sent: Sent[] = [];
  const slips: number[] = [];
  let sending = true;
  let drainDeadline = Infinity;

  const t0 = nowMs() + 200;
  const poller = (async () => {
    while (sending || pending.size > 0) {
      if (pending.size > 0) {
        const ids = [...pending.keys()];
        const { rows } = await pg.query(`SELECT event_id FROM "${o.schema}".applied_events WHERE event_id = ANY($1::text[])`, [ids]);
        const at = nowMs();
        for (const r of rows as { event_id: string }[]) {
          seenAt.set(r.event_id, at);
          pending.delete(r.event_id);
        }
        if (!sending && nowMs() > drainDeadline) break;
      }
      await sleep(o.pollMs);
    }
  })();

  await Promise.all(
    schedule.map(async (steps) => {
      for (const s of steps) {
        const wait = t0 + s.at - nowMs();
        if (wait > 0) await sleep(wait);
        slips.push(Math.max(0, nowMs() - (t0 + s.at)));
        const r = await send(client, s.step);
        sent.push(r);
        const last = r.events[r.events.length - 1];
        if (last) pending.set(last.eventId, r);
      }
    }),
  );
  sending = false;
  const sendEnd = nowMs();
  drainDeadline = sendEnd + o.drainTimeoutMs;
  await poller;

  const warmEnd = t0 + o.warmupSeconds * 1000;
  const measured = sent.filter((s) => s.startedAt >= warmEnd && s.events.length > 0);
  const lags: number[] = [];
  for (const s of measured) {
    const seen = seenAt.get(s.events[s.events.length - 1].eventId);
    if (seen !== undefined) lags.push(seen - s.acceptedAt);
  }
  const events = sent.reduce((n, s) => n + s.events.length, 0);
  const stagesMs = await stages(pg, o.schema, measured);
  return {
    offeredEventsPerSecond: o.rate,
    achievedEventsPerSecond: round(events / ((sendEnd - t0) / 1000)),
    seconds: o.seconds,
    warmupSeconds: o.warmupSeconds,
    shoes: o.shoes,
    requests: sent.length,
    events,
    measuredRequests: measured.length,
    lagMs: latencySummary(lags),
    requestLatencyMs: latencySummary(sent.map((s) => s.ms)),
    scheduleSlipMs: latencySummary(slips),
    stagesMs,
    unprojected: pending.size,
    pollMs: o.pollMs,
  };
}

/** Where the lag goes, from the database's timestamps of the measured requests' last events. */
async function stages(pg: Pg, schema: string, measured: Sent[]): Promise<Record<string, { p50: number | null; p99: number | null }>> {
  if (measured.length === 0) return {};
  const last = measured.map((s) => s.events[s.events.length - 1]);
  const { rows } = await pg.query(
    `SELECT a.event_id, extract(epoch FROM o.published_at) * 1000 AS published, extract(epoch FROM a.applied_at) * 1000 AS applied
       FROM "${schema}".applied_events a JOIN outbox o ON o.global_position = a.global_position
      WHERE a.event_id = ANY($1::text[])`,
    [last.map((e) => e.eventId)],
  );
  const byId = new Map<string, { published: number; applied: number }>(rows.map((r: { event_id: string; published: string; applied: string }) => [r.event_id, { published: Number(r.published), applied: Number(r.applied) }]));
  const toRelay: number[] = [];
  const toProjector: number[] = [];
  for (const s of measured) {
    const t = byId.get(s.events[s.events.length - 1].eventId);
    if (!t) continue;
    toRelay.push(t.published - s.acceptedAt);
    toProjector.push(t.applied - t.published);
  }
  const q = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), p99: round(percentile(xs, 99), 1) });
  return {
    'accepted→relay claimed (outbox.published_at)': q(toRelay),
    'relay claimed→projector tx start (applied_at)': q(toProjector),
  };
}
