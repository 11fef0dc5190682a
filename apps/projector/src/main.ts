/**
 * The projector: runs the read-side projections as its own process (docs/architecture.md §7).
 *
 *   npx tsx apps/projector/src/main.ts
 *
 * Configuration: `ProjectorEnv` of `@ledger/config` (docs/architecture.md §5; docs/configuration.md):
 * PROJECTOR_DATABASE_URL (the projector's own role, `ledger_projector`), MIGRATIONS_DATABASE_URL (the
 * read-model migrations, as the owner `ledger_owner`; both default to DATABASE_URL's database with
 * their own login, docs/architecture.md §10), DATABASE_URL, KAFKA_BROKERS, LEDGER_EVENTS_TOPIC,
 * PROJECTOR_GROUP, PROJECTIONS_SCHEMA, GAMING_DAY_TZ / GAMING_DAY_CUTOFF_HOUR,
 * PROJECTOR_PARTITIONS_CONCURRENTLY, PROJECTOR_MAX_RECORDS_PER_TX, PROJECTOR_MAX_BYTES_PER_PARTITION, PROJECTOR_INCIDENT_POLL_MS,
 * RUN_MIGRATIONS, LOG_LEVEL, RECORD_SIGNING_KEY, LEDGER_EVENTS_DLQ_TOPIC, PROJECTOR_HTTP_PORT /
 * PROJECTOR_HTTP_HOST (this process's own HTTP listener, default 127.0.0.1:3002: `GET /health/live`,
 * `GET /health/ready`, `GET /metrics` with `ledger_projection_halts_total{code}`,
 * `ledger_projector_halted_partitions`, `ledger_projector_lag_records{topic,partition}`, the apply
 * histogram and counters (apps/projector/src/metrics.ts, the runner), process metrics; docs/architecture.md §8), and for tests only
 * PROJECTOR_FAULT_DELAY_IN_TX_MS. Read once here and
 * validated: a bad value stops the process with exit code 1 and a message naming the variable and
 * the form it expects; so does a database or a Kafka broker that does not answer at start
 * (`STARTUP.DATABASE_UNREACHABLE`, `STARTUP.BROKER_UNREACHABLE`, naming the variable to set).
 *
 * Analytics topics: each committed transaction also writes the analytics records of its events to
 * `<schema>.analytics_outbox` (ANALYTICS_ENABLED, default true), and an `AnalyticsPublisher` in this
 * process sends them to the analytics topics (ANALYTICS_PUBLISH, default true; one publisher per
 * schema at a time, by advisory lock, so several projector instances may run it). Topic names:
 * ANALYTICS_ROUND_OUTCOMES_TOPIC, ANALYTICS_SETTLEMENTS_TOPIC, ANALYTICS_ROADS_TOPIC; also
 * ANALYTICS_PUBLISH_BATCH_SIZE, ANALYTICS_POLL_INTERVAL_MS, ANALYTICS_RETAIN_PUBLISHED_HOURS, and for
 * tests only ANALYTICS_PUBLISHER_CRASH_POINT (before-send | after-send: exit 137 there).
 *
 * Verification (docs/guarantees.md §8): every record must carry the relay's signature (`ledger-sig`,
 * HMAC-SHA256 with RECORD_SIGNING_KEY, required outside development mode; in development mode, when
 * unset, the public development key, with a warning), a hash equal to the hash of its canonical
 * bytes and a link to the last applied event of its stream. A record that fails is quarantined in
 * `<schema>.quarantine` and copied to LEDGER_EVENTS_DLQ_TOPIC (created when missing), never
 * applied; the partition goes on.
 *
 * Halts (docs/guarantees.md §6): an event the projections cannot apply, or a topic that is not the
 * one the checkpoint was taken on (re-created, offsets gone backwards, log truncated), halts THAT
 * partition: an incident row in `<schema>.projection_incidents` (shown by the API's
 * `GET /projections/status` and `GET /health`), the counter `ledger_projection_halts_total{code}`, a
 * log line; the other partitions go on and the process keeps running. It resumes when the incident
 * is resolved (`npm run -s projections:resume`), within PROJECTOR_INCIDENT_POLL_MS.
 *
 * Plain TypeScript with explicit construction (no Nest DI: `tsx` emits no decorator metadata).
 * Logs are JSON lines (pino) on stdout. Exit codes: 0 after SIGTERM/SIGINT (the transaction in
 * hand commits or rolls back, then the consumer leaves its group); 1 on a bad configuration or a
 * fatal error of the consumer itself (a halted partition is not one).
 */
