import { cpuDelta, idleCores, marginalMicrosPerEvent, microsPerEvent, type CpuGroup, type CpuReading } from '../../bench/cluster/meter';
import type { IngestRun } from '../../bench/cluster/phases';
import { ratio, sizingTable } from '../../bench/cluster/summary';

/** The cluster bench's arithmetic (bench/cluster/meter.ts, summary.ts): per-event CPU, rest subtracted, the sizing table. */
const groups = (x: Partial<Record<CpuGroup, number>>): Record<CpuGroup, number> => ({ api: 0, relay: 0, projector: 0, postgres: 0, kafka: 0, front: 0, ...x });
const reading = (g: Partial<Record<CpuGroup, number>>, m: Record<string, number> = {}): CpuReading => ({ byGroup: groups(g), byMember: m });

describe('cluster bench arithmetic', () => {
  it('subtracts two readings member by member and group by group', () => {
    const d = cpuDelta(reading({ api: 1.5, kafka: 10 }, { 'api-1': 1, 'api-2': 0.5 }), reading({ api: 4, kafka: 12.25 }, { 'api-1': 3, 'api-2': 1 }));
    expect(d.byGroup.api).toBe(2.5);
    expect(d.byGroup.kafka).toBe(2.25);
    expect(d.byMember).toEqual({ 'api-1': 2, 'api-2': 0.5 });
  });

  it('gives microseconds per event, and null when no event was recorded', () => {
    expect(microsPerEvent(reading({ api: 2 }), 4000).api).toBe(500);
    expect(microsPerEvent(reading({ api: 2 }), 0).api).toBeNull();
  });

  it('takes what a group uses at rest off its per-event cost, never below zero', () => {
    const idle = idleCores(reading({ kafka: 3, relay: 0.3 }), 30);
    expect(idle.kafka).toBe(0.1);
    // kafka: 5 s in a 20 s window, 2 s of it at rest → 3 s over 10,000 events = 300 µs
    const m = marginalMicrosPerEvent({ delta: reading({ kafka: 5, relay: 0.1 }), idle, windowSeconds: 20, events: 10_000 });
    expect(m.kafka).toBe(300);
    expect(m.relay).toBe(0);
    expect(marginalMicrosPerEvent({ delta: reading({ kafka: 5 }), idle, windowSeconds: 20, events: 0 }).kafka).toBeNull();
  });

  it('builds the sizing table from the 2-API runs, with a total row', () => {
    const run = (apis: number, kind: IngestRun['kind'], api: number): IngestRun => ({ apis, kind, marginalMicrosPerEvent: groups({ api, relay: 10, projector: 20, postgres: 30, kafka: 40, front: 1 }) }) as unknown as IngestRun;
    const rows = sizingTable([run(1, 'unbatched', 9999), run(2, 'unbatched', 400), run(2, 'batched', 100)], groups({ api: 0.02, kafka: 0.3 }));
    expect(rows.find((r) => r.service === 'api')).toEqual({ service: 'api', idleCores: 0.02, unbatchedMicros: 400, batchedMicros: 100 });
    expect(rows.find((r) => r.service === 'total')).toEqual({ service: 'total', idleCores: 0.32, unbatchedMicros: 501, batchedMicros: 201 });
  });

  it('gives the 2-vs-1 ratio, null when a figure is missing', () => {
    expect(ratio(1000, 1355)).toBe(1.355);
    expect(ratio(null, 5)).toBeNull();
  });
});
