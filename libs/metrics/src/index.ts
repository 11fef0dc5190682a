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
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { METRICS, type MetricKey } from './catalogue';

export * from './catalogue';

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
export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Gauge<L>) => void | Promise<void>): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) {
    if (!(existing instanceof Gauge)) throw new Error(`metric ${name} exists and is not a gauge`);
    return existing as Gauge<L>;
  }
  return new Gauge<L>({ name, help, labelNames: [...labelNames], registers: [registry], ...(collect ? { collect } : {}) });
}

/**
 * The histogram named `name`, made on first use with `buckets` (upper bounds: seconds for a
 * latency), the same object after.
 * @throws Error when `name` is already a metric of another type
 */
export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) {
    if (!(existing instanceof Histogram)) throw new Error(`metric ${name} exists and is not a histogram`);
    return existing as Histogram<L>;
  }
  return new Histogram<L>({ name, help, labelNames: [...labelNames], buckets: [...buckets], registers: [registry] });
}

/** The counter of catalogue entry `key` (docs/architecture.md §8). @throws Error when the entry is no counter */
export function catalogueCounter(key: MetricKey): Counter<string> {
  const m = METRICS[key];
  if (m.type !== 'counter') throw new Error(`catalogue metric ${m.name} is a ${m.type}, not a counter`);
  return counter(m.name, m.help, m.labels);
}

/** The gauge of catalogue entry `key`, `collect` called at each scrape. @throws Error when the entry is no gauge */
export function catalogueGauge(key: MetricKey, collect?: (this: Gauge<string>) => void | Promise<void>): Gauge<string> {
  const m = METRICS[key];
  if (m.type !== 'gauge') throw new Error(`catalogue metric ${m.name} is a ${m.type}, not a gauge`);
  return gauge(m.name, m.help, m.labels, collect);
}

/** The histogram of catalogue entry `key`, with its buckets. @throws Error when the entry is no histogram */
export function catalogueHistogram(key: MetricKey): Histogram<string> {
  const m = METRICS[key];
  if (m.type !== 'histogram') throw new Error(`catalogue metric ${m.name} is a ${m.type}, not a histogram`);
  return histogram(m.name, m.help, m.labels, m.buckets);
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
  const match = (v: { labels: Partial<Record<string, string | number>> }) => !labels || Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val);
  return values.filter(match).reduce((sum, v) => sum + v.value, 0);
}

/**
 * Serves {@link registry} at `GET /metrics` on `host:port` (the relay's and the projector's own
 * listener, `METRICS_PORT` / `METRICS_HOST`; the API serves it on its own port). Any other path is
 * 404, any other method 405. Resolves once listening.
 * @param port TCP port; 0 picks a free one (tests read it from `server.address()`)
 * @throws the listen error (e.g. EADDRINUSE)
 */
export function serveMetrics(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