import { recordSigningKey } from '@ledger/event-store';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import pino from 'pino';
import { registerProjectorMetrics } from './metrics';
import { loadConfig, ProjectorEnv, startFailureText } from '@ledger/config';
import {
  assertBrokerReachable,
  assertDatabaseReachable,
  CheckDown,
  configureDatabaseSessions,
  currentDatabaseSessionSettings,
  healthRunner,
  kafkaCheck,
  postgresCheck,
  probeSession,
  schemaCheck,
  serveOps,
  withTimeout,
} from '@ledger/infra';
import type { AddressInfo } from 'node:net';
import { initTracing } from '@ledger/tracing';
import { createProjectionDataSource, ProjectionRunner, projectorConfig, runProjectionMigrations } from '@ledger/projections';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, AnalyticsPublisher, analyticsConfig, projectorReadModelRelations, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/** The projector's settings (`projectorConfig` of the environment). */
type ProjectorConfig = ReturnType<typeof projectorConfig>;

async function main(): Promise<void> {
  const env = loadConfig(ProjectorEnv, process.env);
  initTracing('ledger-projector', env); // OpenTelemetry, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/architecture.md §11)
  // timeouts and keepalives of every session of this process (docs/architecture.md §5)
  configureDatabaseSessions(env);
  const config = projectorConfig(env);
  const analytics = analyticsConfig(env);
  const signing = recordSigningKey(env);
  const logger = pino({ name: 'projector', level: config.logLevel });
  if (signing.developmentKey) logger.warn({ variable: 'RECORD_SIGNING_KEY' }, 'RECORD_SIGNING_KEY unset: verifying records with the public development key (development mode only)');
  const { topic, deadLetterTopic, groupId, schema, gamingDay } = config;
  logger.info({ topic, deadLetterTopic, groupId, schema, gamingDay, analytics: { enabled: analytics.enabled, publish: analytics.publish, topics: analytics.topics } }, 'projector starting');
  await assertDependencies(config);

  const ds = createProjectionDataSource(config.databaseUrl, {
    // visible in pg_stat_activity; the group makes it unique per deployment (and per test)
    applicationName: `ledger-projector:${config.groupId}`.slice(0, 63),
    poolSize: config.partitionsConsumedConcurrently + 3,
  });
  if (config.runMigrations) await migrateReadModel(config, logger);
  await ds.initialize();

  const kafkaLog = logger.child({ component: 'kafkajs' });
  const kafka = createKafka({
    clientId: `ledger-projector-${process.pid}`,
    brokers: config.kafkaBrokers,
    logLevel: 'warn',
    logger: kafkaLog,
  });

  const publisher = analytics.publish ? analyticsPublisher(kafka, config, analytics, logger) : null;

  const runner = new ProjectionRunner({
    kafka,
    ds,
    topic: config.topic,
    groupId: config.groupId,
    schema: config.schema,
    projections: ALL_PROJECTIONS,
    gamingDay: config.gamingDay,
    logger,
    partitionsConsumedConcurrently: config.partitionsConsumedConcurrently,
    maxRecordsPerTransaction: config.maxRecordsPerTransaction,
    maxBytesPerPartition: config.maxBytesPerPartition,
    faultDelayInTxMs: config.faultDelayInTxMs,
    effects: analytics.enabled ? [ANALYTICS_OUTBOX_EFFECT] : [],
    recordSigningKey: signing.key,
    deadLetterTopic: config.deadLetterTopic,
    incidentPollMs: config.incidentPollMs,
    // a committed transaction may have written outbox rows: publish them now rather than at the next poll
    onProgress: () => publisher?.wake(),
  });

  const shutdown = shutdownOf(runner, publisher, ds, logger);
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  runner.failed.catch((err: unknown) => {
    logger.fatal({ err: String(err), code: (err as { code?: string }).code }, 'consumer stopped for good; exiting');
    void shutdown('fatal', 1);
  });

  await serveProjectorHttp(env, config, runner, logger);
  await publisher?.start();
  await runner.start();
  logger.info({}, 'projector running');
}

