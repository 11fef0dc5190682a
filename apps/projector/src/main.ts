/**
 * The projector: runs the read-side projections as its own process (docs/architecture.md §7).
 *
 *   npx tsx apps/projector/src/main.ts
 *
 * Configuration: `ProjectorEnv` of `@ledger/config` (docs/architecture.md §5; the README's table):
 * PROJECTOR_DATABASE_URL (the projector's own role, `ledger_projector`), MIGRATIONS_DATABASE_URL (the
 * read-model migrations, as the owner `ledger_owner`; both default to DATABASE_URL's database with
 * their own login, docs/architecture.md §10), DATABASE_URL, KAFKA_BROKERS, LEDGER_EVENTS_TOPIC,
 * PROJECTOR_GROUP, PROJECTIONS_SCHEMA, GAMING_DAY_TZ / GAMING_DAY_CUTOFF_HOUR,
 * PROJECTOR_PARTITIONS_CONCURRENTLY, PROJECTOR_MAX_RECORDS_PER_TX, PROJECTOR_MAX_BYTES_PER_PARTITION, PROJECTOR_INCIDENT_POLL_MS,
 * RUN_MIGRATIONS, LOG_LEVEL, RECORD_SIGNING_KEY, LEDGER_EVENTS_DLQ_TOPIC, METRICS_PORT / METRICS_HOST
 * (this process's own GET /metrics, off by default: `ledger_projection_halts_total{code}`,
 * `ledger_projector_halted_partitions`, process metrics; docs/architecture.md §8), and for tests only
 * PROJECTOR_FAULT_DELAY_IN_TX_MS. Read once here and
 * validated: a bad value stops the process with exit code 1 and a message naming the variable and
 * the form it expects.
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
import { createKafka } from '@ledger/kafka';
import pino from 'pino';
import { collectProcessMetrics, gauge, serveMetrics } from '@ledger/metrics';
import { ConfigError, loadConfig, ProjectorEnv } from '@ledger/config';
import { configureDatabaseSessions, currentDatabaseSessionSettings } from '@ledger/infra';
import {
  AnalyticsPublisher,
  analyticsConfig,
  createProjectionDataSource,
  ProjectionRunner,
  projectorConfig,
  runProjectionMigrations,
} from '@ledger/projections';

async function main(): Promise<void> {
  const env = loadConfig(ProjectorEnv, process.env);
  // timeouts and keepalives of every session of this process (docs/architecture.md §5)
  configureDatabaseSessions(env);
  const config = projectorConfig(env);
  const analytics = analyticsConfig(env);
  const signing = recordSigningKey(env);
  const logger = pino({ name: 'projector', level: config.logLevel });
  if (signing.developmentKey) logger.warn({ variable: 'RECORD_SIGNING_KEY' }, 'RECORD_SIGNING_KEY unset: verifying records with the public development key (development mode only)');
  logger.info(
    { topic: config.topic, deadLetterTopic: config.deadLetterTopic, groupId: config.groupId, schema: config.schema, gamingDay: config.gamingDay, analytics: { enabled: analytics.enabled, publish: analytics.publish, topics: analytics.topics } },
    'projector starting',
  );

  const ds = createProjectionDataSource(config.databaseUrl, {
    // visible in pg_stat_activity; the group makes it unique per deployment (and per test)
    applicationName: `ledger-projector:${config.groupId}`.slice(0, 63),
    poolSize: config.partitionsConsumedConcurrently + 3,
  });
  if (config.runMigrations) {
    // as the owner, on a connection of its own: the projector's login creates nothing (docs/guarantees.md §12)
    const owner = createProjectionDataSource(config.migrationsDatabaseUrl, { applicationName: `ledger-migrations:${config.groupId}`.slice(0, 63), poolSize: 1, session: currentDatabaseSessionSettings('migrations') });
    await owner.initialize();
    try {
      const { applied } = await runProjectionMigrations(owner, { schema: config.schema });
      logger.info({ schema: config.schema, applied }, 'read-model migrations up to date');
    } finally {
      await owner.destroy();
    }
  }
  await ds.initialize();

  const kafkaLog = logger.child({ component: 'kafkajs' });
  const kafka = createKafka({
    clientId: `ledger-projector-${process.pid}`,
    brokers: config.kafkaBrokers,
    logLevel: 'warn',
    logger: kafkaLog,
  });

  const publisher = analytics.publish
    ? new AnalyticsPublisher({
        kafka,
        databaseUrl: config.databaseUrl,
        schema: config.schema,
        topics: analytics.topics,
        batchSize: analytics.batchSize,
        pollIntervalMs: analytics.pollIntervalMs,
        retainPublishedMs: analytics.retainPublishedHours === 0 ? null : analytics.retainPublishedHours * 3600 * 1000,
        crashPoint: analytics.crashPoint,
        logger: logger.child({ component: 'analytics-publisher' }),
      })
    : null;

  const runner = new ProjectionRunner({
    kafka,
    ds,
    topic: config.topic,
    groupId: config.groupId,
    schema: config.schema,
    gamingDay: config.gamingDay,
    logger,
    partitionsConsumedConcurrently: config.partitionsConsumedConcurrently,
    maxRecordsPerTransaction: config.maxRecordsPerTransaction,
    maxBytesPerPartition: config.maxBytesPerPartition,
    faultDelayInTxMs: config.faultDelayInTxMs,
    analytics: analytics.enabled,
    recordSigningKey: signing.key,
    deadLetterTopic: config.deadLetterTopic,
    incidentPollMs: config.incidentPollMs,
    // a committed transaction may have written outbox rows: publish them now rather than at the next poll
    onProgress: () => publisher?.wake(),
  });

  let stopping = false;
  const shutdown = async (signal: string, code: number) => {
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
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  runner.failed.catch((err: unknown) => {
    logger.fatal({ err: String(err), code: (err as { code?: string }).code }, 'consumer stopped for good; exiting');
    void shutdown('fatal', 1);
  });

  if (env.METRICS_PORT > 0) {
    collectProcessMetrics();
    gauge('ledger_projector_halted_partitions', 'partitions this projector process holds halted (open incidents)', [], function () {
      this.set(runner.haltedPartitions.size);
    });
    await serveMetrics(env.METRICS_PORT, env.METRICS_HOST);
    logger.info({ port: env.METRICS_PORT, host: env.METRICS_HOST }, 'metrics listener up');
  }
  await publisher?.start();
  await runner.start();
  logger.info({}, 'projector running');
}

main().catch((err: unknown) => {
  process.stderr.write(`projector: ${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
