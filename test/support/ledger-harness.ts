import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { createDataSource, OutboxRelay, PgEventStore, runMigrations } from '@ledger/event-store';
import { databaseUrlForRole, ensureTopics } from '@ledger/infra';
import { LedgerClient } from '@ledger/simulator';
import { createProjectionDataSource, ProjectionRunner } from '@ledger/projections';
import { jwtSecret } from '@ledger/tokens';

/** The test database (created by scripts/stack.sh up), as the owner: migrations, direct checks. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://ledger_owner:ledger_owner@127.0.0.1:5432/ledger_test';
/**
 * The same database as each service's runtime role (docs/architecture.md §10): the API, relay and
 * projector under test hold only their own grants, as in production.
 */
export const TEST_SERVICE_DATABASE_URLS = {
  app: databaseUrlForRole(TEST_DATABASE_URL, 'ledger_app'),
  relay: databaseUrlForRole(TEST_DATABASE_URL, 'ledger_relay'),
  projector: databaseUrlForRole(TEST_DATABASE_URL, 'ledger_projector'),
} as const;
/** Brokers of the local Kafka (scripts/stack.sh up). Loopback only. */
export const TEST_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/** A running ledger API, in-process on an ephemeral loopback port, against the real PostgreSQL. */
export interface LedgerHarness {
  app: INestApplication;
  baseUrl: string;
  client: LedgerClient;
  /** The topic this harness's outbox rows name (unique per harness). */
  topic: string;
  /** As the owner (direct checks; what the services cannot do). */
  ds: DataSource;
  store: PgEventStore;
  kafka: Kafka;
  /** The read-model schema the API reads and `startProjector` writes (unique per harness). */
  readSchema: string;
  /** Starts an in-process outbox relay to `topic`, as `ledger_relay`. */
  startRelay(): Promise<OutboxRelay>;
  /** Starts an in-process projector: `topic` → `readSchema`, its own consumer group, as `ledger_projector`. */
  startProjector(): Promise<ProjectionRunner>;
  close(): Promise<void>;
}

/**
 * Starts the ledger API (the same wiring as `main.ts`) on `ledger_test`, with its own Kafka topic
 * so concurrent runs and the demo never mix, plus a DataSource and store for direct checks.
 */
export async function startLedger(): Promise<LedgerHarness> {
  const suffix = `${Date.now().toString(36)}_${randomUUID().slice(0, 8).replace(/-/g, '')}`;
  const topic = `test.ledger.events.${suffix}`;
  const readSchema = `read_t_${suffix}`.toLowerCase();
  process.env.PROJECTIONS_SCHEMA = readSchema;
  // the API logs in as ledger_app and migrates as the owner, as main.ts does by default
  process.env.DATABASE_URL = TEST_SERVICE_DATABASE_URLS.app;
  process.env.MIGRATIONS_DATABASE_URL = TEST_DATABASE_URL;
  process.env.LEDGER_EVENTS_TOPIC = topic;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  const kafka = new Kafka({ clientId: 'ledger-tests', brokers: TEST_BROKERS, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [{ name: topic, partitions: 3, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  await admin.disconnect();
  const { createLedgerApp } = await import('../../apps/ledger/src/bootstrap');
  const app = await createLedgerApp({ logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const ds = createDataSource(TEST_DATABASE_URL);
  await ds.initialize();
  await runMigrations(ds);
  const store = new PgEventStore(ds, { topic });
  const relays: OutboxRelay[] = [];
  const projectors: ProjectionRunner[] = [];
  let projectorDs: DataSource | null = null;
  return {
    app,
    baseUrl,
    client: new LedgerClient(baseUrl, jwtSecret()),
    topic,
    ds,
    store,
    kafka,
    async startRelay() {
      const relay = new OutboxRelay({ databaseUrl: TEST_SERVICE_DATABASE_URLS.relay, brokers: TEST_BROKERS, pollIntervalMs: 50 });
      await relay.start();
      relays.push(relay);
      return relay;
    },
    readSchema,
    async startProjector() {
      if (!projectorDs) {
        projectorDs = createProjectionDataSource(TEST_SERVICE_DATABASE_URLS.projector, { applicationName: `ledger-projector:projector-${suffix}`.slice(0, 63) });
        await projectorDs.initialize();
      }
      const runner = new ProjectionRunner({ kafka, ds: projectorDs, topic, schema: readSchema, groupId: `projector-${suffix}`, holdSchemaLock: false });
      await runner.start();
      projectors.push(runner);
      return runner;
    },
    async close() {
      for (const p of projectors) await p.stop();
      for (const r of relays) await r.stop();
      await app.close();
      if (projectorDs?.isInitialized) await projectorDs.destroy();
      await ds.destroy();
    },
  };
}

/** A unique id for this test run's shoes, rounds and bets. */
export function runId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomUUID().slice(0, 6)}`;
}