/**
 * The database (the projector's URL, and the owner's when it migrates) and a Kafka broker must answer
 * before anything starts (a broker restarting has 10 s).
 * @throws StartupError naming the variable to set
 */
async function assertDependencies(config: ProjectorConfig): Promise<void> {
  const named = (own: string) => (process.env[own] ? own : 'DATABASE_URL');
  await assertDatabaseReachable(config.databaseUrl, named('PROJECTOR_DATABASE_URL'));
  if (config.runMigrations) await assertDatabaseReachable(config.migrationsDatabaseUrl, named('MIGRATIONS_DATABASE_URL'));
  const probe = createKafka({ clientId: `ledger-projector-start-${process.pid}`, brokers: config.kafkaBrokers, logLevel: 'nothing', retries: 0, connectionTimeoutMs: 1000, requestTimeoutMs: 1500 });
  await assertBrokerReachable(probe, config.kafkaBrokers);
}

/** The read model's migrations, as the owner on a connection of its own (RUN_MIGRATIONS). */
async function migrateReadModel(config: ProjectorConfig, logger: pino.Logger): Promise<void> {
  // as the owner, on a connection of its own: the projector's login creates nothing (docs/guarantees.md §12)
  const owner = createProjectionDataSource(config.migrationsDatabaseUrl, { applicationName: `ledger-migrations:${config.groupId}`.slice(0, 63), poolSize: 1, session: currentDatabaseSessionSettings('migrations') });
  await owner.initialize();
  try {
    const { applied } = await runProjectionMigrations(owner, { schema: config.schema, migrations: READ_MODEL_MIGRATIONS });
    logger.info({ schema: config.schema, applied }, 'read-model migrations up to date');
  } finally {
    await owner.destroy();
  }
}

/** The publisher of the analytics outbox to the analytics topics (ANALYTICS_PUBLISH). */
function analyticsPublisher(kafka: KafkaClient, config: ProjectorConfig, analytics: ReturnType<typeof analyticsConfig>, logger: pino.Logger): AnalyticsPublisher {
  return new AnalyticsPublisher({
    kafka,
    databaseUrl: config.databaseUrl,
    schema: config.schema,
    topics: analytics.topics,
    batchSize: analytics.batchSize,
    pollIntervalMs: analytics.pollIntervalMs,
    retainPublishedMs: analytics.retainPublishedHours === 0 ? null : analytics.retainPublishedHours * 3600 * 1000,
    crashPoint: analytics.crashPoint,
    logger: logger.child({ component: 'analytics-publisher' }),
  });
}

/**
 * The process's shutdown, once: logs the progress, stops the runner (the transaction in hand ends),
 * then the publisher, closes the database and exits with `code`; forced after 30 s.
 */
