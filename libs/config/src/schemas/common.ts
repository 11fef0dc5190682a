import { LOCAL_DATABASE_URL, resolveDatabaseUrls, type DatabaseUrlEnv } from '../database-roles';
import { BoolVar, IntVar, ListVar, OneOfVar, PostgresUrlVar, TextVar, TimeZoneVar, type DerivedDefault } from '../env-var';

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

/** Database of the local stack as the API's role `ledger_app` (loopback only; docs/architecture.md §10). */
export const DEFAULT_DATABASE_URL = LOCAL_DATABASE_URL;
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

/**
 * A URL that defaults to `DATABASE_URL` with the login `role` (same server, port and database; the
 * password is the role's name, as `scripts/stack.sh` creates it): {@link resolveDatabaseUrls}.
 */
function derivedFromDatabaseUrl(role: string, pick: (urls: ReturnType<typeof resolveDatabaseUrls>) => string): DerivedDefault {
  return { describe: `\`DATABASE_URL\` with the login \`${role}\``, compute: (config) => pick(resolveDatabaseUrls(config as DatabaseUrlEnv)) };
}

/** `DATABASE_URL`. */
export function WithDatabase<B extends EnvClass>(Base: B) {
  class DatabaseEnv extends Base {
    /**
     * PostgreSQL connection URL of the API, as its runtime role `ledger_app` (docs/architecture.md §10).
     * It also names the database of every other process: the URLs of the migrations, the relay and the
     * projector default to it with their own login. Several hosts (`host1:port1,host2:port2`) with
     * `target_session_attrs=read-write` follow the primary of a primary–standby pair (docs/operations.md,
     * "A primary with a synchronous standby").
     * @default postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger
     */
    @PostgresUrlVar()
    DATABASE_URL: string = DEFAULT_DATABASE_URL;

    /**
     * Longest a single SQL statement may run on a service's connection (PostgreSQL
     * `statement_timeout`, set at connect on every session of the API, relay, anchor publisher,
     * projector and tools; docs/architecture.md §5). A statement over it is cancelled and its
     * transaction rolled back; the API answers 503 `DATABASE.TIMEOUT`. `0` disables it.
     * @default 30000
     */
    @IntVar(0, 86_400_000, 'ms')
    DB_STATEMENT_TIMEOUT_MS: number = 30_000;

    /**
     * `statement_timeout` of the migrations' (and the rebuild's) owner connections, which may rebuild
     * indexes or whole tables. `0` disables it.
     * @default 600000
     */
    @IntVar(0, 86_400_000, 'ms')
    DB_MIGRATIONS_STATEMENT_TIMEOUT_MS: number = 600_000;

    /**
     * Longest a session may sit idle inside an open transaction before PostgreSQL ends the session
     * (`idle_in_transaction_session_timeout`): a frozen or leaking holder cannot keep its row locks
     * and snapshot. The outbox publishers send to Kafka outside any transaction and cap their own
     * sessions at the lease TTL (`RELAY_LEASE_TTL_MS`); a session idle outside a transaction is not
     * affected. `0` disables it.
     * @default 60000
     */
    @IntVar(0, 86_400_000, 'ms')
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: number = 60_000;

    /**
     * Longest wait to open a connection, and to get one from a full pool (pg `connectionTimeoutMillis`):
     * past it the caller gets an error (the API: 503 `DATABASE.TIMEOUT`) instead of waiting forever.
     * @default 10000
     */
    @IntVar(100, 600_000, 'ms')
    DB_CONNECT_TIMEOUT_MS: number = 10_000;

    /**
     * TCP keepalive on every database connection: idle time before the first probe, on the client's
     * socket and on the server's side of it (`tcp_keepalives_idle`, rounded up to seconds; probes
     * then every `tcp_keepalives_interval` = this / 2, at least 1 s, 3 unanswered ones end the
     * connection), so a peer that vanished is noticed instead of a session hanging.
     * @default 10000
     */
    @IntVar(1_000, 3_600_000, 'ms')
    DB_KEEPALIVE_IDLE_MS: number = 10_000;
  }
  return DatabaseEnv;
}

/** `MIGRATIONS_DATABASE_URL` (with `DATABASE_URL`, which it defaults from). */
export function WithMigrationsDatabase<B extends EnvClass<{ DATABASE_URL: string }>>(Base: B) {
  class MigrationsDatabaseEnv extends Base {
    /**
     * PostgreSQL connection URL of the migrations, as the owner role `ledger_owner`: the API's and the
     * projector's start (`RUN_MIGRATIONS`, on a connection of their own, closed before they serve),
     * `npm run migration:run`, `npm run projections:rebuild` (docs/architecture.md §10).
     * @default `DATABASE_URL` with the login `ledger_owner`
     */
    @PostgresUrlVar({ derived: derivedFromDatabaseUrl('ledger_owner', (u) => u.migrations) })
    MIGRATIONS_DATABASE_URL!: string;
  }
  return MigrationsDatabaseEnv;
}

