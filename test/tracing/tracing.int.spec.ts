/**
 * Tracing of a card's path (docs/architecture.md §11): the API, the relay and the projector as child
 * processes from `dist/` (as the fault run starts them), real PostgreSQL, the shared Kafka broker on
 * a topic of this spec's own, and a tiny OTLP/HTTP receiver on 127.0.0.1 collecting `POST /v1/traces`
 * (the exporter's JSON protocol).
 *
 * Tracing on: a request with a known `traceparent` gives spans of all three services in that trace,
 * each the child of the one before (request → append → relay publish → projector apply), and the
 * Kafka record carries the publish span's `traceparent` (and the request's `tracestate`); the event's
 * hash and the record's value are those of an event without tracing.
 * Tracing off (no `OTEL_EXPORTER_OTLP_ENDPOINT`): the services work, nothing is exported, nothing is
 * stored with the outbox row and the record has no trace header.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import { computeEventHash, createDataSource, envelopeJson, EVENT_COLUMNS, rowToEnvelope, runMigrations, type EventRow } from '@ledger/event-store';
import { ensureTopics } from '@ledger/infra';
import { LedgerClient } from '@ledger/simulator';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import { assertBuilt, freePort, ledgerServiceEnv, ServiceProcess, waitFor } from '../fault/cluster';
import { runDir } from '../fault/relay-support';
import { readTopic } from '../support/kafka-reader';
import { runId, TEST_BROKERS, TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS, TEST_TABLE_IDS } from '../support/ledger-harness';

jest.setTimeout(240_000);

/** One span as the receiver decoded it (ids in lower-case hex). */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
}

/** OTLP JSON ids are hex; tolerate base64 too (the protobuf-JSON mapping some versions used). */
function hexId(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  return /^[0-9a-fA-F]+$/.test(v) && (v.length === 32 || v.length === 16) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
}

/** A collector of `POST /v1/traces` (OTLP/HTTP JSON) on an ephemeral loopback port. */
function otlpReceiver(): Promise<{ server: Server; url: string; posts: string[]; spans: ReceivedSpan[] }> {
  const posts: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(`${req.method} ${req.url} ${String(req.headers['content-type'])}`);
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? []) spans.push({ service, traceId: hexId(s.traceId), spanId: hexId(s.spanId), parentSpanId: hexId(s.parentSpanId), name: String(s.name), kind: Number(s.kind) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts, spans })));
}

