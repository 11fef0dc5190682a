/**
 * The outbox relay as its own process: publishes the ledger's committed events from PostgreSQL's
 * outbox to Kafka (docs/guarantees.md §4). Run one or more; the holder of the lease publishes, the others stand by.
 *
 *   npx tsx apps/relay/src/main.ts
 *
 * Configuration: `RelayEnv` of `@ledger/config` (docs/architecture.md §5; docs/configuration.md):
 *   RELAY_DATABASE_URL      [DATABASE_URL with the login ledger_relay]   the relay's own role (docs/architecture.md §10)
 *   DATABASE_URL            [postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger]   names the database
 *   KAFKA_BROKERS           [127.0.0.1:9092]   comma-separated
 *   RELAY_BATCH_SIZE        [2000]             rows per transaction, 1..5000
 *   RELAY_POLL_INTERVAL_MS  [200]              polling fallback to LISTEN/NOTIFY, 10..60000
 *   RELAY_LEASE_TTL_MS      [5000]             leadership lease: a frozen leader loses it this long after its last renewal
 *   RELAY_STANDBY_RETRY_MS  [1000]             how often a standby tries to take the lease
 *   OUTBOX_RETENTION_MS     [604800000]        published outbox rows are deleted this long after publication (7 days)
 *   OUTBOX_PRUNE_INTERVAL_MS [60000]           pause between two prunings
 *   LOG_LEVEL               [info]             pino level; JSON lines on stdout
 *   RELAY_HTTP_PORT, RELAY_HTTP_HOST [3001, 127.0.0.1]  the relay's own HTTP listener (docs/architecture.md §8):
 *                           GET /health/live, GET /health/ready (PostgreSQL, schema, Kafka, leader or
 *                           standby, outbox backlog), GET /metrics (ledger_relay_leader,
 *                           ledger_outbox_unpublished_rows, ledger_outbox_published_total, ...)
 *   RECORD_SIGNING_KEY      the HMAC key of the records' `ledger-sig` header (the projector's too);
 *                           required outside development mode; in development mode, when unset,
 *                           the public development key, with a warning (docs/architecture.md §10)
 *   RELAY_CRASH_POINT       tests only: `before-send` | `after-send` exits with 137 at that point
 *   ANCHOR_PRIVATE_KEY_FILE, ANCHOR_FILE, ANCHOR_TOPIC, ANCHOR_INTERVAL_MS, ANCHOR_REQUIRED, LEDGER_ID
 *                           the anchor publisher (docs/anchors.md); without a key outside development
 *                           mode anchoring is off, or, with ANCHOR_REQUIRED=true, the relay refuses to start
 * Read once here and validated: a bad value (e.g. `RELAY_POLL_INTERVAL_MS=abc`) stops the process
 * with exit code 1 and a message naming the variable and the form it expects; so does a database
 * that does not answer at start (`STARTUP.DATABASE_UNREACHABLE`, naming RELAY_DATABASE_URL or
 * DATABASE_URL). Kafka may be down: the outbox holds the events until it is back.
 *
 * SIGTERM / SIGINT: finishes the batch in progress, releases the lease, exits 0 (1 if stopping takes
 * more than 15 s). The schema must exist: the API or `npm run migration:run` migrates, not the relay.
 */
import { ConfigError, loadConfig, RelayEnv, StartupError } from '@ledger/config';
import { assertDatabaseReachable, CheckDown, configureDatabaseSessions, healthRunner, kafkaCheck, postgresCheck, probeSession, schemaCheck, serveOps, type ProbeQuery } from '@ledger/infra';
import { createKafka } from '@ledger/kafka';
import { collectProcessMetrics, gauge } from '@ledger/metrics';
import type { AddressInfo } from 'node:net';
import { registerRelayMetrics } from './metrics';
import { OutboxRelay, defaultLogger, errorFields, recordSigningKey, type RecordSigningKey } from '@ledger/event-store';
import { anchorPublisherSettings, startAnchorPublisher } from '@ledger/anchors';
import { initTracing } from '@ledger/tracing';

