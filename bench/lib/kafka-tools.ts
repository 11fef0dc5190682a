/**
 * The command lines of the Kafka ceilings (bench/phases/ceilings.ts): Kafka's ProducerPerformance
 * and ConsumerPerformance and the bench's own Java producer (bench/kafka/HeaderProducerPerf.java),
 * built from the configured brokers (bench/lib/config.ts), and the choice of the local broker
 * process among several. Pure: no process is started here, so the unit spec checks every argument.
 */
import { bootstrapServers, brokerPorts } from './config';

/** JVM options of every ceiling's Java process. */
export const JVM = ['-Xms128m', '-Xmx512m', '-XX:+UseG1GC', '-Dlog4j2.level=warn'];

/** What ProducerPerformance is asked: `throughput` in records/s, -1 = as fast as it goes; `recordBytes` per value. */
export interface ProducerPerfArgs {
  readonly brokers: readonly string[];
  readonly classpath: string;
  readonly topic: string;
  readonly records: number;
  readonly recordBytes: number;
  readonly throughput: number;
}

/** The producer properties ProducerPerformance runs with (`key=value`, the relay's acks). */
export function producerProps(brokers: readonly string[]): string[] {
  return [`bootstrap.servers=${bootstrapServers(brokers)}`, 'acks=all'];
}

/** `java` arguments for org.apache.kafka.tools.ProducerPerformance. @throws Error when no broker is configured */
export function producerPerfArgs(o: ProducerPerfArgs): string[] {
  return [
    ...JVM,
    '-cp',
    o.classpath,
    'org.apache.kafka.tools.ProducerPerformance',
    '--topic',
    o.topic,
    '--num-records',
    String(o.records),
    '--record-size',
    String(o.recordBytes),
    '--throughput',
    String(o.throughput),
    '--producer-props',
    ...producerProps(o.brokers),
  ];
}

/** What ConsumerPerformance is asked: `records` to read from `topic` with the fresh group `group`. */
export interface ConsumerPerfArgs {
  readonly brokers: readonly string[];
  readonly classpath: string;
  readonly topic: string;
  readonly records: number;
  readonly group: string;
}

/** `java` arguments for org.apache.kafka.tools.ConsumerPerformance (60 s without records ends it). @throws Error when no broker is configured */
export function consumerPerfArgs(o: ConsumerPerfArgs): string[] {
  return [...JVM, '-cp', o.classpath, 'org.apache.kafka.tools.ConsumerPerformance', '--bootstrap-server', bootstrapServers(o.brokers), '--topic', o.topic, '--messages', String(o.records), '--group', o.group, '--timeout', '60000'];
}

/** What the bench's Java producer is asked: `throughput` in records/s (-1 = max), `samplesFile` of the relay's records. */
export interface HeaderProducerArgs {
  readonly brokers: readonly string[];
  readonly classpath: string;
  readonly topic: string;
  readonly records: number;
  readonly throughput: number;
  readonly samplesFile: string;
}

/** `java` arguments for HeaderProducerPerf (its first argument is `bootstrap.servers`). @throws Error when no broker is configured */
export function headerProducerArgs(o: HeaderProducerArgs): string[] {
  return [...JVM, '-cp', o.classpath, 'HeaderProducerPerf', bootstrapServers(o.brokers), o.topic, String(o.records), String(o.throughput), o.samplesFile];
}

/** A `kafka.Kafka` process on this machine: its pid, class path folder and the `listeners` of its properties file (null when unreadable). */
export interface BrokerProcess {
  readonly pid: number;
  readonly libs: string | null;
  readonly listeners: string | null;
}

/**
 * The broker process serving the configured brokers: the first whose `listeners` names one of their
 * ports; else, when a single broker process runs and none says its listeners, that one; else null
 * (a broker on another machine, or none known).
 */
export function pickBroker(candidates: readonly BrokerProcess[], brokers: readonly string[]): BrokerProcess | null {
  const ports = brokerPorts(brokers);
  const serving = candidates.find((c) => c.listeners !== null && ports.some((p) => new RegExp(`:${p}(?!\\d)`).test(c.listeners!)));
  if (serving) return serving;
  return candidates.length === 1 && candidates[0].listeners === null ? candidates[0] : null;
}

/** The `listeners=` value of a broker's properties text, or null. */
export function listenersOf(properties: string): string | null {
  const line = properties.split('\n').find((l) => /^\s*listeners\s*=/.test(l));
  return line ? line.slice(line.indexOf('=') + 1).trim() : null;
}
