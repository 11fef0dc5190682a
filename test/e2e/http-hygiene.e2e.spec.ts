/**
 * HTTP hygiene of the API (docs/api-versioning.md, docs/architecture.md §8, §10): helmet's security
 * headers (the Swagger UI and the console keep their own CSP), every route also under `/v1` with
 * `API-Version: 1`, the request id (`X-Request-Id`: the caller's if well-formed, else a new one)
 * echoed, in every error body and in the log lines, and the graceful stop of `dist/apps/ledger/src/main.js`:
 * SIGTERM lets an in-flight request finish, refuses new connections, closes the pools and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { LedgerClient } from '@ledger/simulator';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import { API_CSP } from '../../apps/ledger/src/common/http-hygiene';
import { CONSOLE_CSP } from '../../apps/ledger/src/static/console-static.controller';
import { createTopic, testKafka } from '../../libs/projections/src/testing/kafka-kit';
import { committedDocument } from '../support/openapi-contract';
import { HARNESS_EDGE_LIMITS, LedgerHarness, runId, startLedger, TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS, TEST_TABLE_IDS } from '../support/ledger-harness';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '../..');
/** A response's JSON body, untyped (the spec checks its fields). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('security headers, /v1 and request ids (in-process API)', () => {
  let h: LedgerHarness;
  let auditor: string;
  beforeAll(async () => {
    h = await startLedger();
    auditor = h.client.token('auditor', 'auditor-1');
  });
  afterAll(async () => {
    await h?.close();
  });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h.baseUrl}${path}`, { headers });

  it('answers with helmet headers and the API CSP; no X-Powered-By', async () => {
    const res = await get('/health');
    expect(res.headers.get('content-security-policy')).toBe(API_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('api-version')).toBe('1');
  });

  it('answers /health/live and /health/ready with @nestjs/terminus reports (loaded in-process), public and per the document', async () => {
    const live = await get('/health/live');
    expect(live.status).toBe(200);
    expect(await json(live)).toEqual({ status: 'ok', info: { process: { status: 'up', uptimeS: expect.any(Number) } }, error: {}, details: { process: { status: 'up', uptimeS: expect.any(Number) } } });
    const ready = await get('/health/ready');
    expect(ready.status).toBe(200);
    const body = await json(ready);
    expect(Object.keys(body.details).sort()).toEqual(['kafka', 'migrations', 'postgres', 'projections', 'syncCommit']);
    expect(body).toMatchObject({
      error: {},
      details: {
        postgres: { status: 'up', latencyMs: expect.any(Number) },
        migrations: { status: 'up' },
        kafka: { status: 'up', brokers: expect.any(Number) },
        projections: { status: 'up' },
        syncCommit: { status: 'up', commitMs: expect.any(Number), boundMs: expect.any(Number) },
      },
    });
    expect(body.details.kafka.degraded).toBeUndefined();
    expect(body.info).toEqual(body.details);
    // top-level `degraded` exactly when a check is up but degraded (a projection incident another spec left open)
    expect(body.status).toBe(body.details.projections.degraded === true ? 'degraded' : 'ok');
  });

  it('keeps /docs (Swagger UI) working under a CSP that allows its own scripts and styles', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    const html = await page.text();
    // every script of the page is a file of this origin (script-src 'self'), none inline
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\.\/|src='\.\/|src="\/|src='\//);
      expect(body.trim()).toBe('');
    }
    const init = await get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('SwaggerUIBundle(');
    expect((await get('/docs-json')).status).toBe(200);
  });

  it('leaves the console its own CSP', async () => {
    const res = await get('/console/');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it('serves every route also under /v1, with the same answer', async () => {
    for (const path of ['/health', '/me', '/tables']) {
      const plain = await get(path, { authorization: `Bearer ${auditor}` });
      const v1 = await get(`/v1${path}`, { authorization: `Bearer ${auditor}` });
      expect(v1.status).toBe(plain.status);
      expect(v1.headers.get('api-version')).toBe('1');
      const [a, b] = [await json(plain), await json(v1)];
      if (path === '/health') {
        expect(Object.keys(b)).toEqual(Object.keys(a));
      } else {
        expect(b).toEqual(a);
      }
    }
    // a write through /v1 is the same route: the same refusal of a bad body
    const device = h.client.token('table-device', 'device-1');
    const post = (p: string) => fetch(`${h.baseUrl}${p}`, { method: 'POST', headers: { authorization: `Bearer ${device}`, 'content-type': 'application/json' }, body: JSON.stringify({ nonsense: 1 }) });
    const [p1, p2] = [await post(`/tables/${TEST_TABLE_IDS[0]}/shoes`), await post(`/v1/tables/${TEST_TABLE_IDS[0]}/shoes`)];
    expect(p2.status).toBe(p1.status);
    expect((await json(p2)).error.code).toBe((await json(p1)).error.code);
    // a /v2 does not exist; /v1x is not /v1
    expect((await json(await get('/v2/health'))).error.code).toBe('ROUTE.NOT_FOUND');
    expect((await get('/v1health')).status).toBe(404);
  });

  it('answers with the headers the document declares on every answer of a token route, under the names it declares', async () => {
    const declared = Object.keys((committedDocument() as unknown as { components: { headers: Record<string, unknown> } }).components.headers);
    const names = ['X-Correlation-Id', 'X-RateLimit-Limit-caller', 'X-RateLimit-Remaining-caller', 'X-RateLimit-Reset-caller'];
    expect(declared).toEqual(expect.arrayContaining(names));
    const res = await get('/tables', { authorization: `Bearer ${auditor}`, 'x-correlation-id': 'corr-hygiene-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toBe('corr-hygiene-1');
    for (const n of names.slice(1)) expect({ n, value: res.headers.get(n) }).toEqual({ n, value: expect.stringMatching(/^\d+$/) });
  });

  it('echoes a well-formed X-Request-Id and puts it in the error body', async () => {
    const id = `req-${randomUUID()}`;
    const res = await get('/nowhere', { 'x-request-id': id });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe(id);
    const body = await json(res);
    expect(body.error.code).toBe('ROUTE.NOT_FOUND');
    expect(body.requestId).toBe(id);
    // also on an error raised before routing (no token on a protected route)
    const unauth = await get('/v1/tables', { 'x-request-id': 'abc:123.x_y' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('x-request-id')).toBe('abc:123.x_y');
    expect((await json(unauth)).requestId).toBe('abc:123.x_y');
  });

  it('replaces a malformed or oversized X-Request-Id by a new UUID, and generates one when absent', async () => {
    for (const bad of ['has space', 'semi;colon', 'x'.repeat(129), '<script>']) {
      const res = await get('/nowhere', { 'x-request-id': bad });
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      expect((await json(res)).requestId).toBe(id);
    }
    const a = (await get('/health')).headers.get('x-request-id');
    const b = (await get('/health')).headers.get('x-request-id');
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
    expect((await get('/health', { 'x-request-id': 'x'.repeat(128) })).headers.get('x-request-id')).toBe('x'.repeat(128));
  });
});

/** A started `dist/apps/ledger/src/main.js` and its output so far. */
interface ApiProcess {
  readonly child: ChildProcess;
  readonly port: number;
  output: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built API (as `npm start` does) on its own port and read-model schema, and waits until it answers. */
async function startApiProcess(schema: string): Promise<ApiProcess> {
  const port = 40_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ['-r', 'tsconfig-paths/register', 'dist/apps/ledger/src/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...HARNESS_EDGE_LIMITS,
      TS_NODE_BASEURL: './dist',
      LEDGER_ENV: 'development',
      DATABASE_URL: TEST_SERVICE_DATABASE_URLS.app,
      MIGRATIONS_DATABASE_URL: TEST_DATABASE_URL,
      PROJECTIONS_SCHEMA: schema,
      LEDGER_EVENTS_TOPIC: `test.hygiene.${schema}`,
      LOG_LEVEL: 'info',
      HTTP_ACCESS_LOG: 'true',
      HOST: '127.0.0.1',
      PORT: String(port),
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: ApiProcess = {
    child,
    port,
    output: '',
    exited: new Promise((done) => child.on('exit', (code, signal) => done({ code, signal }))),
  };
  child.stdout!.on('data', (d) => (p.output += d));
  child.stderr!.on('data', (d) => (p.output += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited early:\n${p.output}`);
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return p;
    if (Date.now() > deadline) throw new Error(`the API did not start:\n${p.output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether a new TCP connection to `port` is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      done(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED'));
  });
}

/** Everything `s` receives until it closes. */
function readAll(s: Socket): Promise<string> {
  return new Promise((done) => {
    let got = '';
    s.on('data', (d) => (got += d));
    s.on('close', () => done(got));
    s.on('error', () => done(got));
  });
}

/** The log lines (JSON) of the process's output. */
function logLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
}

describe('the API process (dist/apps/ledger/src/main.js)', () => {
  const schema = `read_hyg_${randomUUID().slice(0, 8)}`;
  let api: ApiProcess | null = null;
  afterAll(async () => {
    if (api && api.child.exitCode === null) api.child.kill('SIGKILL');
    const c = new Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  });

  it('logs the request id on the request lines; on SIGTERM finishes the request in flight, refuses new connections, exits 0', async () => {
    // the topic its outbox rows name must exist: every later relay on this database publishes in
    // global order and would wait on a row it cannot publish (docs/guarantees.md §5)
    await createTopic(testKafka(), `test.hygiene.${schema}`, 1);
    api = await startApiProcess(schema);
    const base = `http://127.0.0.1:${api.port}`;
    const device = new LedgerClient(base, DEV_JWT_SECRET, { deviceTables: TEST_TABLE_IDS }).token('table-device', 'device-1');

    // the request id in the log lines: the access line and the refusal line of a refused write
    const logged = `log-${randomUUID()}`;
    const refusedWrite = await fetch(`${base}/v1/tables/${TEST_TABLE_IDS[0]}/shoes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${device}`, 'content-type': 'application/json', 'x-request-id': logged },
      body: JSON.stringify({ nonsense: true }),
    });
    expect(refusedWrite.status).toBe(400);
    expect((await json(refusedWrite)).requestId).toBe(logged);
    await new Promise((r) => setTimeout(r, 300));
    const mine = logLines(api.output).filter((l) => JSON.stringify(l).includes(logged));
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const l of mine) expect(l.requestId).toBe(logged);
    expect(mine.some((l) => l.msg === 'request refused')).toBe(true);
    expect(mine.some((l) => (l.req as { id?: string } | undefined)?.id === logged && (l.res as { statusCode?: number } | undefined)?.statusCode === 400)).toBe(true);

    // a write held in flight: headers and half of the body sent, the rest after the SIGTERM
    const body = JSON.stringify({ shoeId: runId('hyg'), dealerId: 'dealer-1' });
    const held = connect(api.port, '127.0.0.1');
    await new Promise<void>((r) => held.once('connect', () => r()));
    const answer = readAll(held);
    held.write(
      `POST /v1/tables/${TEST_TABLE_IDS[0]}/shoes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${device}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: held-1\r\nIdempotency-Key: ${randomUUID()}\r\n\r\n` +
        body.slice(0, 10),
    );
    await new Promise((r) => setTimeout(r, 300));
    api.child.kill('SIGTERM');
    // stopping: no new connections while the held request is still open
    const deadline = Date.now() + 5_000;
    while (!(await refused(api.port))) {
      if (Date.now() > deadline) throw new Error(`still accepting connections after SIGTERM:\n${api.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(api.child.exitCode).toBeNull();
    held.write(body.slice(10));
    const raw = await answer;
    expect(raw).toMatch(/^HTTP\/1\.1 201 /);
    expect(raw).toMatch(/\r\nx-request-id: held-1\r\n/i);
    expect(raw).toMatch(/\r\napi-version: 1\r\n/i);
    const exit = await api.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    const stop = logLines(api.output).find((l) => l.msg === 'stopped: every in-flight request finished');
    expect(stop).toMatchObject({ signal: 'SIGTERM', drained: true, cut: 0 });
  });
});
