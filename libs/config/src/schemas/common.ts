import { BoolVar, ListVar, OneOfVar, TextVar, UrlVar } from '../env-var';

/**
 * The parts every process's configuration is built from (docs/architecture.md §5): a base class and
 * mixins, one per concern, so each variable is declared (with its form, default and meaning) once.
 */

/** A class a mixin can extend. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EnvClass<T = object> = new (...args: any[]) => T;

/** The two modes of a process: only `development` accepts the public development signing secret. */
export const LEDGER_ENVIRONMENTS = ['development', 'production'] as const;
/** `development` | `production`. */
export type LedgerEnvironment = (typeof LEDGER_ENVIRONMENTS)[number];

/** pino levels (`silent` logs nothing). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** A pino level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Database of the local stack (loopback only). */
export const DEFAULT_DATABASE_URL = 'postgres://ledger:ledger@127.0.0.1:5432/ledger';
/** Broker of the local stack. */
export const DEFAULT_KAFKA_BROKERS: readonly string[] = ['127.0.0.1:9092'];
/** The ledger's event topic (same value as `LEDGER_EVENTS_TOPIC` of `@ledger/infra`; a unit spec checks they agree). */
export const DEFAULT_EVENTS_TOPIC = 'baccarat.ledger.events.v1';
/** The live read-model schema (same value as `DEFAULT_READ_SCHEMA` of `@ledger/projections`). */
export const DEFAULT_READ_SCHEMA = 'read';

/** A Kafka topic name: `[A-Za-z0-9._-]`, 1 to 249 characters. */
export const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;
/** A Kafka `host:port` (IPv6 in brackets). */
export const BROKER_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/;

/**
 * Whether `name` may name a read-model schema: a lower-case SQL identifier (`[a-z_][a-z0-9_]*`, at
 * most 63 bytes) that is not `public`, `information_schema` nor `pg_*`, so it can be interpolated
 * into SQL without quoting surprises.
 */
export function isReadModelSchemaName(name: unknown): name is string {
  return typeof name === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(name) && !name.startsWith('pg_') && name !== 'public' && name !== 'information_schema';
}

/** What every process reads: its mode. */
export class CommonEnv {
  /**
   * The process's mode. `development` (set by the demo, the bench and the tests) lets the API fall
   * back to the public development signing secret, with a warning; anything else is production: the
   * API refuses to start without a signing key of its own (docs/architecture.md §10).
   * @default production
   */
  @OneOfVar(LEDGER_ENVIRONMENTS)
  LEDGER_ENV: LedgerEnvironment = 'production';
}

/** `LOG_LEVEL`. */
export function WithLogging<B extends EnvClass>(Base: B) {
  class LoggingEnv extends Base {
    /**
     * Level of the structured JSON log lines (pino, on stdout).
     * @default info
     */
    @OneOfVar(LOG_LEVELS)
    LOG_LEVEL: LogLevel = 'info';
  }
  return LoggingEnv;
}

/** `DATABASE_URL`. */
export function WithDatabase<B extends EnvClass>(Base: B) {
  class DatabaseEnv extends Base {
    /**
     * PostgreSQL connection URL.
     * @default postgres://ledger:ledger@127.0.0.1:5432/ledger
     */
    @UrlVar(['postgres:', 'postgresql:'])
    DATABASE_URL: string = DEFAULT_DATABASE_URL;
  }
  return DatabaseEnv;
}

/** `KAFKA_BROKERS`. */
export function WithKafka<B extends EnvClass>(Base: B) {
  class KafkaEnv extends Base {
    /**
     * Kafka bootstrap brokers.
     * @default 127.0.0.1:9092
     */
    @ListVar(BROKER_ADDRESS, 'comma-separated host:port')
    KAFKA_BROKERS: readonly string[] = DEFAULT_KAFKA_BROKERS;
  }
  return KafkaEnv;
}

/** `LEDGER_EVENTS_TOPIC`. */
export function WithEventsTopic<B extends EnvClass>(Base: B) {
  class EventsTopicEnv extends Base {
    /**
     * The ledger's event topic: the API's outbox rows name it, the relay publishes to it, the projector consumes it.
     * @default baccarat.ledger.events.v1
     */
    @TextVar(TOPIC_NAME, 'a Kafka topic name ([A-Za-z0-9._-], 1..249)')
    LEDGER_EVENTS_TOPIC: string = DEFAULT_EVENTS_TOPIC;
  }
  return EventsTopicEnv;
}

/** `PROJECTIONS_SCHEMA` (older name `READ_SCHEMA`). */
export function WithReadModel<B extends EnvClass>(Base: B) {
  class ReadModelEnv extends Base {
    /**
     * PostgreSQL schema of the read model (the projector writes it, the query API reads it); older name `READ_SCHEMA`.
     * @default read
     */
    @TextVar(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier ([a-z_][a-z0-9_]*, not public nor pg_*)', { aliases: ['READ_SCHEMA'], check: isReadModelSchemaName })
    PROJECTIONS_SCHEMA: string = DEFAULT_READ_SCHEMA;
  }
  return ReadModelEnv;
}

/** `RUN_MIGRATIONS`. */
export function WithMigrations<B extends EnvClass>(Base: B) {
  class MigrationsEnv extends Base {
    /**
     * Run the migrations at start, under an advisory lock (never `synchronize`).
     * @default true
     */
    @BoolVar()
    RUN_MIGRATIONS: boolean = true;
  }
  return MigrationsEnv;
}
