/**
 * The bench's results builder and failure containment (bench/lib/summary.ts `finishResults`,
 * bench/lib/contain.ts): a phase or ceiling that throws is recorded with its reason, the run goes
 * on, and the results still hold every target (the ones it fed 'not measured', naming it) and
 * the figures that were measured.
 */
import { contained, errorMessage, exitCodeOf, FAILURE_MESSAGE_MAX } from '../../bench/lib/contain';
import { finishResults, perBetCost } from '../../bench/lib/summary';
import type { TargetRow } from '../../bench/lib/targets';

/** Batched ingest figures of one size, as bench/steps.ts records them. */
const batch = (bets: number, apiCpuSeconds: number, postgresBackendsCpuSeconds: number) => ({
  clients: 2,
  seconds: 1,
  requests: 10,
  events: bets * 2,
  clientEvents: bets + 10,
  bets,
  eventsPerSecond: bets * 2,
  clientEventsPerSecond: bets + 10,
  requestsPerSecond: 10,
  latencyMs: { all: { p50: 1, p99: 2 }, bets: { p50: 1, p99: 2 } },
  cpu: { apiCpuSeconds, postgresBackendsCpuSeconds },
});

describe('failure containment', () => {
  it('records a throwing step under its name and goes on; a step that works returns its value', async () => {
    const failures: Record<string, string> = {};
    const ran: string[] = [];
    const a = await contained(failures, 'ceilings.producer', async () => {
      ran.push('producer');
      throw new Error('header-producer failed: Connection to node -1 (127.0.0.1:19999) could not be established');
    });
    const b = await contained(failures, 'ceilings.commits', async () => (ran.push('commits'), 42));
    expect(a).toBeUndefined();
    expect(b).toBe(42);
    expect(ran).toEqual(['producer', 'commits']);
    expect(failures).toEqual({ 'ceilings.producer': 'header-producer failed: Connection to node -1 (127.0.0.1:19999) could not be established' });
    expect(exitCodeOf(failures)).toBe(1);
    expect(exitCodeOf({})).toBe(0);
  });

  it('keeps an error on one line and its tail when long', () => {
    expect(errorMessage(new Error('javac failed:\n  error: package org.apache.kafka does not exist\n'))).toBe('javac failed: | error: package org.apache.kafka does not exist');
    const long = errorMessage(`${'x'.repeat(5000)}the cause`);
    expect(long.length).toBe(FAILURE_MESSAGE_MAX + 1);
    expect(long.endsWith('the cause')).toBe(true);
  });
});

describe('results builder', () => {
  it('records the failed phase, and still lists every target with the measured ones judged', () => {
    const results: Record<string, unknown> = {
      ingest: { batched: { '500': batch(6000, 0.18, 0.06), '2000': batch(6000, 0.2, 0.07) } },
      memoryMiB: { api: { peakMiB: 150 }, relay: { peakMiB: 120 }, projector: { peakMiB: 140 } },
    };
    const out = finishResults(results, { quick: true, failures: { 'ceilings.producer': 'javac failed: no kafka-clients jar in /nonexistent' }, skipped: ['audit'] });
    expect(out.failures).toEqual({ 'ceilings.producer': 'javac failed: no kafka-clients jar in /nonexistent' });
    expect(out.skipped).toEqual(['audit']);
    const targets = out.targets as TargetRow[];
    expect(targets).toHaveLength(10);
    for (const t of targets) expect(['met', 'not met', 'not measured']).toContain(t.status);
    const by = (name: string) => targets.find((t) => t.name === name)!;
    expect(by('per-bet cost 10,000 vs 500')).toMatchObject({ status: 'not measured', ceiling: 40, size: '500: 40 µs, 2,000: 45 µs' });
    expect(by('peak RSS under the bench')).toMatchObject({ status: 'met', ours: 150 });
    expect(by('batched ingest')).toMatchObject({ status: 'not measured', ours: 6010, reason: 'not measured in this run' });
    expect(by('audit page over ≥ 2,000,000 events').reason).toBe('not run in this run (--only): audit');
    expect((out.table as unknown[]).length).toBe(2); // the two batch sizes measured
  });

  it('the per-bet cost is API + PostgreSQL backend CPU over the bets, in µs, by batch size', () => {
    const r = { ingest: { batched: { '10000': batch(20_000, 0.6, 0.4), '500': batch(6000, 0.18, 0.06) } } };
    expect(perBetCost(r)).toEqual([
      { batchSize: 500, microsPerBet: 40 },
      { batchSize: 10_000, microsPerBet: 50 },
    ]);
    expect(perBetCost({ ingest: { batched: { '500': { ...batch(6000, 0, 0), cpu: undefined } } } })).toEqual([{ batchSize: 500, microsPerBet: null }]);
  });
});
