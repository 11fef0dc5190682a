import { catalogueCounter, catalogueGauge, catalogueHistogram, METRICS } from '@ledger/metrics';
import { deviceClockOf, type DeviceClockReading } from '@ledger/events';

const lastSkew = catalogueGauge('deviceClockSkew');
const absSkew = catalogueHistogram('deviceClockSkewAbs');
const dropped = catalogueCounter('deviceClockSeriesDropped');

/**
 * The device clock metrics of the API (docs/architecture.md §8 and §9, "Time the ledger vouches
 * for"): `ledger_device_clock_skew_seconds{device_id,table_id}`, the last skew of each device at each
 * table (signed seconds, `occurredAt − recordedAt`), and `ledger_device_clock_skew_abs_seconds{table_id}`,
 * a histogram of every absolute skew by table.
 *
 * Bounded: devices are the token subjects of a table's devices and platforms, tables the configured
 * ones; still, at most `maxSeries` (device, table) pairs are kept (the catalogue's
 * `maxSeries`, 512; tables at most 64): a reading of a further pair is dropped and counted in
 * `ledger_device_clock_skew_series_dropped_total`. Series live as long as the process.
 */
export class DeviceClockMetrics {
  private readonly pairs = new Set<string>();
  private readonly tables = new Set<string>();

  /** @param maxSeries the most (device, table) pairs kept; the catalogue's by default */
  constructor(private readonly maxSeries: number = METRICS.deviceClockSkew.maxSeries) {}

  /** Exports one reading (an append's: every event of one append has the same two instants). */
  record(r: DeviceClockReading): void {
    const pair = `${r.deviceId}\u0000${r.tableId}`;
    if (!this.pairs.has(pair)) {
      if (this.pairs.size >= this.maxSeries) {
        dropped.inc();
        return;
      }
      this.pairs.add(pair);
    }
    lastSkew.set({ device_id: r.deviceId, table_id: r.tableId }, r.skewMs / 1000);
    if (this.tables.has(r.tableId) || this.tables.size < METRICS.deviceClockSkewAbs.maxSeries) {
      this.tables.add(r.tableId);
      absSkew.observe({ table_id: r.tableId }, Math.abs(r.skewMs) / 1000);
    }
  }

  /** How many (device, table) pairs are exported. */
  series(): number {
    return this.pairs.size;
  }
}

/** The API process's one instance (the metrics registry is the process's). */
export const deviceClockMetrics = new DeviceClockMetrics();

/**
 * Exports the device clock reading of an appended event ({@link deviceClockOf}) when its actor is a
 * device; call it once per append whose request gave an `occurredAt` (without one, `occurredAt` is the
 * ledger's own clock and there is nothing to measure).
 */
export function recordDeviceClock(e: Parameters<typeof deviceClockOf>[0]): void {
  const reading = deviceClockOf(e);
  if (reading) deviceClockMetrics.record(reading);
}
