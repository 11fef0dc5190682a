/**
 * Attacks on the cost of the HTTP edge (docs/guarantees.md §11, §12; docs/architecture.md §10,
 * "Limits at the edge"), through HTTP against the real PostgreSQL:
 * - (a) a flood of unauthenticated POSTs with large bodies to a made-up route: every refusal is
 *   counted (`ledger_refusals_total`), the rows they add to `rejections` stay within the caller's
 *   budget (bytes asserted), each stored payload is capped with its length and SHA-256; an
 *   authenticated refusal by the domain or the role checks still gets its full row;
 * - (b) 30 concurrent chain checks from one betting-platform token while the chain checks are held
 *   (the test locks `query_log`, which each chain check writes after verifying): a write on another
 *   table completes while they are held, and all but one of them got 429 `RATE.HEAVY_READ_BUSY`
 *   with `Retry-After`;
 * - (c) one caller over its role's budget, one address over its budget: 429 `RATE.LIMITED` with
 *   `Retry-After`;
 * - (d) a 4.8 MB body without a token is refused (413) while it is still being sent — so before a
 *   byte of it was parsed; a write route refuses an authenticated body over its limit the same way,
 *   the bets batch accepts a larger one.
 *
 * Each failed on the code before these limits: (a) every refusal stored a payload of up to 64 KiB
 * (no budget, no metric); (b) the chain checks took every connection of the one pool and the write
 * waited until they were released; (c) nothing answered 429; (d) the body was read to its end
 * before any answer.
 * The failure timers below only detect a hang (the old code's behaviour); no assertion depends on speed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { metricValue } from '@ledger/metrics';
import { DEV_JWT_SECRET, hs256Key, mintToken } from '@ledger/tokens';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(180_000);

const KEY = hs256Key(DEV_JWT_SECRET);
const CLASSIC = 'T-CLASSIC-01';
const TIGER = 'T-TIGER-01';
/** How long a step may hang before the test calls it a hang (the old code's failure), in ms. */
const HANG_MS = 30_000;

const token = (role: string, sub: string, tables?: string[]) => mintToken({ sub, role, tables }, KEY, { ttlSeconds: 3600 });

interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
}

async function send(baseUrl: string, method: string, path: string, opts: { bearer?: string; body?: string; correlationId?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.correlationId) headers['x-correlation-id'] = opts.correlationId;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: opts.body });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

