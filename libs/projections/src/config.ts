import { loadConfig, ProjectorEnv, type EnvSource } from '@ledger/config';
import type { GamingDayConfig } from './gaming-day';

/**
 * The projector's options, from its validated configuration (`ProjectorEnv` of `@ledger/config`;
 * docs/architecture.md §5). The library reads no environment: the process reads it once at start
 * and passes these down.
 */
export interface ProjectorConfig {
  /**
   * The projector's own login, `ledger_projector` (docs/architecture.md §10): `PROJECTOR_DATABASE_URL`.
   * @default `DATABASE_URL` with the login `ledger_projector`
   */
  readonly databaseUrl: string;
  /**
   * The owner's login, for the read-model migrations and rebuilds: `MIGRATIONS_DATABASE_URL`.
   * @default `DATABASE_URL` with the login `ledger_owner`
   */
  readonly migrationsDatabaseUrl: string;
  /** `KAFKA_BROKERS`, comma-separated. @default ['127.0.0.1:9092'] */
  readonly kafkaBrokers: string[];
  /** `LEDGER_EVENTS_TOPIC`. @default 'baccarat.ledger.events.v1' */
  readonly topic: string;
  /** `PROJECTOR_GROUP`: Kafka consumer group and checkpoint owner. @default 'ledger-projector' */
  readonly groupId: string;
  /** `PROJECTIONS_SCHEMA`. @default 'read' */
  readonly schema: string;
  /** `GAMING_DAY_TZ` (default UTC), `GAMING_DAY_CUTOFF_HOUR` (default 6). */
  readonly gamingDay: GamingDayConfig;
  /** `PROJECTOR_PARTITIONS_CONCURRENTLY`. @default 2 */
  readonly partitionsConsumedConcurrently: number;
  /** `PROJECTOR_MAX_RECORDS_PER_TX`. @default 10000 */
  readonly maxRecordsPerTransaction: number;
  /** `PROJECTOR_MAX_BYTES_PER_PARTITION`. @default 8388608 */
  readonly maxBytesPerPartition: number;
  /** `PROJECTOR_INCIDENT_POLL_MS`: how often open incidents are read (docs/guarantees.md §6). @default 5000 */
  readonly incidentPollMs: number;
  /** `RUN_MIGRATIONS` (`false` to skip). @default true */
  readonly runMigrations: boolean;
  /** `LOG_LEVEL`. @default 'info' */
  readonly logLevel: string;
  /** `PROJECTOR_FAULT_DELAY_IN_TX_MS`: fault injection for tests, never in production. @default 0 */
  readonly faultDelayInTxMs: number;
  /**
   * `LEDGER_EVENTS_DLQ_TOPIC`: where quarantined records are copied.
   * @default `topic` with `.dlq` before its `.vN` suffix (`baccarat.ledger.events.dlq.v1`)
   */
  readonly deadLetterTopic: string;
}

/** The projector's options of a validated configuration. */
export function projectorConfig(env: ProjectorEnv): ProjectorConfig {
  return {
    databaseUrl: env.PROJECTOR_DATABASE_URL,
    migrationsDatabaseUrl: env.MIGRATIONS_DATABASE_URL,
    kafkaBrokers: [...env.KAFKA_BROKERS],
    topic: env.LEDGER_EVENTS_TOPIC,
    groupId: env.PROJECTOR_GROUP,
    schema: env.PROJECTIONS_SCHEMA,
    gamingDay: { timeZone: env.GAMING_DAY_TZ, cutoffHour: env.GAMING_DAY_CUTOFF_HOUR },
    partitionsConsumedConcurrently: env.PROJECTOR_PARTITIONS_CONCURRENTLY,
    maxRecordsPerTransaction: env.PROJECTOR_MAX_RECORDS_PER_TX,
    maxBytesPerPartition: env.PROJECTOR_MAX_BYTES_PER_PARTITION,
    incidentPollMs: env.PROJECTOR_INCIDENT_POLL_MS,
    runMigrations: env.RUN_MIGRATIONS,
    logLevel: env.LOG_LEVEL,
    faultDelayInTxMs: env.PROJECTOR_FAULT_DELAY_IN_TX_MS,
    deadLetterTopic: env.LEDGER_EVENTS_DLQ_TOPIC,
  };
}

/**
 * Reads and validates the projector's configuration, then maps it ({@link projectorConfig}). For
 * the command-line tools (`npm run projections:rebuild`); the projector process uses
 * `loadConfig(ProjectorEnv, process.env)` itself.
 * @param env the environment; the process's own when omitted
 * @throws ConfigError `CONFIG.INVALID` naming every bad variable
 */
export function projectorConfigFromEnv(env?: EnvSource): ProjectorConfig {
  return projectorConfig(loadConfig(ProjectorEnv, env));
}