const STOP_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  let config: RelayEnv;
  let signing: RecordSigningKey;
  try {
    config = loadConfig(RelayEnv, process.env);
    // timeouts and keepalives of the relay's and the anchor publisher's sessions (docs/architecture.md §5)
    configureDatabaseSessions(config);
    signing = recordSigningKey(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`ledger-relay: ${err.message}\n`);
    process.exit(1);
  }
  // a database that does not answer at start stops the relay with one line naming the variable
  await assertDatabaseReachable(config.RELAY_DATABASE_URL, process.env.RELAY_DATABASE_URL ? 'RELAY_DATABASE_URL' : 'DATABASE_URL');
  initTracing('ledger-relay', config); // OpenTelemetry, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/architecture.md §11)
  const logger = defaultLogger('ledger-relay', config.LOG_LEVEL);
  if (signing.developmentKey) logger.warn({ variable: 'RECORD_SIGNING_KEY' }, 'RECORD_SIGNING_KEY unset: signing records with the public development key (development mode only)');
  const relay = new OutboxRelay({
    databaseUrl: config.RELAY_DATABASE_URL,
    brokers: config.KAFKA_BROKERS,
    batchSize: config.RELAY_BATCH_SIZE,
    pollIntervalMs: config.RELAY_POLL_INTERVAL_MS,
    standbyRetryMs: config.RELAY_STANDBY_RETRY_MS,
    leaseTtlMs: config.RELAY_LEASE_TTL_MS,
    retentionMs: config.OUTBOX_RETENTION_MS,
    pruneIntervalMs: config.OUTBOX_PRUNE_INTERVAL_MS,
    crashPoint: config.RELAY_CRASH_POINT ?? null,
    recordSigningKey: signing.key,
    logger,
  });

  // the signed checkpoints of the stream heads, outside PostgreSQL (docs/architecture.md §10); they
  // read events and outbox, as the relay's own role
  const anchors = await startAnchorPublisher({ ...anchorPublisherSettings(config), logger, databaseUrl: config.RELAY_DATABASE_URL, brokers: config.KAFKA_BROKERS, leaseTtlMs: config.RELAY_LEASE_TTL_MS });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping relay');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: STOP_TIMEOUT_MS }, 'relay did not stop in time; exiting');
      process.exit(1);
    }, STOP_TIMEOUT_MS);
    timer.unref();
    Promise.all([relay.stop(), anchors.stop()]).then(
      () => process.exit(0),
      (err) => {
        logger.error(errorFields(err), 'relay stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  registerRelayMetrics(config);
  await serveRelayHttp(config, relay, logger);
  await relay.start();
}

/** The relations the relay reads and writes: present once the event store's migrations ran (docs/guarantees.md §4). */
const RELAY_RELATIONS = ['public.events', 'public.outbox', 'public.outbox_leases', 'public.outbox_progress'] as const;

/**
 * The outbox backlog: unpublished rows and the age of the oldest, in ms (by PostgreSQL's clock).
 * @returns `{ unpublished: 0, oldestUnpublishedAgeMs: null }` when the outbox is drained
 */
async function outboxBacklog(query: ProbeQuery): Promise<{ unpublished: number; oldestUnpublishedAgeMs: number | null }> {
  const [row] = await query<{ n: string; age_ms: string | null }>(`SELECT count(*) AS n, (extract(epoch FROM now() - min(enqueued_at)) * 1000)::bigint AS age_ms FROM outbox WHERE published_at IS NULL`);
  return { unpublished: Number(row.n), oldestUnpublishedAgeMs: row.age_ms === null ? null : Number(row.age_ms) };
}

/**
 * The relay's HTTP listener on RELAY_HTTP_HOST:RELAY_HTTP_PORT (docs/architecture.md §8):
 * `/health/live`, `/health/ready` and `/metrics`. Readiness: `postgres` (`SELECT 1` on the probe's
 * own session), `migrations` ({@link RELAY_RELATIONS} exist), `kafka` (`describeCluster`), `relay`
 * (`role: leader | standby`, both ready, with the backlog: `unpublished` rows and
 * `oldestUnpublishedAgeMs`, what an operator watches during a Kafka outage, docs/guarantees.md §4).
 * Each check is bounded by 1.5 s. The gauges `ledger_relay_leader` and `ledger_outbox_unpublished_rows`
 * (-1 when the count failed) are read at each scrape.
 * @throws the listen error (EADDRINUSE: another relay holds the port)
 */
async function serveRelayHttp(config: RelayEnv, relay: OutboxRelay, logger: ReturnType<typeof defaultLogger>): Promise<void> {
  collectProcessMetrics();
  const pg = probeSession(config.RELAY_DATABASE_URL, 'ledger-relay-probe');
  gauge('ledger_relay_leader', '1 while this relay holds the lease and publishes, else 0', [], function () {
    this.set(relay.isLeader ? 1 : 0);
  });
  gauge('ledger_outbox_unpublished_rows', 'outbox rows not yet published to Kafka (all relays); -1 when the count failed', [], async function () {
    this.set(
      await outboxBacklog(pg.query).then(
        (b) => b.unpublished,
        () => -1,
      ),
    );
  });
  const probeKafka = createKafka({ clientId: `ledger-relay-probe-${process.pid}`, brokers: config.KAFKA_BROKERS, logLevel: 'nothing', retries: 0, connectionTimeoutMs: 1000, requestTimeoutMs: 1500 });
  const ready = healthRunner({
    postgres: postgresCheck(pg.query),
    migrations: schemaCheck(pg.query, RELAY_RELATIONS),
    kafka: kafkaCheck(probeKafka),
    relay: async () => {
      const role = relay.isLeader ? 'leader' : 'standby';
      try {
        return { role, ...(await outboxBacklog(pg.query)) };
      } catch (err) {
        throw new CheckDown(`outbox backlog unreadable: ${err instanceof Error ? err.message : String(err)}`, { role });
      }
    },
  });
  const server = await serveOps(config.RELAY_HTTP_PORT, config.RELAY_HTTP_HOST, ready);
  logger.info({ port: (server.address() as AddressInfo).port, host: config.RELAY_HTTP_HOST }, 'relay HTTP listener up (/health/live, /health/ready, /metrics)');
}

main().catch((err) => {
  if (err instanceof StartupError) process.stderr.write(`ledger-relay: ${err.message}\n`);
  else defaultLogger('ledger-relay').error(errorFields(err), 'relay failed to start');
  process.exit(1);
});
