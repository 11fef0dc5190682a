/**
 * The bench's pure parts (bench/lib/targets.ts, bench/lib/openloop.ts): the verdicts of the performance
 * targets (met / ratio / units, the quick size marked), and the open-loop schedule (sent on
 * schedule whatever the answers, a shoe's requests in order, lag from the schedule, not
 * sustained under 95 % of the offer). Speed itself is measured by the bench, never here.
 */
import { computeTargets, type TargetInputs, type TargetRow } from '../../bench/lib/targets';
import { achievedRate, buildSchedule, lagFromSchedule, monotoneStages, runOpenLoop, sendTimes, sustained } from '../../bench/lib/openloop';

const NONE: TargetInputs = { batched: null, unbatched: null, lag: null, round: null, relay: null, rebuild: null, memory: null, append: null, audit: null, perBetCost: null, failures: {}, skipped: [] };
const row = (i: Partial<TargetInputs>, name: string): TargetRow => {
  const r = computeTargets({ ...NONE, ...i }).find((t) => t.name === name);
  if (!r) throw new Error(`no target row ${name}`);
  return r;
};

describe('bench targets', () => {
  it('has one row per target of the issue, in its order, all missed and not measured when nothing was measured', () => {
    const rows = computeTargets(NONE);
    expect(rows.map((r) => r.name)).toEqual([
      'batched ingest',
      'per-bet cost 10,000 vs 500',
      'unbatched ingest',
      'lag at 1,000 events/s',
      '10,000-bet round',
      'relay to Kafka',
      'rebuild of 1,000,000 events',
      'peak RSS under the bench',
      'append latency 100 vs 20,000',
      'audit page over ≥ 2,000,000 events',
    ]);
    for (const r of rows) {
      expect(r.met).toBe(false);
      expect(typeof r.met).toBe('boolean');
      expect(r.ours).toBeNull();
      expect(r.status).toBe('not measured');
      expect(r.reason).toBe('not measured in this run');
    }
  });

  it('a failed phase or ceiling is the reason its targets are not measured; the others keep their verdicts', () => {
    const rows = computeTargets({
      ...NONE,
      unbatched: { requestsPerSecond: 1600, p99Ms: 40, clients: 8, commitsPerSecond: 3200 },
      relay: { eventsPerSecond: 60_000, producerRecordsPerSecond: null, producerHasHeaders: false, backlog: 1000 },
      failures: { 'ceilings.producer': 'header-producer failed: connection refused', lag: 'timeout' },
      skipped: ['audit'],
    });
    const by = (name: string) => rows.find((r) => r.name === name)!;
    expect(by('relay to Kafka')).toMatchObject({ status: 'not measured', met: false, ours: 60_000, reason: 'ceilings.producer failed: header-producer failed: connection refused' });
    expect(by('lag at 1,000 events/s')).toMatchObject({ status: 'not measured', reason: 'lag failed: timeout' });
    expect(by('audit page over ≥ 2,000,000 events')).toMatchObject({ status: 'not measured', reason: 'not run in this run (--only): audit' });
    expect(by('unbatched ingest')).toMatchObject({ status: 'met', met: true });
    expect(by('unbatched ingest').reason).toBeUndefined();
    // a set-up failure leaves every target unmeasured, each naming it
    for (const r of computeTargets({ ...NONE, failures: { setup: 'ECONNREFUSED 127.0.0.1:19092' } })) expect(r.reason).toBe('setup failed: ECONNREFUSED 127.0.0.1:19092');
  });

  it('per-bet cost: µs per bet at 10,000 within 25 % of 500, the three sizes side by side; without 10,000 not measured', () => {
    const cost = (large: number | null) => [{ batchSize: 500, microsPerBet: 40 }, { batchSize: 2000, microsPerBet: 42 }, ...(large === null ? [] : [{ batchSize: 10_000, microsPerBet: large }])];
    const ok = row({ perBetCost: cost(50) }, 'per-bet cost 10,000 vs 500');
    expect(ok).toMatchObject({ status: 'met', ours: 50, ceiling: 40, ratio: 1.25 });
    expect(ok.size).toBe('500: 40 µs, 2,000: 42 µs, 10,000: 50 µs');
    expect(row({ perBetCost: cost(50.1) }, 'per-bet cost 10,000 vs 500')).toMatchObject({ status: 'not met', met: false });
    const quick = row({ perBetCost: cost(null) }, 'per-bet cost 10,000 vs 500');
    expect(quick).toMatchObject({ status: 'not measured', met: false, ceiling: 40 });
    expect(quick.reason).toBe('needs 500- and 10,000-bet requests; this run measured 500, 2,000');
  });

  it('lag not sustained is a verdict (not met), not a missing figure', () => {
    const l = { offeredEventsPerSecond: 1000, achievedEventsPerSecond: 500, sustained: false, p99Ms: null, unprojected: 0, floorMs: null, seconds: 6 };
    expect(row({ lag: l }, 'lag at 1,000 events/s')).toMatchObject({ status: 'not met', ours: null });
  });

  it('batched ingest: the ceiling is the same run’s client events over the COPY time of its rows (same units)', () => {
    // 20,000 client events in 1.25 s = 16,000/s; the COPY of the same rows took 0.5 s → 40,000 client events/s
    const r = row({ batched: { clientEventsPerSecond: 16_000, clientEvents: 20_000, copySeconds: 0.5, batchSize: 500 } }, 'batched ingest');
    expect(r.sizeDiffers).toBe(false);
    expect(r.status).toBe('not met');
    expect(r.ceiling).toBe(40_000);
    expect(r.ratio).toBe(0.4);
    expect(r.met).toBe(false); // ≥ 12,000 but < 0.5 × COPY
    const ok = row({ batched: { clientEventsPerSecond: 16_000, clientEvents: 20_000, copySeconds: 1, batchSize: 2000 } }, 'batched ingest');
    expect(ok.ratio).toBe(0.8);
    expect(ok.met).toBe(true);
    expect(row({ batched: { clientEventsPerSecond: 11_999, clientEvents: 20_000, copySeconds: 2, batchSize: 2000 } }, 'batched ingest').met).toBe(false);
    expect(row({ batched: { clientEventsPerSecond: 16_000, clientEvents: 20_000, copySeconds: null, batchSize: 500 } }, 'batched ingest')).toMatchObject({ met: false, status: 'not measured' });
  });

  it('unbatched ingest needs both the rate and the p99', () => {
    const base = { requestsPerSecond: 1600, p99Ms: 40, clients: 8, commitsPerSecond: 3200 };
    expect(row({ unbatched: base }, 'unbatched ingest')).toMatchObject({ met: true, ratio: 0.5, sizeDiffers: false });
    expect(row({ unbatched: { ...base, p99Ms: 50 } }, 'unbatched ingest').met).toBe(false);
    expect(row({ unbatched: { ...base, requestsPerSecond: 1499 } }, 'unbatched ingest').met).toBe(false);
    expect(row({ unbatched: { ...base, clients: 4 } }, 'unbatched ingest').sizeDiffers).toBe(true);
  });

  it('lag: a run under 95 % of the offer claims no figure and misses', () => {
    const base = { offeredEventsPerSecond: 1000, achievedEventsPerSecond: 990, sustained: true, p99Ms: 120, unprojected: 0, floorMs: 30, seconds: 20 };
    expect(row({ lag: base }, 'lag at 1,000 events/s')).toMatchObject({ met: true, ours: 120, ratio: 0.25 });
    const slow = row({ lag: { ...base, achievedEventsPerSecond: 949 } }, 'lag at 1,000 events/s');
    expect(slow).toMatchObject({ met: false, ours: null, ratio: null });
    expect(slow.note).toMatch(/not sustained/);
    expect(row({ lag: { ...base, sustained: false } }, 'lag at 1,000 events/s')).toMatchObject({ met: false, ours: null });
    expect(row({ lag: { ...base, p99Ms: 250 } }, 'lag at 1,000 events/s').met).toBe(false);
    expect(row({ lag: { ...base, unprojected: 1 } }, 'lag at 1,000 events/s').met).toBe(false);
    expect(row({ lag: { ...base, offeredEventsPerSecond: 500, achievedEventsPerSecond: 500 } }, 'lag at 1,000 events/s')).toMatchObject({ met: false, sizeDiffers: true });
  });

  it('round, relay, rebuild: thresholds and ratios, the quick size marked', () => {
    expect(row({ round: { bets: 10_000, msMax: 999, floorMs: 300 } }, '10,000-bet round')).toMatchObject({ met: true, sizeDiffers: false, ratio: 0.3 });
    expect(row({ round: { bets: 1000, msMax: 400, floorMs: 30 } }, '10,000-bet round')).toMatchObject({ met: true, sizeDiffers: true });
    expect(row({ round: { bets: 10_000, msMax: 1000, floorMs: 300 } }, '10,000-bet round').met).toBe(false);

    const relay = { eventsPerSecond: 60_000, producerRecordsPerSecond: 150_000, producerHasHeaders: true, backlog: 100_000 };
    expect(row({ relay }, 'relay to Kafka')).toMatchObject({ met: true, ratio: 0.4 });
    expect(row({ relay: { ...relay, producerRecordsPerSecond: 250_000 } }, 'relay to Kafka').met).toBe(false); // 0.24 < 0.3
    expect(row({ relay: { ...relay, producerHasHeaders: false } }, 'relay to Kafka').met).toBe(false);

    const rebuild = { events: 1_000_000, eventsPerSecond: 40_000, copyEventsPerSecond: 45_000 };
    expect(row({ rebuild }, 'rebuild of 1,000,000 events')).toMatchObject({ met: true, ratio: 0.889, sizeDiffers: false });
    expect(row({ rebuild: { ...rebuild, copyEventsPerSecond: 60_000 } }, 'rebuild of 1,000,000 events').met).toBe(false);
    expect(row({ rebuild: { ...rebuild, events: 20_000 } }, 'rebuild of 1,000,000 events').sizeDiffers).toBe(true);
  });

  it('peak RSS: each of the three under 300 MiB; an unknown one is not met', () => {
    expect(row({ memory: { api: 250, relay: 120, projector: 299.9, quick: false } }, 'peak RSS under the bench')).toMatchObject({ met: true, ours: 299.9 });
    expect(row({ memory: { api: 300, relay: 120, projector: 200, quick: false } }, 'peak RSS under the bench').met).toBe(false);
    expect(row({ memory: { api: 100, relay: null, projector: 200, quick: false } }, 'peak RSS under the bench')).toMatchObject({ met: false, status: 'not measured', reason: 'relay did not run: peak unknown' });
  });

  it('append latency: within ±20 % at p50 and p99', () => {
    const a = { shortEvents: 100, longEvents: 20_000, shortP50: 10, longP50: 11.9, shortP99: 20, longP99: 23, samples: 300 };
    expect(row({ append: a }, 'append latency 100 vs 20,000')).toMatchObject({ met: true, ratio: 1.19, sizeDiffers: false });
    expect(row({ append: { ...a, longP50: 12.1 } }, 'append latency 100 vs 20,000').met).toBe(false);
    expect(row({ append: { ...a, longP99: 24.1 } }, 'append latency 100 vs 20,000').met).toBe(false);
    expect(row({ append: { ...a, longP50: 7.9 } }, 'append latency 100 vs 20,000').met).toBe(false);
  });

  it('audit pages: p99 < 100 ms over ≥ 2,000,000 rows, no failed page', () => {
    const a = { rows: 2_000_123, p99Ms: 80, requests: 400, failed: 0 };
    expect(row({ audit: a }, 'audit page over ≥ 2,000,000 events')).toMatchObject({ met: true, sizeDiffers: false });
    expect(row({ audit: { ...a, rows: 200_000 } }, 'audit page over ≥ 2,000,000 events')).toMatchObject({ met: false, sizeDiffers: true });
    expect(row({ audit: { ...a, failed: 1 } }, 'audit page over ≥ 2,000,000 events').met).toBe(false);
    expect(row({ audit: { ...a, p99Ms: 100 } }, 'audit page over ≥ 2,000,000 events').met).toBe(false);
  });
});

