import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { createDataSource, OutboxRelay, PgEventStore, runMigrations } from '@ledger/event-store';
import { ensureTopics } from '@ledger/infra';
import { LedgerClient } from '@ledger/simulator';
import { ProjectionRunner } from '@ledger/projections';
import { jwtSecret } from '@ledger/tokens';

/** The test database (created by scripts/stack.sh up). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://ledger:ledger@127.0.0.1:5432/ledger_test';
/** Brokers of the local Kafka (scripts/stack.sh up). Loopback only. */
export const TEST_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/** A running ledger API, in-process on an ephemeral loopback port, against the real PostgreSQL. */
export interface LedgerHarness {
  app: INestApplication;
  baseUrl: string;
  client: LedgerClient;
  /** The topic this harness's outbox rows name (unique per harness). */
  topic: string;
  ds: DataSource;
  store: PgEventStore;
  kafka: KafkaClient;
  /** The read-model schema the API reads and `startProjector` writes (unique per harness). */
  readSchema: string;
  /** Starts an in-process outbox relay to `topic`. */
  startRelay(): Promise<OutboxRelay>;
  /** Starts an in-process projector: `topic` → `readSchema`, its own consumer group. */
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
  process.env.DATABASE_URL = TEST_DATABASE_URL;
  process.env.LEDGER_EVENTS_TOPIC = topic;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  const kafka = createKafka({ clientId: 'ledger-tests', brokers: TEST_BROKERS, logLevel: 'nothing' });
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
  return {
    app,
    baseUrl,
    client: new LedgerClient(baseUrl, jwtSecret()),
    topic,
    ds,
    store,
    kafka,
    async startRelay() {
      const relay = new OutboxRelay({ databaseUrl: TEST_DATABASE_URL, brokers: TEST_BROKERS, pollIntervalMs: 50 });
      await relay.start();
      relays.push(relay);
      return relay;
    },
    readSchema,
    async startProjector() {
      const runner = new ProjectionRunner({ kafka, ds, topic, schema: readSchema, groupId: `projector-${suffix}`, holdSchemaLock: false });
      await runner.start();
      projectors.push(runner);
      return runner;
    },
    async close() {
      for (const p of projectors) await p.stop();
      for (const r of relays) await r.stop();
      await app.close();
      await ds.destroy();
    },
  };
}

/** A unique id for this test run's shoes, rounds and bets. */
export function runId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomUUID().slice(0, 6)}`;
}
