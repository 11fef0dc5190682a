/**
 * The outbox relay as its own process: publishes the ledger's committed events from PostgreSQL's
 * outbox to Kafka (architecture.md guarantee 4). Run one or more; one publishes, the others stand by.
 *
 *   npx tsx apps/relay/src/main.ts
 *
 * Environment:
 *   RELAY_DATABASE_URL      [DATABASE_URL's database as ledger_relay]   the relay's role (docs/architecture.md §10)
 *   DATABASE_URL            [postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger]   names the database
 *   KAFKA_BROKERS           [127.0.0.1:9092]   comma-separated
 *   RELAY_BATCH_SIZE        [500]              rows per transaction, ≤ 500
 *   RELAY_POLL_INTERVAL_MS  [200]              polling fallback to LISTEN/NOTIFY
 *   LOG_LEVEL               [info]             pino level; JSON lines on stdout
 *   RELAY_CRASH_POINT       tests only: `before-send` | `after-send` exits with 137 at that point
 *
 * SIGTERM / SIGINT: finishes the batch in progress, releases the lock, exits 0 (1 if stopping takes
 * more than 15 s). The schema must exist: the API or `npm run migration:run` migrates, not the relay.
 */
import { OutboxRelay, defaultLogger, errorFields, parseBrokers } from '@ledger/event-store';
import { resolveDatabaseUrls } from '@ledger/infra';

const STOP_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  const logger = defaultLogger('ledger-relay');
  const relay = new OutboxRelay({
    databaseUrl: resolveDatabaseUrls(process.env).relay,
    brokers: parseBrokers(process.env.KAFKA_BROKERS),
    batchSize: process.env.RELAY_BATCH_SIZE ? Number(process.env.RELAY_BATCH_SIZE) : undefined,
    pollIntervalMs: process.env.RELAY_POLL_INTERVAL_MS ? Number(process.env.RELAY_POLL_INTERVAL_MS) : undefined,
    logger,
  });

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
    relay.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error(errorFields(err), 'relay stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await relay.start();
}

main().catch((err) => {
  defaultLogger('ledger-relay').error(errorFields(err), 'relay failed to start');
  process.exit(1);
});
