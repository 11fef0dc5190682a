import { metricValue, registry } from '@ledger/metrics';
import { DeviceClockMetrics } from './device-clock-metrics';

describe('DeviceClockMetrics (docs/architecture.md §9, "Time the ledger vouches for")', () => {
  it('sets the last skew per device and table in seconds, signed, and observes its absolute value per table', async () => {
    const m = new DeviceClockMetrics(4);
    m.record({ deviceId: 'dev-a', tableId: 'T-UNIT-01', skewMs: 2500 });
    m.record({ deviceId: 'dev-a', tableId: 'T-UNIT-01', skewMs: -7250 });
    expect(await metricValue('ledger_device_clock_skew_seconds', { device_id: 'dev-a', table_id: 'T-UNIT-01' })).toBe(-7.25);
    const text = await registry.metrics();
    expect(text).toContain('ledger_device_clock_skew_abs_seconds_sum{table_id="T-UNIT-01"} 9.75');
    expect(text).toContain('ledger_device_clock_skew_abs_seconds_count{table_id="T-UNIT-01"} 2');
    expect(text).toContain('ledger_device_clock_skew_abs_seconds_bucket{le="5",table_id="T-UNIT-01"} 1');
    expect(text).toContain('ledger_device_clock_skew_abs_seconds_bucket{le="10",table_id="T-UNIT-01"} 2');
  });

  it('keeps at most maxSeries (device, table) pairs: a reading of a further pair is dropped and counted, a known pair still moves', async () => {
    const m = new DeviceClockMetrics(2);
    const before = await metricValue('ledger_device_clock_skew_series_dropped_total');
    m.record({ deviceId: 'cap-1', tableId: 'T-UNIT-02', skewMs: 1 });
    m.record({ deviceId: 'cap-2', tableId: 'T-UNIT-02', skewMs: 2 });
    m.record({ deviceId: 'cap-3', tableId: 'T-UNIT-02', skewMs: 3 });
    m.record({ deviceId: 'cap-1', tableId: 'T-UNIT-02', skewMs: 4 });
    const text = await registry.metrics();
    expect(text).not.toContain('device_id="cap-3"');
    expect(await metricValue('ledger_device_clock_skew_seconds', { device_id: 'cap-1', table_id: 'T-UNIT-02' })).toBe(0.004);
    expect((await metricValue('ledger_device_clock_skew_series_dropped_total')) - before).toBe(1);
    expect(m.series()).toBe(2);
  });
});
