import type { KafkaAdmin } from './admin';
import type { ConsumerOptions, KafkaConsumer } from './consumer';
import type { KafkaProducer } from './producer';

/**
 * The Kafka port (docs/architecture.md §6): the project's own client, producer, consumer and admin
 * interfaces, sized to what the ledger uses. The apps, libraries, scripts and bench program against
 * these; one adapter (`./kafkajs/`) implements them on a Kafka client library, and is the only
 * production code that imports it. Swapping the client means writing another adapter, nothing else.
 *
 * Errors: the port does not translate them. What a call throws is the client's error; an error
 * thrown by a consumer's handler reaches {@link ConsumerOptions.retry} and
 * {@link KafkaConsumer.onCrash} possibly wrapped, with `cause` or `originalError` leading back to it.
 */

/** How much the client logs: `nothing`, or up to and including that level. */
export type KafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Where the client's own log lines go: fields first (the client's, without the message), then the
 * message. A pino logger, the ledger's `LedgerLogger` and `ProjectionLogger` all fit.
 */
export interface KafkaLogger {
  error(fields: Record<string, unknown>, msg?: string): void;
  warn(fields: Record<string, unknown>, msg?: string): void;
  info(fields: Record<string, unknown>, msg?: string): void;
  debug(fields: Record<string, unknown>, msg?: string): void;
}

/** How to reach the brokers, and how the client logs and retries. */
export interface KafkaClientOptions {
  /** Client id the brokers see (and log), e.g. `ledger-relay`. */
  readonly clientId: string;
  /** Bootstrap brokers, `host:port`; at least one. */
  readonly brokers: readonly string[];
  /** @default 'warn' */
  readonly logLevel?: KafkaLogLevel;
  /** Receives the client's log lines. @default the client library's own (JSON lines on the console) */
  readonly logger?: KafkaLogger;
  /** Retries of a failed request (with the client's back-off) before it fails. @default the client's (5) */
  readonly retries?: number;
  /** Time to establish a broker connection, in ms. @default the client's (1000) */
  readonly connectionTimeoutMs?: number;
  /** Time to wait for a broker's answer, in ms. @default the client's (30000) */
  readonly requestTimeoutMs?: number;
}

/**
 * A configured client: the factory of producers, consumers and admins. Creating one connects
 * nothing; each producer, consumer or admin connects on its own `connect()`.
 */
export interface KafkaClient {
  /** An idempotent producer (see {@link KafkaProducer}). */
  producer(): KafkaProducer;
  /** A consumer in group `options.groupId` (see {@link KafkaConsumer}). */
  consumer(options: ConsumerOptions): KafkaConsumer;
  /** An admin client for topics, offsets and groups. */
  admin(): KafkaAdmin;
}
