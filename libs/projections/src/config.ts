import { LEDGER_EVENTS_TOPIC, resolveDatabaseUrls } from '@ledger/infra';
import { DEFAULT_PROJECTOR_GROUP } from './applier';
import { ProjectionError } from './errors';
import { GamingDayConfig, gamingDayConfigFromEnv } from './gaming-day';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from './schema-name';

/** Everything the projector process reads from its environment. */
export interface ProjectorConfig {
  /**
   * The projector's own login, `ledger_projector` (docs/architecture.md §10): `PROJECTOR_DATABASE_URL`.
   * @default `DATABASE_URL`'s database (default the local `ledger`) as `ledger_projector`
   */
  readonly databaseUrl: string;
  /**
   * The owner's login, for the read-model migrations and rebuilds: `MIGRATIONS_DATABASE_URL`.
   * @default `DATABASE_URL`'s database as `ledger_owner`
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
  /** `PROJECTOR_PARTITIONS_CONCURRENTLY`. @default 1 */
  readonly partitionsConsumedConcurrently: number;
  /** `PROJECTOR_MAX_RECORDS_PER_TX`. @default 2000 */
  readonly maxRecordsPerTransaction: number;
  /** `PROJECTOR_MAX_BYTES_PER_PARTITION`. @default 1048576 */
  readonly maxBytesPerPartition: number;
  /** `RUN_MIGRATIONS` (`false` to skip). @default true */
  readonly runMigrations: boolean;
  /** `LOG_LEVEL`. @default 'info' */
  readonly logLevel: string;
  /** `PROJECTOR_FAULT_DELAY_IN_TX_MS`: fault injection for tests, never in production. @default 0 */
  readonly faultDelayInTxMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `${name} must be an integer ${min}..${max}, got ${JSON.stringify(raw)}`, { name });
  }
  return n;
}

/**
 * Reads the projector's configuration from the environment.
 * @throws ProjectionError `PROJECTION.BAD_CONFIG`, `PROJECTION.BAD_SCHEMA_NAME`
 */
export function projectorConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ProjectorConfig {
  const brokers = (env.KAFKA_BROKERS || '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new ProjectionError('PROJECTION.BAD_CONFIG', 'KAFKA_BROKERS names no broker');
  return {
    databaseUrl: resolveDatabaseUrls(env).projector,
    migrationsDatabaseUrl: resolveDatabaseUrls(env).migrations,
    kafkaBrokers: brokers,
    topic: env.LEDGER_EVENTS_TOPIC || LEDGER_EVENTS_TOPIC,
    groupId: env.PROJECTOR_GROUP || DEFAULT_PROJECTOR_GROUP,
    schema: assertSchemaName(env.PROJECTIONS_SCHEMA || DEFAULT_READ_SCHEMA),
    gamingDay: gamingDayConfigFromEnv(env),
    partitionsConsumedConcurrently: int(env, 'PROJECTOR_PARTITIONS_CONCURRENTLY', 1, 1, 64),
    maxRecordsPerTransaction: int(env, 'PROJECTOR_MAX_RECORDS_PER_TX', 2000, 1, 100_000),
    maxBytesPerPartition: int(env, 'PROJECTOR_MAX_BYTES_PER_PARTITION', 1_048_576, 1024, 104_857_600),
    runMigrations: env.RUN_MIGRATIONS !== 'false',
    logLevel: env.LOG_LEVEL || 'info',
    faultDelayInTxMs: int(env, 'PROJECTOR_FAULT_DELAY_IN_TX_MS', 0, 0, 600_000),
  };
}