function shutdownOf(runner: ProjectionRunner, publisher: AnalyticsPublisher | null, ds: ReturnType<typeof createProjectionDataSource>, logger: pino.Logger): (signal: string, code: number) => Promise<void> {
  let stopping = false;
  return async (signal: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, progress: { ...runner.progress, positions: Object.fromEntries([...runner.progress.positions].map(([p, o]) => [p, o.toString()])) } }, 'projector stopping');
    const force = setTimeout(() => {
      logger.error({}, 'shutdown timed out; exiting');
      process.exit(code || 1);
    }, 30_000);
    force.unref();
    await runner.stop();
    // after the runner: the last transaction's records are committed; what is left stays in the outbox for the next start
    await publisher?.stop();
    if (ds.isInitialized) await ds.destroy();
    logger.info({}, 'projector stopped');
    process.exit(code);
  };
}

/**
 * The projector's HTTP listener on PROJECTOR_HTTP_HOST:PROJECTOR_HTTP_PORT (docs/architecture.md §8):
 * `/health/live`, `/health/ready`, `/metrics`. Readiness: `postgres` (`SELECT 1` on the probe's own
 * session), `migrations` (the read model's tables exist in PROJECTIONS_SCHEMA), `kafka`
 * (`describeCluster`), `projections`: `assigned` partitions, `lag` per partition (high watermark minus
 * the next offset to apply; `null` before the first record), and `halted` (partition, code): any
 * halted partition makes readiness fail (docs/guarantees.md §6). Each check is bounded by 1.5 s.
 * @throws the listen error (EADDRINUSE: another projector holds the port)
 */
async function serveProjectorHttp(env: ProjectorEnv, config: ReturnType<typeof projectorConfig>, runner: ProjectionRunner, logger: pino.Logger): Promise<void> {
  const pg = probeSession(config.databaseUrl, `ledger-projector-probe`);
  const probeKafka = createKafka({ clientId: `ledger-projector-probe-${process.pid}`, brokers: config.kafkaBrokers, logLevel: 'nothing', retries: 0, connectionTimeoutMs: 1000, requestTimeoutMs: 1500 });
  let offsetsAdmin: ReturnType<typeof probeKafka.admin> | null = null;
  const highWatermarks = async (): Promise<Map<number, bigint> | null> => {
    try {
      if (!offsetsAdmin) {
        offsetsAdmin = probeKafka.admin();
        await offsetsAdmin.connect();
      }
      const offsets = await withTimeout(offsetsAdmin.fetchTopicOffsets(config.topic), 1000, 'topic offsets');
      return new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
    } catch {
      const a = offsetsAdmin;
      offsetsAdmin = null;
      if (a) void a.disconnect().catch(() => undefined);
      return null;
    }
  };
  registerProjectorMetrics(runner, config.topic, highWatermarks); // docs/architecture.md §8
  const ready = healthRunner({
    postgres: postgresCheck(pg.query),
    migrations: schemaCheck(pg.query, projectorReadModelRelations(config.schema)),
    kafka: kafkaCheck(probeKafka),
    projections: async () => {
      const assigned = runner.assignedPartitions;
      const halted = [...runner.haltedPartitions].map(([partition, code]) => ({ partition, code }));
      const highs = await highWatermarks();
      const positions = runner.progress.positions;
      const lag = Object.fromEntries(
        assigned.map((p) => {
          const high = highs?.get(p);
          const next = positions.get(p);
          return [String(p), high === undefined || next === undefined ? null : Number(high > next ? high - next : 0n)];
        }),
      );
      const details = { topic: config.topic, groupId: config.groupId, assigned, lag, halted };
      if (halted.length > 0) throw new CheckDown(`${halted.length} partition(s) halted: ${halted.map((h) => `${h.partition} ${h.code}`).join(', ')}`, details);
      return details;
    },
  });
  const server = await serveOps(env.PROJECTOR_HTTP_PORT, env.PROJECTOR_HTTP_HOST, ready);
  logger.info({ port: (server.address() as AddressInfo).port, host: env.PROJECTOR_HTTP_HOST }, 'projector HTTP listener up (/health/live, /health/ready, /metrics)');
}

main().catch((err: unknown) => {
  process.stderr.write(`projector: ${startFailureText(err)}\n`);
  process.exit(1);
});