/** Resolves to `'hang'` if `p` has not settled within {@link HANG_MS}. */
function orHang<T>(p: Promise<T>): Promise<T | 'hang'> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), HANG_MS);
  });
  return Promise.race([p, hang]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a shoe on `tableId` with a device token and commences it (a few events to verify). */
async function openShoe(h: LedgerHarness, tableId: string): Promise<string> {
  const shoeId = runId('edge');
  const dev = token('table-device', `dev-${tableId}`, [tableId]);
  expect((await send(h.baseUrl, 'POST', `/tables/${tableId}/shoes`, { bearer: dev, body: JSON.stringify({ shoeId, dealerId: 'dealer-1' }) })).status).toBe(201);
  expect((await send(h.baseUrl, 'POST', `/shoes/${shoeId}/commencement`, { bearer: dev, body: JSON.stringify({ card: '2C' }) })).status).toBe(201);
  return shoeId;
}

describe('(a) a flood of unauthenticated refusals is counted, and sampled within a budget', () => {
  const BUDGET = 16_384;
  const CAP = 2048;
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger({ env: { REFUSAL_LOG_BYTES_PER_MINUTE: String(BUDGET), REFUSAL_PAYLOAD_MAX_BYTES: String(CAP) } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('N unauthenticated POSTs with large bodies to a made-up route: all counted, the stored bytes bounded, each payload capped', async () => {
    const run = randomUUID().slice(0, 8);
    const N = 60;
    const LARGE = 20;
    const body = JSON.stringify({ junk: 'x'.repeat(3900) }); // under the 4 KiB a request without a token may send: parsed, then refused
    const notFoundBefore = await metricValue('ledger_refusals_total', { reason: 'ROUTE.NOT_FOUND', authenticated: 'false' });
    const tooLargeBefore = await metricValue('ledger_refusals_total', { reason: 'REQUEST.TOO_LARGE', authenticated: 'false' });
    const droppedBefore = await metricValue('ledger_rejections_dropped_total');
    const statuses: number[] = [];
    for (let i = 0; i < N; i++) statuses.push((await send(h.baseUrl, 'POST', `/made-up/${run}/${i}`, { body, correlationId: `flood-${run}-${i}` })).status);
    const huge = JSON.stringify({ junk: 'y'.repeat(1_000_000) });
    for (let i = 0; i < LARGE; i++) statuses.push((await send(h.baseUrl, 'POST', `/made-up/${run}/big-${i}`, { body: huge, correlationId: `flood-${run}-big-${i}` })).status);
    expect(statuses.slice(0, N).every((s) => s === 404)).toBe(true);
    expect(statuses.slice(N).every((s) => s === 413)).toBe(true);

    // every refusal counted
    expect((await metricValue('ledger_refusals_total', { reason: 'ROUTE.NOT_FOUND', authenticated: 'false' })) - notFoundBefore).toBe(N);
    expect((await metricValue('ledger_refusals_total', { reason: 'REQUEST.TOO_LARGE', authenticated: 'false' })) - tooLargeBefore).toBe(LARGE);

    // the rows stay within the budget (two windows of a minute at most: the flood may straddle one)
    const [row] = await h.ds.query(
      `SELECT count(*)::int AS n, coalesce(sum(pg_column_size(r.*)), 0)::int AS bytes, coalesce(max(octet_length(raw_payload::text)), 0)::int AS biggest
         FROM rejections r WHERE correlation_id LIKE $1`,
      [`flood-${run}-%`],
    );
    expect(row.bytes).toBeLessThanOrEqual(2 * BUDGET);
    expect(row.biggest).toBeLessThanOrEqual(CAP);
    const dropped = (await metricValue('ledger_rejections_dropped_total')) - droppedBefore;
    expect(dropped).toBeGreaterThan(0);
    expect(row.n + dropped).toBe(N + LARGE);

    // a stored payload over the cap: its length and SHA-256 kept, the head cut
    const [first] = await h.ds.query(`SELECT raw_payload, route, code FROM rejections WHERE correlation_id = $1`, [`flood-${run}-0`]);
    expect(first.code).toBe('ROUTE.NOT_FOUND');
    expect(first.raw_payload).toMatchObject({ truncated: true, bytes: Buffer.byteLength(body), contentLength: Buffer.byteLength(body), sha256: createHash('sha256').update(body).digest('hex') });
    expect(body.startsWith(first.raw_payload.head)).toBe(true);
  });

  it('an authenticated refusal by the domain or the role checks still gets its full row, the budget of the address spent', async () => {
    const correlationId = `full-${randomUUID()}`;
    const device = token('table-device', 'device-a', [CLASSIC]);
    const big = { shoeId: runId('full'), dealerId: 'dealer-1', remark: 'z'.repeat(3000) };
    const r = await send(h.baseUrl, 'POST', `/tables/${CLASSIC}/shoes`, { bearer: device, body: JSON.stringify(big), correlationId });
    expect(r.status).toBe(400);
    const forbidden = `forbidden-${randomUUID()}`;
    const open = { shoeId: runId('full'), dealerId: 'dealer-1' };
    expect((await send(h.baseUrl, 'POST', `/tables/${TIGER}/shoes`, { bearer: device, body: JSON.stringify(open), correlationId: forbidden })).status).toBe(403);
    const rows = await h.ds.query(`SELECT correlation_id, code, actor_id, raw_payload FROM rejections WHERE correlation_id = ANY($1) ORDER BY id`, [[correlationId, forbidden]]);
    expect(rows).toEqual([
      { correlation_id: correlationId, code: 'VALIDATION.FAILED', actor_id: 'device-a', raw_payload: big },
      { correlation_id: forbidden, code: 'AUTH.TABLE_NOT_ALLOWED', actor_id: 'device-a', raw_payload: open },
    ]);
    expect(await metricValue('ledger_refusals_total', { reason: 'AUTH.TABLE_NOT_ALLOWED', authenticated: 'true' })).toBeGreaterThanOrEqual(1);
  });
});

describe('(b) heavy reads never hold what a write waits for; (d) bodies over their limit refused before they are read', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('30 concurrent chain checks of one betting platform, held: a write on another table completes meanwhile, most of them 429 with Retry-After', async () => {
    const shoeId = await openShoe(h, CLASSIC);
    const platform = token('betting-platform', `platform-${randomUUID().slice(0, 6)}`);
    // hold every chain check: each writes its query_log row after verifying, and that table is locked
    const holder = h.ds.createQueryRunner();
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE query_log IN ACCESS EXCLUSIVE MODE');
    const waitingOnQueryLog = async () => (await h.ds.query(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'query_log' AND NOT l.granted`))[0].n as number;
    let released = false;
    const answers: Answer[] = [];
    try {
      const checks = Array.from({ length: 30 }, () =>
        send(h.baseUrl, 'GET', `/shoes/${shoeId}/chain`, { bearer: platform }).then((a) => {
          answers.push(a);
          return a;
        }),
      );
      // at least one chain check is held on the lock
      for (let i = 0; i < HANG_MS / 1000 && (await waitingOnQueryLog()) === 0; i++) await sleep(1000);
      expect(await waitingOnQueryLog()).toBeGreaterThan(0);

      // a write on another table, while they are held
      const write = await orHang(openShoe(h, TIGER));
      expect(write).not.toBe('hang');
      // still held when the write completed: the write did not wait for them
      expect(await waitingOnQueryLog()).toBeGreaterThan(0);
      expect(answers.length).toBeLessThan(30);
      // the write's own statements never waited on a lock: nothing but the held chain checks waits
      const waits = await h.ds.query(`SELECT c.relname FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted`);
      expect(waits.every((w: { relname: string | null }) => w.relname === 'query_log')).toBe(true);

      await holder.query('COMMIT');
      released = true;
      const all = await Promise.all(checks);
      const busy = all.filter((a) => a.status === 429);
      expect(busy.length).toBeGreaterThanOrEqual(25);
      for (const a of busy) {
        expect(a.body.error.code).toBe('RATE.HEAVY_READ_BUSY');
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect(all.filter((a) => a.status === 200).every((a) => a.body.ok === true)).toBe(true);
      expect(all.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
      expect(busy.length + all.filter((a) => a.status === 200).length).toBe(30);
    } finally {
      if (!released) await holder.query('ROLLBACK').catch(() => undefined);
      await holder.release();
    }
  });

  /** Sends the headers and the first `sentBytes` of a body of `declaredBytes` (or chunked), never the rest; resolves with the answer. */
  function partialPost(path: string, headers: Record<string, string>, declaredBytes: number | 'chunked', sentBytes: number): Promise<{ status: number; body: any }> {
    const url = new URL(path, h.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...(declaredBytes === 'chunked' ? {} : { 'content-length': String(declaredBytes) }), ...headers } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
          });
        },
      );
      req.on('error', (e) => (/ECONNRESET|EPIPE/.test(String((e as NodeJS.ErrnoException).code)) ? undefined : reject(e)));
      req.write(`{"bets":[{"betId":"${'x'.repeat(Math.max(0, sentBytes - 20))}`);
      // the rest of the body is never sent: only a server that answers before reading it answers at all
    });
  }

  it('a 4.8 MB body without a token, or chunked without a token, is refused while it is still being sent (413, never parsed)', async () => {
    const before = await metricValue('ledger_refusals_total', { reason: 'REQUEST.TOO_LARGE', authenticated: 'false' });
    const declared = await orHang(partialPost('/shoes/s-1/rounds/r-1/bets/batch', {}, 4_800_000, 16_384));
    expect(declared).not.toBe('hang');
    expect(declared).toMatchObject({ status: 413, body: { error: { code: 'REQUEST.TOO_LARGE' } } });
    const chunked = await orHang(partialPost('/shoes/s-1/burns', { authorization: 'Bearer not-a-token' }, 'chunked', 16_384));
    expect(chunked).toMatchObject({ status: 413, body: { error: { code: 'REQUEST.TOO_LARGE' } } });
    expect((await metricValue('ledger_refusals_total', { reason: 'REQUEST.TOO_LARGE', authenticated: 'false' })) - before).toBe(2);
  });

  it('a small gzip body that would inflate to megabytes is refused 415, never inflated, with a token or without', async () => {
    // 3.9 MB of JSON that compresses to a few KB: under every limit on the wire
    const bomb = gzipSync(Buffer.from(`[${Array(1_000_000).fill('[]').join(',')}]`));
    expect(bomb.length).toBeLessThan(4096);
    const run = randomUUID().slice(0, 8);
    const post = async (path: string, bearer?: string) => {
      const res = await fetch(`${h.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-correlation-id': `gzip-${run}`, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: bomb,
      });
      return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
    };
    const device = token('table-device', 'device-gzip', [CLASSIC]);
    expect(await post('/shoes/s-1/burns', device)).toEqual({ status: 415, code: 'REQUEST.UNSUPPORTED_MEDIA_TYPE' });
    const anonymous = await post('/no-such-route');
    expect([404, 415]).toContain(anonymous.status);
    // nothing of the inflated text reached the rejection log (it was never inflated)
    const rows: { raw: string | null }[] = await h.ds.query(`SELECT raw_payload::text AS raw FROM rejections WHERE correlation_id = $1`, [`gzip-${run}`]);
    expect(rows.filter((r) => (r.raw ?? '').includes('[],[],[]'))).toEqual([]);
  });

  it('an authenticated write over its route limit is refused before it is read; the bets batch reads a larger body', async () => {
    const device = token('table-device', 'device-big', [CLASSIC]);
    const write = await orHang(partialPost('/shoes/s-1/burns', { authorization: `Bearer ${device}` }, 4_800_000, 16_384));
    expect(write).toMatchObject({ status: 413, body: { error: { code: 'REQUEST.TOO_LARGE', details: { limitBytes: 65_536 } } } });
    const platform = token('betting-platform', 'platform-big');
    const batch = { bets: Array.from({ length: 400 }, (_, i) => ({ betId: `b-${i}-${'p'.repeat(200)}`, accountId: 'acc-1', betCode: 'PLAYER', stake: 100 })) };
    const r = await send(h.baseUrl, 'POST', `/shoes/no-such-shoe/rounds/r-1/bets/batch`, { bearer: platform, body: JSON.stringify(batch) });
    expect(JSON.stringify(batch).length).toBeGreaterThan(65_536);
    expect(r.status).not.toBe(413);
    expect(r.body.error.code).not.toBe('REQUEST.TOO_LARGE');
  });
});

describe('(c) rate limits per caller and per address', () => {
  const ADDRESS = 40;
  const AUDITOR = 5;
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger({ env: { RATE_LIMIT_PER_ADDRESS: String(ADDRESS), RATE_LIMIT_AUDITOR: String(AUDITOR), RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a caller over its role budget gets 429 RATE.LIMITED with Retry-After; another caller is still served; then the address runs out', async () => {
    let sent = 0;
    const auditor = token('auditor', 'auditor-1');
    const answers: Answer[] = [];
    for (let i = 0; i < AUDITOR + 3; i++, sent++) answers.push(await send(h.baseUrl, 'GET', '/tables', { bearer: auditor }));
    expect(answers.slice(0, AUDITOR).map((a) => a.status)).toEqual(Array(AUDITOR).fill(200));
    const limited = answers.slice(AUDITOR);
    for (const a of limited) {
      expect({ status: a.status, code: a.body.error.code, scope: a.body.error.details.scope, limit: a.body.error.details.limit }).toEqual({ status: 429, code: 'RATE.LIMITED', scope: 'caller', limit: AUDITOR });
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(a.retryAfter)).toBeLessThanOrEqual(60);
    }
    expect((await send(h.baseUrl, 'GET', '/tables', { bearer: token('auditor', 'auditor-2') })).status).toBe(200);
    sent++;

    // the address: requests without a token count too, to a route or to a made-up one (401 / 404
    // until the budget is spent, then 429 for both)
    const anonymous: Answer[] = [];
    for (let i = 0; i < ADDRESS + 6 - sent; i++) anonymous.push(await send(h.baseUrl, 'GET', i % 2 ? '/no-such-route' : '/tables'));
    const firstLimited = anonymous.findIndex((a) => a.status === 429);
    expect(firstLimited).toBeGreaterThanOrEqual(ADDRESS - sent);
    expect(anonymous.slice(0, firstLimited).every((a, i) => a.status === (i % 2 ? 404 : 401))).toBe(true);
    expect(anonymous.slice(firstLimited).map((a) => a.status)).toEqual(anonymous.slice(firstLimited).map(() => 429));
    const a = anonymous[firstLimited];
    expect({ code: a.body.error.code, scope: a.body.error.details.scope }).toEqual({ code: 'RATE.LIMITED', scope: 'address' });
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
    // and a valid token from that address too
    const fresh = await send(h.baseUrl, 'GET', '/tables', { bearer: token('auditor', 'auditor-3') });
    expect({ status: fresh.status, scope: fresh.body.error.details.scope }).toEqual({ status: 429, scope: 'address' });
    expect(await metricValue('ledger_refusals_total', { reason: 'RATE.LIMITED', authenticated: 'false' })).toBeGreaterThanOrEqual(1);
  });
});
