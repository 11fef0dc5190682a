/**
 * The probes under outages (docs/architecture.md §8): the API, the relay and the projector from
 * `dist/` on a PRIVATE PostgreSQL cluster and a PRIVATE Kafka broker (test/fault/cluster.ts; the
 * machine's PostgreSQL and the shared broker are never touched). PostgreSQL stopped → every
 * `/health/ready` answers 503 within seconds (each answer within ~2 s) and 200 again once it is
 * back; Kafka stopped → the relay's and the projector's readiness fail (the API's reports Kafka
 * degraded — up with `degraded: true`, top-level `degraded`, 200 — and stays ready: it writes to the outbox, docs/guarantees.md §4) and recover; a halted
 * projection (docs/guarantees.md §6) fails the projector's readiness with partition and code, and
 * shows on the API's `/health`, both processes' metrics and `GET /projections/status`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { databaseUrlForRole, ensureTopics } from '@ledger/infra';
import { createKafka, type KafkaClient } from '@ledger/kafka';
import { hs256Key, mintToken } from '@ledger/tokens';
import type { LedgerEvent } from '@ledger/events';
import { assertBuilt, freePort, ledgerServiceEnv, PrivateKafka, PrivatePostgres, REPO_ROOT, ServiceProcess, waitFor } from '../fault/cluster';
import { idFactory, StreamBuilder } from '../../libs/projections/src/testing/envelopes';
import { toMessage } from '../../libs/projections/src/testing/kafka-kit';

jest.setTimeout(175_000);

type Probe = { status: number; body: { status?: string; info?: Record<string, Record<string, unknown>>; error?: Record<string, Record<string, unknown>>; details?: Record<string, Record<string, unknown>> }; ms: number };

async function probe(url: string): Promise<Probe> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: (await res.json()) as Probe['body'], ms: performance.now() - t0 };
  } catch {
    return { status: 0, body: {}, ms: performance.now() - t0 };
  }
}

describe('readiness follows PostgreSQL, Kafka and projection halts', () => {
  const tag = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const runDir = join(REPO_ROOT, '.stack', 'health', tag);
  const noop = () => undefined;
  let pg: PrivatePostgres;
  let broker: PrivateKafka;
  let kafka: KafkaClient;
  const services: ServiceProcess[] = [];
  const ports = { api: 0, relay: 0, projector: 0 };
  const topic = `health.ledger.events.${tag}`;
  const schema = `health_read_${tag}`;
  const jwtSecret = randomBytes(24).toString('hex');
  const ready = (s: keyof typeof ports) => `http://127.0.0.1:${ports[s]}/health/ready`;
  const all = ['api', 'relay', 'projector'] as const;

  beforeAll(async () => {
    assertBuilt();
    mkdirSync(runDir, { recursive: true });
    const infraLog = join(runDir, 'infra.log');
    pg = new PrivatePostgres(PrivatePostgres.directory(join(runDir, 'pg')), await freePort(), infraLog);
    const kafkaPort = await freePort();
    broker = new PrivateKafka(runDir, kafkaPort, await freePort(), infraLog);
    await pg.init();
    await pg.start();
    await pg.psql('postgres', { file: join(REPO_ROOT, 'scripts/database-roles.sql') });
    await pg.psql('postgres', { command: `CREATE DATABASE ledger_health OWNER ledger_owner` });
    await broker.up();
    kafka = createKafka({ clientId: `health-${tag}`, brokers: broker.brokers, logLevel: 'nothing', retries: 10 });
    const admin = kafka.admin();
    await admin.connect();
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureTopics(admin, [{ name: topic, partitions: 2, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
        break;
      } catch (e) {
        if (attempt >= 20) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    await admin.disconnect();
    const owner = pg.url('ledger_owner', 'ledger_health');
    const common = {
      ...ledgerServiceEnv({ databaseUrl: databaseUrlForRole(owner, 'ledger_app'), migrationsUrl: owner, brokers: broker.brokers, topic, schema }),
      RELAY_DATABASE_URL: databaseUrlForRole(owner, 'ledger_relay'),
      PROJECTOR_DATABASE_URL: databaseUrlForRole(owner, 'ledger_projector'),
    };
    ports.api = await freePort();
    ports.relay = await freePort();
    ports.projector = await freePort();
    const api = new ServiceProcess(
      'api',
      { ...common, PORT: String(ports.api), HOST: '127.0.0.1', READ_SCHEMA: schema, JWT_SECRET: jwtSecret, RUN_MIGRATIONS: 'true', TABLES_FILE: join(REPO_ROOT, 'config/tables.json') },
      join(runDir, 'api.log'),
      noop,
    );
    services.push(api);
    api.start();
    expect(await waitFor(async () => (await probe(`http://127.0.0.1:${ports.api}/health`)).status === 200, 90_000)).toBe(true);
    const relay = new ServiceProcess(
      'relay',
      { ...common, RELAY_HTTP_PORT: String(ports.relay), RELAY_POLL_INTERVAL_MS: '100', ANCHOR_FILE: join(runDir, 'anchors.jsonl'), ANCHOR_TOPIC: `health.anchors.${tag}` },
      join(runDir, 'relay.log'),
      noop,
    );
    const projector = new ServiceProcess(
      'projector',
      { ...common, PROJECTOR_HTTP_PORT: String(ports.projector), PROJECTOR_GROUP: `health-${tag}`, RUN_MIGRATIONS: 'true', PROJECTOR_INCIDENT_POLL_MS: '1000', ANALYTICS_PUBLISH: 'false' },
      join(runDir, 'projector.log'),
      noop,
    );
    services.push(relay, projector);
    relay.start();
    projector.start();
  }, 150_000);

  afterAll(async () => {
    for (const s of services) await s.stop(10_000, false).catch(() => s.killNow());
    await broker?.down().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
  });

  /** ms until every service's readiness answers `status` (each answer within 2.5 s), or throws after `timeoutMs`. */
  const allReach = async (want: (s: (typeof all)[number]) => number, timeoutMs: number) => {
    const t0 = performance.now();
    const reached = new Map<string, number>();
    const slow: string[] = [];
    while (reached.size < all.length) {
      if (performance.now() - t0 > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms: ${all.filter((s) => !reached.has(s)).join(', ')}`);
      await Promise.all(
        all
          .filter((s) => !reached.has(s))
          .map(async (s) => {
            const p = await probe(ready(s));
            if (p.ms > 2500) slow.push(`${s} ${Math.round(p.ms)} ms`);
            if (p.status === want(s)) reached.set(s, Math.round(performance.now() - t0));
          }),
      );
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(slow).toEqual([]);
    return Object.fromEntries(reached);
  };

  it('all three are live and ready; the relay says leader with its backlog, the projector its partitions and lag', async () => {
    await allReach(() => 200, 60_000);
    for (const s of all) expect((await probe(`http://127.0.0.1:${ports[s]}/health/live`)).status).toBe(200);
    const r = await probe(ready('relay'));
    expect(r.body.details?.relay).toMatchObject({ status: 'up', role: 'leader', unpublished: expect.any(Number) });
    expect(r.body.details).toMatchObject({ postgres: { status: 'up' }, migrations: { status: 'up' }, kafka: { status: 'up' } });
    expect(await waitFor(async () => ((await probe(ready('projector'))).body.details?.projections?.assigned as number[] | undefined)?.length === 2, 30_000)).toBe(true);
    const p = await probe(ready('projector'));
    expect(p.body.details?.projections).toMatchObject({ status: 'up', assigned: [0, 1], halted: [] });
    const a = await probe(ready('api'));
    expect(a.body).toMatchObject({ status: 'ok', error: {}, info: { postgres: { status: 'up' }, migrations: { status: 'up' }, kafka: { status: 'up' }, projections: { status: 'up', halted: [] } } });
    expect(a.body.details).toMatchObject({ postgres: { status: 'up' }, migrations: { status: 'up' }, kafka: { status: 'up' }, projections: { status: 'up' } });
    expect(a.body.details?.kafka?.degraded).toBeUndefined();
    expect((await probe(`http://127.0.0.1:${ports.api}/health/live`)).body).toMatchObject({ status: 'ok', info: { process: { status: 'up', uptimeS: expect.any(Number) } }, error: {} });
    for (const s of all) expect(await (await fetch(`http://127.0.0.1:${ports[s]}/metrics`)).text()).toContain('ledger_process_');
  });

  it('PostgreSQL stopped: every readiness fails within seconds; back: every one recovers', async () => {
    await pg.stop();
    try {
      const down = await allReach(() => 503, 15_000);
      process.stdout.write(`readiness 503 after PostgreSQL stopped (ms): ${JSON.stringify(down)}\n`);
      for (const s of all) expect((await probe(ready(s))).body.error?.postgres).toMatchObject({ status: 'down' });
      // the API's 503 is terminus's report (HealthCheckService's ServiceUnavailableException body), not the generic error body
      const api = await probe(ready('api'));
      expect(api.status).toBe(503);
      expect(api.body).toMatchObject({ status: 'error', error: { postgres: { status: 'down', message: expect.any(String) } }, details: { postgres: { status: 'down' } } });
      expect(api.body).not.toHaveProperty('statusCode');
      expect((api.body as Record<string, unknown>).error).not.toHaveProperty('code');
      for (const s of all) expect((await probe(`http://127.0.0.1:${ports[s]}/health/live`)).status).toBe(200);
    } finally {
      await pg.start();
    }
    const up = await allReach(() => 200, 30_000);
    process.stdout.write(`readiness 200 after PostgreSQL back (ms): ${JSON.stringify(up)}\n`);
    // TerminusModule runs without a logger: dozens of failed probes left no error log each
    expect(readFileSync(join(runDir, 'api.log'), 'utf8')).not.toContain('Health Check has failed');
  });

  it('Kafka stopped: the relay and the projector fail readiness, the API reports Kafka degraded; back: all recover', async () => {
    await broker.down();
    try {
      const down = await allReach((s) => (s === 'api' ? 200 : 503), 15_000);
      process.stdout.write(`readiness after Kafka stopped (ms): ${JSON.stringify(down)}\n`);
      expect((await probe(ready('relay'))).body.error?.kafka).toMatchObject({ status: 'down' });
      expect((await probe(ready('projector'))).body.error?.kafka).toMatchObject({ status: 'down' });
      const api = await probe(ready('api'));
      expect(api.status).toBe(200);
      expect(api.body).toMatchObject({ status: 'degraded', error: {}, info: { kafka: { status: 'up', degraded: true, reachable: false } } });
      expect(api.body.details?.kafka).toMatchObject({ status: 'up', degraded: true, reachable: false, message: expect.any(String) });
    } finally {
      await broker.up();
    }
    const up = await allReach(() => 200, 60_000);
    process.stdout.write(`readiness 200 after Kafka back (ms): ${JSON.stringify(up)}\n`);
  });

  it('a halted projection fails the projector readiness (partition, code) and shows on /health, metrics and /projections/status', async () => {
    const table = 'T-01';
    const stream = new StreamBuilder(`never-opened-${tag}`, table, null, idFactory(`poison:${tag}`));
    const poison = stream.add('DealerChanged', { previousDealerId: 'D-A', dealerId: 'D-B' }, { actor: { id: `device-${table}`, role: 'table-device' }, occurredAt: '2025-03-01T07:00:00.000Z' });
    (poison as { globalPosition: string }).globalPosition = '1';
    const producer = kafka.producer();
    await producer.connect();
    await producer.send(topic, [toMessage(poison as LedgerEvent)]);
    await producer.disconnect();

    expect(await waitFor(async () => (await probe(ready('projector'))).status === 503, 30_000)).toBe(true);
    const p = await probe(ready('projector'));
    const halted = p.body.error?.projections?.halted as { partition: number; code: string }[];
    expect(halted).toHaveLength(1);
    expect(halted[0]).toMatchObject({ code: 'PROJECTION.INCONSISTENT_EVENT', partition: expect.any(Number) });
    expect(await (await fetch(`http://127.0.0.1:${ports.projector}/metrics`)).text()).toMatch(/^ledger_projector_halted_partitions 1$/m);

    // the API reads the incident the projector records (and caches its probe for a moment): it shows within seconds
    let health: unknown = null;
    await waitFor(async () => ((health = await (await fetch(`http://127.0.0.1:${ports.api}/health`)).json()) as { status?: string }).status === 'degraded', 15_000);
    expect(health).toMatchObject({ status: 'degraded', projections: { status: 'halted', halted: [{ partition: halted[0].partition, code: 'PROJECTION.INCONSISTENT_EVENT' }] } });
    expect(await (await fetch(`http://127.0.0.1:${ports.api}/metrics`)).text()).toMatch(/^ledger_projection_halted_partitions 1$/m);
    const apiReady = await probe(ready('api'));
    expect(apiReady.status).toBe(200);
    expect(apiReady.body.status).toBe('degraded');
    expect(apiReady.body.details?.projections).toMatchObject({ status: 'up', degraded: true, halted: [{ partition: halted[0].partition, code: 'PROJECTION.INCONSISTENT_EVENT' }] });

    const token = mintToken({ sub: 'aud-health', role: 'auditor' }, hs256Key(jwtSecret), { ttlSeconds: 600 });
    const status = await fetch(`http://127.0.0.1:${ports.api}/projections/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    const body = (await status.json()) as { status: string; openIncidents: { partition: number; code: string }[] };
    expect(body.status).toBe('halted');
    expect(body.openIncidents).toEqual(expect.arrayContaining([expect.objectContaining({ partition: halted[0].partition, code: 'PROJECTION.INCONSISTENT_EVENT' })]));
  });
});
