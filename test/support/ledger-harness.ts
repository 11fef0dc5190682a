import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createDataSource, defaultLogger, OutboxRelay, PgEventStore, runMigrations } from '@ledger/event-store';
import { databaseUrlForRole, ensureTopics, significantEventsTopicOf } from '@ledger/infra';
import { LedgerClient } from '@ledger/simulator';
import { createProjectionDataSource, ProjectionRunner } from '@ledger/projections';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import type { EnvSource } from '@ledger/config';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT } from '@ledger/read-model';

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

/** Every table id of `config/tables.json`: the harness's device tokens may report for all of them. */
export const TEST_TABLE_IDS: readonly string[] = (JSON.parse(readFileSync(resolve(__dirname, '../../config/tables.json'), 'utf8')) as { tables: { tableId: string }[] }).tables.map((t) => t.tableId);

/**
 * The edge limits of a harness's API unless `options.env` says otherwise (docs/architecture.md §10):
 * every rate and rejection-log budget far above what a suite sends; the body limits are the defaults.
 */
export const HARNESS_EDGE_LIMITS: EnvSource = {
  RATE_LIMIT_PER_ADDRESS: '100000000',
  RATE_LIMIT_TABLE_DEVICE: '100000000',
  RATE_LIMIT_BETTING_PLATFORM: '100000000',
  RATE_LIMIT_PIT_MANAGER: '100000000',
  RATE_LIMIT_AUDITOR: '100000000',
  REFUSAL_LOG_BYTES_PER_MINUTE: '1073741824',
  // the wallet uploads of one pit manager per rolling 24 h (a re-run of a suite on the same database counts too)
  WALLET_BUDGET_RUNS_PER_DAY: '1000000',
  WALLET_BUDGET_ITEMS_PER_DAY: '1000000000',
};

/** Options of {@link startLedger}. */
export interface StartLedgerOptions {
  /**
   * Variables set over the harness's own for the API (e.g. `LEDGER_ENV: 'production'` with a
   * `JWT_SECRET`); a value `undefined` unsets one. The harness's client signs with their `JWT_SECRET`.
   */
  readonly env?: EnvSource;
}

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
  kafka: KafkaClient;
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
 * so concurrent runs and the demo never mix, plus a DataSource and store for direct checks. The API
 * runs in development mode (`LEDGER_ENV=development`, also set on this process for the tools'
 * `jwtSecret()`) unless `options.env` says otherwise; its configuration is passed in, not read from
 * this process's environment.
 */
export async function startLedger(options: StartLedgerOptions = {}): Promise<LedgerHarness> {
  const suffix = `${Date.now().toString(36)}_${randomUUID().slice(0, 8).replace(/-/g, '')}`;
  const topic = `test.ledger.events.${suffix}`;
  const readSchema = `read_t_${suffix}`.toLowerCase();
  process.env.LEDGER_ENV = 'development';
  const env: EnvSource = {
    ...process.env,
    LEDGER_ENV: 'development',
    PROJECTIONS_SCHEMA: readSchema,
    // the API logs in as ledger_app and migrates as the owner, as main.ts does by default
    DATABASE_URL: TEST_SERVICE_DATABASE_URLS.app,
    MIGRATIONS_DATABASE_URL: TEST_DATABASE_URL,
    LEDGER_EVENTS_TOPIC: topic,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // the suites drive thousands of requests from one address and token: budgets far above what
    // they send (the limits stay on; test/attack/edge-limits.e2e.spec.ts sets its own small ones)
    ...HARNESS_EDGE_LIMITS,
    // no automatic gaming-day close: it appends a GamingDayClosed event a minute into any suite
    // (a spec that counts events would see it); the close specs call the sweeper themselves
    GAMING_DAY_CLOSE_SWEEP_MS: '0',
    // no clock attestation: it appends a ClockAttested event at start (test/e2e/clock-attestation.e2e.spec.ts turns it on)
    CLOCK_ATTESTATION_INTERVAL_MS: '0',
    // nor configuration attestation at start (test/e2e/configuration-attestation.e2e.spec.ts turns it on)
    CONFIGURATION_ATTESTATION: 'false',
    // no significant-event monitor: it appends SignificantEventRaised events (a spec that counts events
    // would see them); test/e2e/significant-events.e2e.spec.ts turns it on
    SIGNIFICANT_MONITOR: 'false',
    ...options.env,
  };
  const kafka = createKafka({ clientId: 'ledger-tests', brokers: TEST_BROKERS, logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  // the events topic and its significant events' copy (the relay also creates the copy when missing)
  await ensureTopics(
    admin,
    [topic, significantEventsTopicOf(topic)].map((name) => ({ name, partitions: 3, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } })),
  );
  await admin.disconnect();
  const { createLedgerApp } = await import('../../apps/ledger/src/bootstrap');
  const app = await createLedgerApp({ logger: false, env });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const ds = createDataSource(TEST_DATABASE_URL);
  await ds.initialize();
  await runMigrations(ds);
  const store = new PgEventStore(ds, { topic, logger: defaultLogger('event-store', env.LOG_LEVEL) });
  const relays: OutboxRelay[] = [];
  const projectors: ProjectionRunner[] = [];
  let projectorDs: DataSource | null = null;
  return {
    app,
    baseUrl,
    client: new LedgerClient(baseUrl, env.JWT_SECRET || DEV_JWT_SECRET, { deviceTables: TEST_TABLE_IDS }),
    topic,
    ds,
    store,
    kafka,
    async startRelay() {
      const relay = new OutboxRelay({ databaseUrl: TEST_SERVICE_DATABASE_URLS.relay, brokers: TEST_BROKERS, pollIntervalMs: 50, logger: defaultLogger('ledger-relay', env.LOG_LEVEL) });
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
      const runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds: projectorDs, topic, schema: readSchema, groupId: `projector-${suffix}`, holdSchemaLock: false });
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
