/**
 * The API's limits held across two API instances (docs/architecture.md §10, "Limits at the edge";
 * docs/operations.md, "Several API instances"): two real ledger apps (the wiring of main.ts) share
 * one Redis of this spec's own (`LIMITS_REDIS_URL`, test/support/redis-server.ts) and one
 * PostgreSQL, and one caller alternates its requests between them. Each limit is asked of this
 * "shared" pair and of an "apart" pair (the same settings without `LIMITS_REDIS_URL`, each instance
 * counting in its own memory), so each case shows the budget the shared pair holds and the double
 * one the apart pair gives:
 * - the per-caller rate budget (`RATE_LIMIT_AUDITOR` N): the (N+1)-th request overall is 429
 *   `RATE.LIMITED` whichever instance it reaches (apart: 2N pass);
 * - the per-address budget (`RATE_LIMIT_PER_ADDRESS`), unauthenticated requests to a made-up route;
 * - a heavy-read slot (`HEAVY_READS_PER_CALLER` 1) taken on instance 1 is busy on instance 2;
 * - a live-stream place (`LIVE_STREAMS_AUDITORS` 1) held on instance 1 is busy on instance 2, and
 *   free there once the stream is closed;
 * - the refusal log's bytes per minute (`REFUSAL_LOG_BYTES_PER_MINUTE`): the shared pair stores half
 *   the rows the apart pair stores for the same flood;
 * - Redis killed: a counted request is refused, 503 `LIMITS.UNAVAILABLE` with `Retry-After`, never
 *   let through; `/health` still answers.
 * Every pair trusts the loopback proxy (`TRUST_PROXY=loopback`), so each case counts against an
 * address of its own (`X-Forwarded-For`); test/attack/trust-proxy.e2e.spec.ts checks that setting.
 */
import { randomUUID } from 'node:crypto';
import { metricValue } from '@ledger/metrics';
import { LedgerHarness, startLedger } from '../support/ledger-harness';
import { startRedis, type TestRedis } from '../support/redis-server';

jest.setTimeout(180_000);