describe('open-loop schedule', () => {
  const steps = (...events: number[]) => events.map((e) => ({ expectedEvents: e }));

  it('schedules by the events offered before each request, round-robin, inside the window', () => {
    const { schedule, expected } = buildSchedule([steps(10, 10, 10), steps(20, 20)], 100, 0.5);
    // order: s0#0 at 0, s1#0 at 100 ms (10 events before), s0#1 at 300, s1#1 at 400; next would be at 600 ≥ 500
    expect(schedule[0].map((s) => s.at)).toEqual([0, 300]);
    expect(schedule[1].map((s) => s.at)).toEqual([100, 400]);
    expect(expected).toBe(60);
  });

  it('sends on schedule whatever the answers, except that a shoe waits for its own previous answer', () => {
    // due every 100 ms; the second answer takes 250 ms: the third request leaves at 350, not 200, and the fourth on time
    const { sent } = sendTimes([0, 100, 200, 400], [10, 250, 10, 10]);
    expect(sent).toEqual([0, 100, 350, 400]);
    // the wait counts in the lag: lag runs from the schedule
    expect(lagFromSchedule(200, 380)).toBe(180);
    expect(lagFromSchedule(200, undefined)).toBeNull();
  });

  it('achieved rate is over the window or until the last answer, and must reach 95 % of the offer', () => {
    expect(achievedRate(10_000, 10_000, 9_000)).toBe(1000);
    expect(achievedRate(10_000, 10_000, 12_500)).toBe(800);
    expect(sustained(950, 1000)).toBe(true);
    expect(sustained(949.9, 1000)).toBe(false);
    expect(sustained(null, 1000)).toBe(false);
  });

  it('stage boundaries are made monotone, so no stage is negative, and the clamps are counted', () => {
    // scheduled 0, sent 5, 201 at 20, published at 17 (a transaction-start timestamp), applied 40, seen 45
    expect(monotoneStages([0, 5, 20, 17, 40, 45])).toEqual({ stages: [5, 15, 0, 20, 5], clamped: 1 });
    expect(monotoneStages([0, 5, 20, null, 40, 45]).stages).toEqual([5, 15, null, null, 5]);
  });

  describe('runOpenLoop (virtual time)', () => {
    beforeEach(() => jest.useFakeTimers({ now: 0 }));
    afterEach(() => jest.useRealTimers());

    const at = (shoe: number, times: number[], took: number[]) => times.map((t, index) => ({ shoe, index, at: t, step: { took: took[index], id: `${shoe}:${index}` } }));
    const run = (schedule: ReturnType<typeof at>[], abandonAfterMs: number) =>
      runOpenLoop(schedule, {
        start: 0,
        now: () => Date.now(),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        send: (s: { took: number; id: string }) => new Promise<string>((r) => setTimeout(() => r(s.id), s.took)),
        abandonAfterMs,
      });

    it('sends each request at its time whatever the other shoes do; a late answer holds back only its own shoe', async () => {
      const p = run([at(0, [0, 100, 200, 400], [10, 250, 10, 10]), at(1, [50, 150, 250], [5, 5, 5])], 10_000);
      await jest.advanceTimersByTimeAsync(2000);
      const { sent, abandoned } = await p;
      const when = (shoe: number) => sent.filter((x) => x.scheduled.shoe === shoe).map((x) => x.sentAt);
      expect(when(0)).toEqual([0, 100, 350, 400]);
      expect(when(1)).toEqual([50, 150, 250]);
      expect(sent.filter((x) => x.scheduled.shoe === 0).map((x) => x.scheduledAt)).toEqual([0, 100, 200, 400]);
      expect(abandoned).toBe(0);
    });

    it('abandons the rest of a shoe that falls too far behind its schedule', async () => {
      const p = run([at(0, [0, 100, 200, 300], [1000, 10, 10, 10])], 500);
      await jest.advanceTimersByTimeAsync(3000);
      const { sent, abandoned } = await p;
      expect(sent.map((x) => x.answer)).toEqual(['0:0']);
      expect(abandoned).toBe(3);
    });
  });
});
