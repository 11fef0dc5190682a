/**
 * The services' metrics after real records flow (docs/architecture.md §8): the API, the relay and
 * the projector as child processes from `dist/` (as the fault run starts them), real PostgreSQL and
 * the shared Kafka broker on topics of this spec's own (2 partitions). Shoes are opened through the
 * API; once the projector has them, each service's `GET /metrics` must show:
 *
 * - projector: `ledger_projector_applied_events_total` > 0, `ledger_projector_apply_duration_seconds_count` > 0,
 *   `ledger_projector_lag_records{topic,partition}` for every partition of the topic, 0 once caught up;
 * - relay: `ledger_outbox_published_total` > 0, `ledger_relay_publish_batches_total` > 0 (and not more
 *   batches than rows), `ledger_outbox_oldest_unpublished_age_seconds` present;
 * - API: `ledger_verifications_total{kind="chain",result="ok"}` grows by one with `GET /shoes/{id}/chain`.
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createKafka } from '@ledger/kafka';
import { createDataSource, runMigrations } from '@ledger/event-store';
import { ensureTopics } from '@ledger/infra';
import { LedgerClient } from '@ledger/simulator';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import { assertBuilt, freePort, ledgerServiceEnv, ServiceProcess, waitFor } from '../fault/cluster';
import { runDir } from '../fault/relay-support';
import { runId, TEST_BROKERS, TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS, TEST_TABLE_IDS } from '../support/ledger-harness';

jest.setTimeout(240_000);

/** One sample of a Prometheus text exposition: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (comments skipped; label values without escaped quotes). */
function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`unparsable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples of `name` at `url` (GET, 2 s bound). */
async function scrape(url: string, name: string): Promise<Sample[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  expect(res.status).toBe(200);
  return parseMetrics(await res.text()).filter((s) => s.name === name);
}

/** The sum of `name`'s samples whose labels include `labels`. */
async function total(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return (await scrape(url, name)).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

describe('service metrics after records flow (docs/architecture.md §8)', () => {
  const tag = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const topic = `test.metrics.events.${tag}`;
  const schema = `read_metrics_${tag}`;
  const dir = runDir('service-metrics');
  const tableId = TEST_TABLE_IDS[0];
  let owner: Client;
  let services: ServiceProcess[] = [];
  let api: string;
  let relay: string;
  let projector: string;

  beforeAll(async () => {
    assertBuilt();
    const ds = createDataSource(TEST_DATABASE_URL);
    await ds.initialize();
    await runMigrations(ds);
    await ds.destroy();
    owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    const kafka = createKafka({ clientId: 'service-metrics-spec', brokers: TEST_BROKERS, logLevel: 'nothing' });
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, [{ name: topic, partitions: 2, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
    await admin.disconnect();

    const [apiPort, relayPort, projectorPort] = [await freePort(), await freePort(), await freePort()];
    const common = ledgerServiceEnv({ databaseUrl: TEST_SERVICE_DATABASE_URLS.app, migrationsUrl: TEST_DATABASE_URL, brokers: TEST_BROKERS, topic, schema });
    const log = () => undefined;
    services = [
      new ServiceProcess('api', { ...common, PORT: String(apiPort), HOST: '127.0.0.1', READ_SCHEMA: schema, RUN_MIGRATIONS: 'true', TABLES_FILE: join(__dirname, '../../config/tables.json') }, join(dir, 'api.log'), log),
      new ServiceProcess(
        'relay',
        {
          ...common,
          RELAY_DATABASE_URL: TEST_SERVICE_DATABASE_URLS.relay,
          RELAY_POLL_INTERVAL_MS: '100',
          RELAY_HTTP_PORT: String(relayPort),
          RELAY_HTTP_HOST: '127.0.0.1',
          ANCHOR_FILE: join(dir, 'anchors.jsonl'),
          ANCHOR_TOPIC: `test.metrics.anchors.${tag}`,
        },
        join(dir, 'relay.log'),
        log,
      ),
      new ServiceProcess(
        'projector',
        {
          ...common,
          PROJECTOR_DATABASE_URL: TEST_SERVICE_DATABASE_URLS.projector,
          PROJECTOR_GROUP: `metrics-${tag}`,
          RUN_MIGRATIONS: 'true',
          ANALYTICS_PUBLISH: 'false',
          PROJECTOR_HTTP_PORT: String(projectorPort),
          PROJECTOR_HTTP_HOST: '127.0.0.1',
        },
        join(dir, 'projector.log'),
        log,
      ),
    ];
    for (const s of services) s.start();
    api = `http://127.0.0.1:${apiPort}`;
    relay = `http://127.0.0.1:${relayPort}/metrics`;
    projector = `http://127.0.0.1:${projectorPort}/metrics`;
    const up = (url: string) => waitFor(async () => (await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.status === 200, 60_000, 500);
    expect(await up(`${api}/health`)).toBe(true);
    expect(await up(relay)).toBe(true);
    expect(await up(projector)).toBe(true);
  });

  afterAll(async () => {
    for (const s of services) await s.stop(20_000, false);
    await owner?.end().catch(() => undefined);
  });

  it('the projector, the relay and the API export non-zero values for the records that went through', async () => {
    const client = new LedgerClient(api, DEV_JWT_SECRET, { deviceTables: TEST_TABLE_IDS });
    const device = client.token('table-device', 'device-metrics');
    // before any record of this topic: nothing applied by this projector
    expect(await total(projector, 'ledger_projector_applied_events_total')).toBe(0);

    const shoeIds = [runId('metrics'), runId('metrics'), runId('metrics')];
    for (const shoeId of shoeIds) {
      const res = await fetch(`${api}/tables/${tableId}/shoes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${device}` },
        body: JSON.stringify({ shoeId, dealerId: 'dealer-1' }),
      });
      expect(res.status).toBe(201);
    }
    const projected = await waitFor(async () => (await owner.query(`SELECT 1 FROM ${schema}.shoe_state WHERE shoe_id = ANY($1)`, [shoeIds])).rowCount === shoeIds.length, 60_000, 250);
    expect(projected).toBe(true);

    // projector
    expect(await waitFor(async () => (await total(projector, 'ledger_projector_applied_events_total')) >= shoeIds.length, 10_000, 250)).toBe(true);
    expect(await total(projector, 'ledger_projector_apply_duration_seconds_count')).toBeGreaterThan(0);
    expect(await total(projector, 'ledger_projector_apply_duration_seconds_sum')).toBeGreaterThan(0);
    expect(await total(projector, 'ledger_projector_quarantined_records_total')).toBe(0);
    // one series per partition that has applied a batch; caught up: 0 records behind. The shoes'
    // keys spread over both partitions only by chance, so wait for the ones that got records.
    const withRecords = (await owner.query<{ partition: number }>(`SELECT partition FROM ${schema}.checkpoints WHERE topic = $1 AND consumer_group = $2 AND next_offset > 0`, [topic, `metrics-${tag}`])).rows.map((r) =>
      String(r.partition),
    );
    expect(withRecords.length).toBeGreaterThan(0);
    const lagged = await waitFor(
      async () => {
        const lag = await scrape(projector, 'ledger_projector_lag_records');
        return lag.length > 0 && lag.every((s) => s.labels.topic === topic && s.value === 0) && withRecords.every((p) => lag.some((s) => s.labels.partition === p));
      },
      15_000,
      500,
    );
    expect(lagged).toBe(true);
    const lag = await scrape(projector, 'ledger_projector_lag_records');
    expect(lag.map((s) => s.labels.partition).every((p) => p === '0' || p === '1')).toBe(true);
    expect(await scrape(projector, 'ledger_projector_halted_partitions')).toEqual([{ name: 'ledger_projector_halted_partitions', labels: {}, value: 0 }]);

    // relay
    const published = await total(relay, 'ledger_outbox_published_total');
    const batches = await total(relay, 'ledger_relay_publish_batches_total');
    expect(published).toBeGreaterThanOrEqual(shoeIds.length);
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThanOrEqual(published);
    const age = await scrape(relay, 'ledger_outbox_oldest_unpublished_age_seconds');
    expect(age).toHaveLength(1);
    expect(age[0].value).toBeGreaterThanOrEqual(0);

    // API: one chain verification, counted by kind and result
    const okBefore = await total(`${api}/metrics`, 'ledger_verifications_total', { kind: 'chain', result: 'ok' });
    const chain = await fetch(`${api}/shoes/${shoeIds[0]}/chain`, { headers: { authorization: `Bearer ${client.token('auditor', 'auditor-metrics')}` } });
    expect(chain.status).toBe(200);
    expect(((await chain.json()) as { ok: boolean }).ok).toBe(true);
    expect(await total(`${api}/metrics`, 'ledger_verifications_total', { kind: 'chain', result: 'ok' })).toBe(okBefore + 1);
    expect(await total(`${api}/metrics`, 'ledger_verifications_total', { kind: 'chain', result: 'mismatch' })).toBe(0);
  });
});