/** `RATE_LIMIT_AUDITOR` of both pairs. */
const CALLER_BUDGET = 5;
/** `RATE_LIMIT_PER_ADDRESS` of both pairs. */
const ADDRESS_BUDGET = 10;
/** `REFUSAL_LOG_BYTES_PER_MINUTE`: three refusals of {@link FLOOD_BODY} (≈ 1.5 KB of budget each). */
const REFUSAL_BUDGET = 5_000;
const FLOOD_BODY = JSON.stringify({ junk: 'x'.repeat(1000) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A distinct documentation address (RFC 5737) per case, so no case spends another's address budget. */
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
}

async function send(h: LedgerHarness, path: string, opts: { bearer?: string; forwardedFor?: string; method?: string; body?: string; correlationId?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.forwardedFor) headers['x-forwarded-for'] = opts.forwardedFor;
  if (opts.correlationId) headers['x-correlation-id'] = opts.correlationId;
  const res = await fetch(`${h.baseUrl}${path}`, { method: opts.method ?? 'GET', headers, body: opts.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

/** Sends `request(instance)` alternately to the two instances until one is refused with 429. @returns how many passed, and the refusal */
async function passedUntilRefused(pair: readonly LedgerHarness[], request: (h: LedgerHarness) => Promise<Answer>, max: number): Promise<{ passed: number; refusal: Answer | null }> {
  for (let i = 0; i < max; i++) {
    const a = await request(pair[i % 2]);
    if (a.status === 429) return { passed: i, refusal: a };
  }
  return { passed: max, refusal: null };
}

/** An open live stream: its status and body when refused; `close` aborts it. */
async function openStream(h: LedgerHarness, token: string): Promise<{ status: number; body: string; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${h.baseUrl}/live/tables`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), close: () => abort.abort() };
  void (async () => {
    try {
      for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>);
    } catch {
      // aborted by the test
    }
  })();
  return { status: 200, body: '', close: () => abort.abort() };
}

/** Waits until the next minute if fewer than `ms` are left of this one (the refusal budget is per minute of the clock). */
async function notNearMinuteEnd(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await sleep(left + 100);
}

let redis: TestRedis;
const pairs: Record<'shared' | 'apart', LedgerHarness[]> = { shared: [], apart: [] };
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  redis = await startRedis();
  const env = {
    RATE_LIMIT_AUDITOR: String(CALLER_BUDGET),
    RATE_LIMIT_PIT_MANAGER: String(CALLER_BUDGET),
    RATE_LIMIT_PER_ADDRESS: String(ADDRESS_BUDGET),
    REFUSAL_LOG_BYTES_PER_MINUTE: String(REFUSAL_BUDGET),
    HEAVY_READS_PER_CALLER: '1',
    LIVE_STREAMS_AUDITORS: '1',
    TRUST_PROXY: 'loopback',
  };
  const shared = { ...env, LIMITS_REDIS_URL: redis.url, LIMITS_REDIS_PREFIX: `test:${run}:` };
  pairs.shared = [await startLedger({ env: shared }), await startLedger({ env: shared })];
  pairs.apart = [await startLedger({ env: { ...env, LIMITS_REDIS_URL: undefined } }), await startLedger({ env: { ...env, LIMITS_REDIS_URL: undefined } })];
});
afterAll(async () => {
  for (const h of [...pairs.shared, ...pairs.apart]) await h.close();
  await redis?.stop();
});

describe.each(['shared', 'apart'] as const)('two API instances, limits %s', (mode) => {
  const factor = mode === 'shared' ? 1 : 2;

  it(`one caller alternating between them gets ${mode === 'shared' ? 'one' : 'a double'} rate budget; the next request is 429 RATE.LIMITED on either`, async () => {
    const pair = pairs[mode];
    const auditor = pair[0].client.token('auditor', `aud-rate-${mode}-${run}`);
    const from = address();
    const { passed, refusal } = await passedUntilRefused(pair, (h) => send(h, '/me', { bearer: auditor, forwardedFor: from }), 3 * CALLER_BUDGET);
    expect(passed).toBe(factor * CALLER_BUDGET);
    expect(refusal?.body.error).toMatchObject({ code: 'RATE.LIMITED', details: { scope: 'caller', limit: CALLER_BUDGET } });
    expect(Number(refusal?.retryAfter)).toBeGreaterThanOrEqual(1);
    // refused on the other instance too
    expect((await send(pair[(passed + 1) % 2], '/me', { bearer: auditor, forwardedFor: from })).status).toBe(429);
  });

  it(`one address alternating between them gets ${mode === 'shared' ? 'one' : 'a double'} address budget`, async () => {
    const pair = pairs[mode];
    const from = address();
    const { passed, refusal } = await passedUntilRefused(pair, (h) => send(h, `/made-up/${run}`, { forwardedFor: from }), 3 * ADDRESS_BUDGET);
    expect(passed).toBe(factor * ADDRESS_BUDGET);
    expect(refusal?.body.error).toMatchObject({ code: 'RATE.LIMITED', details: { scope: 'address', limit: ADDRESS_BUDGET } });
  });

  it(`a heavy-read slot taken on instance 1 is ${mode === 'shared' ? 'busy' : 'not counted'} on instance 2`, async () => {
    const [one, two] = pairs[mode];
    const auditor = one.client.token('auditor', `aud-heavy-${mode}-${run}`);
    const from = address();
    // hold the chain check on instance 1: it writes its query_log row after verifying, and that table is locked
    const holder = one.ds.createQueryRunner();
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE query_log IN ACCESS EXCLUSIVE MODE');
    const waiting = async () => (await one.ds.query(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'query_log' AND NOT l.granted`))[0].n as number;
    try {
      const held = send(one, '/tables/T-CLASSIC-01/chain', { bearer: auditor, forwardedFor: from });
      for (let i = 0; i < 30 && (await waiting()) === 0; i++) await sleep(500);
      expect(await waiting()).toBe(1);
      const other = send(two, '/tables/T-CLASSIC-01/chain', { bearer: auditor, forwardedFor: from });
      if (mode === 'shared') {
        const busy = await other;
        expect(busy.status).toBe(429);
        expect(busy.body.error).toMatchObject({ code: 'RATE.HEAVY_READ_BUSY', details: { scope: 'caller', limit: 1 } });
      } else {
        for (let i = 0; i < 30 && (await waiting()) < 2; i++) await sleep(500);
        expect(await waiting()).toBe(2); // running on instance 2 as well, held on the same lock
      }
      await holder.query('COMMIT');
      expect((await held).status).toBe(200);
      if (mode === 'apart') expect((await other).status).toBe(200);
    } finally {
      if (holder.isTransactionActive) await holder.query('ROLLBACK');
      await holder.release();
    }
    // the slot is free again, on either instance
    expect((await send(two, '/tables/T-CLASSIC-01/chain', { bearer: auditor, forwardedFor: from })).status).toBe(200);
  });

  it(`a live-stream place held on instance 1 is ${mode === 'shared' ? 'busy' : 'not counted'} on instance 2`, async () => {
    const [one, two] = pairs[mode];
    const first = await openStream(one, one.client.token('auditor', `aud-live-1-${mode}-${run}`));
    try {
      expect(first.status).toBe(200);
      const second = await openStream(two, two.client.token('auditor', `aud-live-2-${mode}-${run}`));
      second.close();
      if (mode === 'apart') {
        expect(second.status).toBe(200);
        return;
      }
      expect(second.status).toBe(429);
      expect(JSON.parse(second.body).error).toMatchObject({ code: 'RATE.LIVE_STREAMS_BUSY', details: { scope: 'role', limit: 1 } });
    } finally {
      first.close();
    }
    // given back when the stream on instance 1 closes
    let again = { status: 0, close: () => undefined as void };
    for (let i = 0; i < 50 && again.status !== 200; i++) {
      await sleep(200);
      again = await openStream(two, two.client.token('auditor', `aud-live-2-${mode}-${run}`));
      if (again.status !== 200) again.close();
    }
    again.close();
    expect(again.status).toBe(200);
  });

  it(`the refusal log's bytes per minute: the ${mode} pair stores ${mode === 'shared' ? 'one' : 'two'} budget(s) of one flood`, async () => {
    const pair = pairs[mode];
    const from = address();
    const prefix = `flood-${mode}-${run}-`;
    await notNearMinuteEnd(15_000);
    for (let i = 0; i < 8; i++) expect((await send(pair[i % 2], `/made-up/${run}/${i}`, { method: 'POST', body: FLOOD_BODY, forwardedFor: from, correlationId: `${prefix}${i}` })).status).toBe(404);
    const [{ n }] = await pair[0].ds.query(`SELECT count(*)::int AS n FROM rejections WHERE correlation_id LIKE $1`, [`${prefix}%`]);
    expect(n).toBe(3 * factor);
  });
});

describe('the shared Redis unreachable', () => {
  it('a counted request is refused, 503 LIMITS.UNAVAILABLE with Retry-After, and counted; /health still answers', async () => {
    await redis.stop();
    const [one, two] = pairs.shared;
    const before = await metricValue('ledger_limits_unavailable_total', { limit: 'rate' });
    for (const h of [one, two]) {
      const a = await send(h, '/me', { bearer: h.client.token('auditor', `aud-down-${run}`), forwardedFor: address() });
      expect(a.status).toBe(503);
      expect(a.body.error).toMatchObject({ code: 'LIMITS.UNAVAILABLE', details: { limit: 'rate' } });
      expect(a.retryAfter).toBe('1');
      expect((await send(h, '/health')).status).toBe(200);
    }
    expect(await metricValue('ledger_limits_unavailable_total', { limit: 'rate' })).toBeGreaterThanOrEqual(before + 2);
  });
});