/** `RELAY_DATABASE_URL` (with `DATABASE_URL`, which it defaults from). */
export function WithRelayDatabase<B extends EnvClass<{ DATABASE_URL: string }>>(Base: B) {
  class RelayDatabaseEnv extends Base {
    /**
     * PostgreSQL connection URL of the outbox relay (and its anchor publisher), as its runtime role
     * `ledger_relay` (docs/architecture.md §10).
     * @default `DATABASE_URL` with the login `ledger_relay`
     */
    @PostgresUrlVar({ derived: derivedFromDatabaseUrl('ledger_relay', (u) => u.relay) })
    RELAY_DATABASE_URL!: string;
  }
  return RelayDatabaseEnv;
}

/** `PROJECTOR_DATABASE_URL` (with `DATABASE_URL`, which it defaults from). */
export function WithProjectorDatabase<B extends EnvClass<{ DATABASE_URL: string }>>(Base: B) {
  class ProjectorDatabaseEnv extends Base {
    /**
     * PostgreSQL connection URL of the projector (and its analytics publisher), as its runtime role
     * `ledger_projector` (docs/architecture.md §10).
     * @default `DATABASE_URL` with the login `ledger_projector`
     */
    @PostgresUrlVar({ derived: derivedFromDatabaseUrl('ledger_projector', (u) => u.projector) })
    PROJECTOR_DATABASE_URL!: string;
  }
  return ProjectorDatabaseEnv;
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

/** `RELAY_HTTP_PORT`, `RELAY_HTTP_HOST`: the relay's probes and metrics listener. */
export function WithRelayHttp<B extends EnvClass>(Base: B) {
  class RelayHttpEnv extends Base {
    /**
     * TCP port of the relay's own HTTP listener: `GET /health/live`, `GET /health/ready`, `GET /metrics`
     * (docs/architecture.md §8). Each relay instance on one machine needs its own. `0`: a free port,
     * logged at start.
     * @default 3001
     */
    @IntVar(0, 65_535, 'port')
    RELAY_HTTP_PORT: number = 3001;

    /**
     * Address the relay's HTTP listener binds to.
     * @default 127.0.0.1
     */
    @TextVar(/^[0-9A-Za-z.:-]{1,253}$/, 'a host name or IP address')
    RELAY_HTTP_HOST: string = '127.0.0.1';
  }
  return RelayHttpEnv;
}

/** `PROJECTOR_HTTP_PORT`, `PROJECTOR_HTTP_HOST`: the projector's probes and metrics listener. */
export function WithProjectorHttp<B extends EnvClass>(Base: B) {
  class ProjectorHttpEnv extends Base {
    /**
     * TCP port of the projector's own HTTP listener: `GET /health/live`, `GET /health/ready`,
     * `GET /metrics` (docs/architecture.md §8). Each projector instance on one machine needs its own.
     * `0`: a free port, logged at start.
     * @default 3002
     */
    @IntVar(0, 65_535, 'port')
    PROJECTOR_HTTP_PORT: number = 3002;

    /**
     * Address the projector's HTTP listener binds to.
     * @default 127.0.0.1
     */
    @TextVar(/^[0-9A-Za-z.:-]{1,253}$/, 'a host name or IP address')
    PROJECTOR_HTTP_HOST: string = '127.0.0.1';
  }
  return ProjectorHttpEnv;
}

/** `LEDGER_EVENTS_TOPIC`. */
export function WithEventsTopic<B extends EnvClass>(Base: B) {
  class EventsTopicEnv extends Base {
    /**
     * The ledger's event topic: the API's outbox rows name it, the relay publishes to it, the projector
     * consumes it, the anchors' verification compares its Kafka copy of every event.
     * @default baccarat.ledger.events.v1
     */
    @TextVar(TOPIC_NAME, 'a Kafka topic name ([A-Za-z0-9._-], 1..249)')
    LEDGER_EVENTS_TOPIC: string = DEFAULT_EVENTS_TOPIC;
  }
  return EventsTopicEnv;
}

/**
 * `GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`: the gaming day (docs/domain-rules.md §4). The projector
 * files rounds under it; the API tells the console (`GET /me`) so times are shown in that zone. Both
 * processes must be given the same values.
 */
export function WithGamingDay<B extends EnvClass>(Base: B) {
  class GamingDayEnv extends Base {
    /**
     * Time zone of the gaming day: a round belongs to the date of its opening there, cut at `GAMING_DAY_CUTOFF_HOUR`.
     * @default UTC
     */
    @TimeZoneVar()
    GAMING_DAY_TZ: string = 'UTC';

    /**
     * Local hour at which a gaming day starts: a round opened before it belongs to the previous date.
     * @default 6
     */
    @IntVar(0, 23, 'hour')
    GAMING_DAY_CUTOFF_HOUR: number = 6;
  }
  return GamingDayEnv;
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
     * Run the migrations at start, as the owner (`MIGRATIONS_DATABASE_URL`, on a connection of their own), under an advisory lock (never `synchronize`).
     * @default true
     */
    @BoolVar()
    RUN_MIGRATIONS: boolean = true;
  }
  return MigrationsEnv;
}