describe('tracing: one trace from the HTTP request to the projector (docs/architecture.md §11)', () => {
  const tag = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const topic = `test.tracing.events.${tag}`;
  const schema = `read_tracing_${tag}`;
  const dir = runDir('tracing');
  const tableId = TEST_TABLE_IDS[0];
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let kafka: KafkaClient;
  let owner: Client;
  let services: ServiceProcess[] = [];

  beforeAll(async () => {
    assertBuilt();
    const ds = createDataSource(TEST_DATABASE_URL);
    await ds.initialize();
    await runMigrations(ds);
    await ds.destroy();
    owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    kafka = createKafka({ clientId: 'tracing-spec', brokers: TEST_BROKERS, logLevel: 'nothing' });
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, [{ name: topic, partitions: 1, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
    await admin.disconnect();
    receiver = await otlpReceiver();
  });

  afterAll(async () => {
    for (const s of services) await s.stop(20_000, false);
    await owner?.end().catch(() => undefined);
    await new Promise((r) => receiver?.server.close(r));
  });

  /** Starts the three services (tracing on when `endpoint` is given); resolves once the API answers. */
  async function startServices(label: string, endpoint: string | null): Promise<string> {
    const port = await freePort();
    const tracing: Record<string, string> = endpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {};
    const common = { ...ledgerServiceEnv({ databaseUrl: TEST_SERVICE_DATABASE_URLS.app, migrationsUrl: TEST_DATABASE_URL, brokers: TEST_BROKERS, topic, schema }), ...tracing };
    const log = () => undefined;
    services = [
      new ServiceProcess('api', { ...common, PORT: String(port), HOST: '127.0.0.1', READ_SCHEMA: schema, RUN_MIGRATIONS: 'true', TABLES_FILE: join(__dirname, '../../config/tables.json') }, join(dir, `${label}-api.log`), log),
      new ServiceProcess(
        'relay',
        { ...common, RELAY_DATABASE_URL: TEST_SERVICE_DATABASE_URLS.relay, RELAY_POLL_INTERVAL_MS: '100', ANCHOR_FILE: join(dir, 'anchors.jsonl'), ANCHOR_TOPIC: `test.tracing.anchors.${tag}` },
        join(dir, `${label}-relay.log`),
        log,
      ),
      new ServiceProcess(
        'projector',
        { ...common, PROJECTOR_DATABASE_URL: TEST_SERVICE_DATABASE_URLS.projector, PROJECTOR_GROUP: `tracing-${tag}`, RUN_MIGRATIONS: 'true', ANALYTICS_PUBLISH: 'false' },
        join(dir, `${label}-projector.log`),
        log,
      ),
    ];
    for (const s of services) s.start();
    const baseUrl = `http://127.0.0.1:${port}`;
    const up = await waitFor(async () => (await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) }).catch(() => null)) !== null, 60_000, 500);
    expect(up).toBe(true);
    return baseUrl;
  }

  async function stopServices(): Promise<void> {
    for (const s of services) await s.stop();
    services = [];
  }

  /** Opens a shoe through the API with the given trace headers; waits until the projector has its state. */
  async function openShoe(baseUrl: string, headers: Record<string, string>): Promise<{ shoeId: string; row: EventRow & { traceparent: string | null; tracestate: string | null } }> {
    const shoeId = runId('trace');
    const client = new LedgerClient(baseUrl, DEV_JWT_SECRET, { deviceTables: TEST_TABLE_IDS });
    const res = await fetch(`${baseUrl}/tables/${tableId}/shoes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.token('table-device', 'device-trace')}`, ...headers },
      body: JSON.stringify({ shoeId, dealerId: 'dealer-1' }),
    });
    expect(res.status).toBe(201);
    const { rows } = await owner.query<EventRow & { traceparent: string | null; tracestate: string | null }>(
      `SELECT ${EVENT_COLUMNS}, o.traceparent, o.tracestate FROM events e JOIN outbox o ON o.global_position = e.global_position WHERE e.stream_id = $1`,
      [`shoe-${shoeId}`],
    );
    expect(rows).toHaveLength(1);
    const projected = await waitFor(async () => (await owner.query(`SELECT 1 FROM ${schema}.shoe_state WHERE shoe_id = $1`, [shoeId])).rowCount === 1, 60_000, 250);
    expect(projected).toBe(true);
    return { shoeId, row: rows[0] };
  }

  it('tracing on: request → append → relay publish → projector apply in the request’s trace, the record carrying traceparent and tracestate', async () => {
    const baseUrl = await startServices('on', receiver.url);
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const { row } = await openShoe(baseUrl, { traceparent: `00-${traceId}-${callerSpanId}-01`, tracestate: 'caller=spec' });

    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    expect(await waitFor(() => ofTrace().some((s) => s.name === 'ledger.projector.apply'), 30_000, 250)).toBe(true);
    const spans = ofTrace();
    const one = (service: string, match: (s: ReceivedSpan) => boolean) => {
      const found = spans.filter((s) => s.service === service && match(s));
      expect(found).toHaveLength(1);
      return found[0];
    };
    const request = one('ledger-api', (s) => s.kind === 2); // SERVER
    expect(request.name).toBe('POST /tables/:tableId/shoes');
    expect(request.parentSpanId).toBe(callerSpanId);
    const append = one('ledger-api', (s) => s.name === 'ledger.append');
    expect(append.parentSpanId).toBe(request.spanId);
    const publish = one('ledger-relay', (s) => s.name === 'ledger.relay.publish');
    expect(publish.kind).toBe(4); // PRODUCER
    expect(publish.parentSpanId).toBe(append.spanId);
    const apply = one('ledger-projector', (s) => s.name === 'ledger.projector.apply');
    expect(apply.kind).toBe(5); // CONSUMER
    expect(apply.parentSpanId).toBe(publish.spanId);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['ledger-api', 'ledger-relay', 'ledger-projector']));

    // stored with the outbox row, not the event: the hash is the hash of the envelope as ever
    expect(row.traceparent).toBe(`00-${traceId}-${append.spanId}-01`);
    expect(row.tracestate).toBe('caller=spec');
    expect(computeEventHash(rowToEnvelope(row))).toBe(row.hash);

    const records = await readTopic(kafka, topic, (rs) => rs.some((r) => r.headers.ce_id === row.event_id), 30_000);
    const record = records.find((r) => r.headers.ce_id === row.event_id);
    expect(record).toBeDefined();
    expect(record!.headers.traceparent).toBe(`00-${traceId}-${publish.spanId}-01`);
    expect(record!.headers.tracestate).toBe('caller=spec');
    expect(JSON.stringify(record!.value)).toBe(JSON.stringify(JSON.parse(envelopeJson(row))));
    await stopServices();
  });

  it('tracing off: the services work, nothing is exported, no trace context is stored or sent', async () => {
    const baseUrl = await startServices('off', null);
    const postsBefore = receiver.posts.length;
    const traceId = randomBytes(16).toString('hex');
    const { row } = await openShoe(baseUrl, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    expect(row.traceparent).toBeNull();
    expect(row.tracestate).toBeNull();
    const records = await readTopic(kafka, topic, (rs) => rs.some((r) => r.headers.ce_id === row.event_id), 30_000);
    const record = records.find((r) => r.headers.ce_id === row.event_id);
    expect(record).toBeDefined();
    expect(Object.keys(record!.headers).sort()).toEqual(['ce_id', 'ce_source', 'ce_specversion', 'ce_type', 'content-type', 'ledger-sig']);
    // longer than the exporter's batch delay (1 s): a span would have been posted by now
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.posts.slice(postsBefore)).toEqual([]);
    expect(receiver.spans.filter((s) => s.traceId === traceId)).toEqual([]);
    await stopServices();
  });
});
