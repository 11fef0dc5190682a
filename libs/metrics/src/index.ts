/**
 * The ledger's metrics (docs/architecture.md §8): one prom-client registry per process, exposed by
 * the API at `GET /metrics` in the Prometheus text format. Every counter and gauge of the ledger is
 * made here, through {@link counter} / {@link gauge}, so that a name is registered once per process
 * and a test can read it back with {@link metricValue}.
 *
 * Names: `ledger_<what>_total` for counters, `ledger_<what>` for gauges; label names are fixed per
 * metric at creation. No money is ever a metric value (money stays in integer minor units in the
 * ledger's tables; docs/domain-rules.md §4).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's registry. */
export const registry = new Registry();

let defaultsCollected = false;

/** Adds Node's process metrics (heap, event-loop lag, GC) to {@link registry}; once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry, prefix: 'ledger_process_' });
}

/**
 * The counter named `name`, made on first use with `help` and `labelNames`, the same object after.
 * @throws Error when `name` is already a metric of another type
 */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) {
    if (!(existing instanceof Counter)) throw new Error(`metric ${name} exists and is not a counter`);
    return existing as Counter<L>;
  }
  return new Counter<L>({ name, help, labelNames: [...labelNames], registers: [registry] });
}

/**
 * The gauge named `name`, made on first use, the same object after. `collect` (optional) is called
 * at each scrape to set the value (e.g. read a table).
 * @throws Error when `name` is already a metric of another type
 */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) {
    if (!(existing instanceof Gauge)) throw new Error(`metric ${name} exists and is not a gauge`);
    return existing as Gauge<L>;
  }
  return new Gauge<L>({ name, help, labelNames: [...labelNames], registers: [registry], ...(collect ? { collect } : {}) });
}

/**
 * The current value of one series of a metric of {@link registry} (tests, the console).
 * @param labels the series' labels (all of them); omitted: the sum over every series
 * @returns 0 when the metric or the series does not exist yet
 */
export async function metricValue(name: string, labels?: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const match = (v: { labels: Partial<Record<string, string | number>> }) =>
    !labels || Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val);
  return values.filter(match).reduce((sum, v) => sum + v.value, 0);
}
