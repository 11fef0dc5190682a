/**
 * The outbox relay as its own process: publishes the ledger's committed events from PostgreSQL's
 * outbox to Kafka (docs/guarantees.md §4). Run one or more; the holder of the lease publishes, the others stand by.
 *
 *   npx tsx apps/relay/src/main.ts
 *
 * Configuration: `RelayEnv` of `@ledger/config` (docs/architecture.md §5; the README's table):
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
 *   METRICS_PORT, METRICS_HOST [0: off, 127.0.0.1]  the relay's own GET /metrics (docs/architecture.md §8):
 *                           ledger_relay_leader, ledger_outbox_unpublished_rows (read at each scrape),
 *                           ledger_outbox_published_total, ledger_outbox_pruned_total, process metrics
 *   RECORD_SIGNING_KEY      the HMAC key of the records' `ledger-sig` header (the projector's too);
 *                           required outside development mode; in development mode, when unset,
 *                           the public development key, with a warning (docs/architecture.md §10)
 *   RELAY_CRASH_POINT       tests only: `before-send` | `after-send` exits with 137 at that point
 *   ANCHOR_PRIVATE_KEY_FILE, ANCHOR_FILE, ANCHOR_TOPIC, ANCHOR_INTERVAL_MS, ANCHOR_REQUIRED, LEDGER_ID
 *                           the anchor publisher (docs/anchors.md); without a key outside development
 *                           mode anchoring is off, or, with ANCHOR_REQUIRED=true, the relay refuses to start
 * Read once here and validated: a bad value (e.g. `RELAY_POLL_INTERVAL_MS=abc`) stops the process
 * with exit code 1 and a message naming the variable and the form it expects.
 *
 * SIGTERM / SIGINT: finishes the batch in progress, releases the lease, exits 0 (1 if stopping takes
 * more than 15 s). The schema must exist: the API or `npm run migration:run` migrates, not the relay.
 */
import { ConfigError, loadConfig, RelayEnv } from '@ledger/config';
import { configureDatabaseSessions, pgClientConfig } from '@ledger/infra';
import { collectProcessMetrics, gauge, serveMetrics } from '@ledger/metrics';
import { Client } from 'pg';
import { OutboxRelay, defaultLogger, errorFields, recordSigningKey, type RecordSigningKey } from '@ledger/event-store';
import { anchorPublisherSettings, startAnchorPublisher } from '@ledger/anchors';

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

  if (config.METRICS_PORT > 0) await serveRelayMetrics(config, relay);
  await relay.start();
}

/**
 * The relay's metrics listener (docs/architecture.md §8): whether this instance leads, and the
 * outbox backlog (unpublished rows, one COUNT on its own session at each scrape; what an operator
 * watches during a Kafka outage, docs/guarantees.md §4), besides the counters of `OutboxRelay`.
 */
async function serveRelayMetrics(config: RelayEnv, relay: OutboxRelay): Promise<void> {
  collectProcessMetrics();
  gauge('ledger_relay_leader', '1 while this relay holds the lease and publishes, else 0', [], function () {
    this.set(relay.isLeader ? 1 : 0);
  });
  let session: Client | null = null;
  gauge('ledger_outbox_unpublished_rows', 'outbox rows not yet published to Kafka (all relays); -1 when the count failed', [], async function () {
    try {
      if (!session) {
        const c = new Client(pgClientConfig(config.RELAY_DATABASE_URL, 'ledger-relay-metrics'));
        c.on('error', () => (session = null));
        await c.connect();
        session = c;
      }
      const { rows } = await session.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL');
      this.set(Number(rows[0].n));
    } catch {
      session = null;
      this.set(-1);
    }
  });
  await serveMetrics(config.METRICS_PORT, config.METRICS_HOST);
}

main().catch((err) => {
  defaultLogger('ledger-relay').error(errorFields(err), 'relay failed to start');
  process.exit(1);
});
