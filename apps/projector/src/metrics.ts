import { catalogueGauge, collectProcessMetrics } from '@ledger/metrics';
import type { ProjectionRunner } from '@ledger/projections';

/**
 * Registers the projector's scrape-time gauges (docs/architecture.md §8), besides Node's process
 * metrics: `ledger_projector_halted_partitions` (partitions this process holds halted, open
 * incidents; docs/guarantees.md §6) and `ledger_projector_lag_records{topic,partition}` per assigned
 * partition: the topic's high watermark minus the next offset to apply (0 when caught up), the
 * readiness check's `lag`. A partition without an applied batch yet, or every partition when the
 * offsets read failed, has no series at that scrape. Idempotent (the registry keeps one gauge per name).
 * @param runner the projection runner (assigned partitions, positions, halted partitions)
 * @param topic the events topic (LEDGER_EVENTS_TOPIC), the `topic` label
 * @param highWatermarks reads the topic's high watermark per partition (bounded; `null` when it failed)
 */
export function registerProjectorMetrics(runner: ProjectionRunner, topic: string, highWatermarks: () => Promise<Map<number, bigint> | null>): void {
  collectProcessMetrics();
  catalogueGauge('projectorHalted', function () {
    this.set(runner.haltedPartitions.size);
  });
  catalogueGauge('projectorLag', async function () {
    this.reset();
    const highs = await highWatermarks();
    if (!highs) return;
    const positions = runner.progress.positions;
    for (const p of runner.assignedPartitions) {
      const high = highs.get(p);
      const next = positions.get(p);
      if (high === undefined || next === undefined) continue;
      this.set({ topic, partition: String(p) }, Number(high > next ? high - next : 0n));
    }
  });
}
