/**
 * Where the bench talks to: the Kafka brokers, the bench database and the port of the API it
 * starts, read once from the environment. Every phase and every ceiling (the Java producer, Kafka's
 * ProducerPerformance and ConsumerPerformance, the rebuild worker) takes its addresses from here,
 * never from a literal. Pure: the environment is passed in, so the unit spec can check it.
 */

/** The bench's addresses. */
export interface BenchConfig {
  /** KAFKA_BROKERS split on commas, each `host:port` [127.0.0.1:9092]. */
  readonly brokers: readonly string[];
  /** BENCH_DATABASE_URL [postgres://ledger:ledger@127.0.0.1:5432/ledger_bench]. */
  readonly databaseUrl: string;
  /** The database name in {@link BenchConfig.databaseUrl} (its counters are read for the figures). */
  readonly databaseName: string;
  /** BENCH_PORT [3901]: the port of the API the bench starts on 127.0.0.1. */
  readonly port: number;
}

/** The default brokers when KAFKA_BROKERS is unset (scripts/stack.sh's default broker). */
export const DEFAULT_BROKERS = '127.0.0.1:9092';
const DEFAULT_DATABASE_URL = 'postgres://ledger:ledger@127.0.0.1:5432/ledger_bench';

/** KAFKA_BROKERS as a list: trimmed, empty entries dropped; the default when unset or empty. */
export function brokersOf(env: NodeJS.ProcessEnv): string[] {
  const list = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  return list.length > 0 ? list : [DEFAULT_BROKERS];
}

/**
 * The bench's addresses from an environment (normally `process.env`).
 * @throws Error when BENCH_PORT is not a port number or BENCH_DATABASE_URL is not a URL
 */
export function benchConfig(env: NodeJS.ProcessEnv): BenchConfig {
  const databaseUrl = env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;
  const port = Number(env.BENCH_PORT || 3901);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`BENCH_PORT must be a port number, not ${env.BENCH_PORT}`);
  const databaseName = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || 'ledger_bench';
  return { brokers: brokersOf(env), databaseUrl, databaseName, port };
}

/** The brokers as Kafka's `bootstrap.servers` value (comma-separated, no spaces). */
export function bootstrapServers(brokers: readonly string[]): string {
  if (brokers.length === 0) throw new Error('no Kafka brokers configured');
  return brokers.join(',');
}

/** The TCP ports the brokers listen on (for finding the local broker process among several). */
export function brokerPorts(brokers: readonly string[]): number[] {
  return brokers.map((b) => Number(/:(\d+)$/.exec(b)?.[1] ?? NaN)).filter((p) => Number.isInteger(p));
}
