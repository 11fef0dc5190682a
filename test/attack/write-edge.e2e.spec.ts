/**
 * Attacks at the write edge of the API, each through HTTP against the real PostgreSQL
 * (docs/guarantees.md §3, §9, §12, §13; docs/architecture.md §10):
 * - a table device reports for a table its token does not name (open a shoe there, deal in a shoe
 *   there), a betting platform restricted to one table bets on another → 403
 *   `AUTH.TABLE_NOT_ALLOWED`, nothing appended, the refusal in the rejection log;
 * - one caller uses an `Idempotency-Key` another caller used first (by chance, or to squat it) →
 *   each request is executed on its own and answered its own answer, nobody gets 409 because of
 *   the other;
 * - an `occurredAt` a day in the past or a day in the future → 422 `TIME.OCCURRED_AT_OUT_OF_RANGE`,
 *   nothing appended;
 * - a raw read of a shoe's stream (every account and stake) → recorded in the access log.
 *
 * Each case failed on the code before these checks: the device's token was not compared with the
 * shoe's table (201), idempotency keys were global (the second caller got 409
 * `IDEMPOTENCY.KEY_REUSED`), `occurredAt` was stored as sent (201), and `GET /shoes/{id}/events`
 * wrote nothing to `query_log`.
 */
import { randomUUID } from 'node:crypto';
import { DEV_JWT_SECRET, hs256Key, mintToken } from '@ledger/tokens';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

const KEY = hs256Key(DEV_JWT_SECRET);
const CLASSIC = 'T-CLASSIC-01';
const TIGER = 'T-TIGER-01';
const DAY_MS = 24 * 3600 * 1000;

/** A token of `role` for subject `sub`, with a `tables` claim when given. */
const token = (role: string, sub: string, tables?: string[]) => mintToken({ sub, role, tables }, KEY, { ttlSeconds: 3600 });

interface Answer {
  status: number;
  body: any;
  correlationId: string;
}

describe('attacks at the write edge', () => {
  let h: LedgerHarness;
  const send = async (bearer: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const correlationId = `attack-${randomUUID()}`;
    const res = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'x-correlation-id': correlationId, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, correlationId };
  };
  const version = (shoeId: string) => h.store.streamVersion(`shoe-${shoeId}`);
  const rejectionOf = async (correlationId: string) => h.ds.query(`SELECT code, http_status, actor_id, actor_role, table_id, route FROM rejections WHERE correlation_id = $1`, [correlationId]);

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('a device token for table A on table B', () => {
    const deviceA = token('table-device', 'device-a', [CLASSIC]);
    const deviceB = token('table-device', 'device-b', [TIGER]);

    it('opening a shoe on table B: 403 AUTH.TABLE_NOT_ALLOWED, no stream, the refusal logged', async () => {
      const shoeId = runId('atk-open');
      const r = await send(deviceA, 'POST', `/tables/${TIGER}/shoes`, { shoeId, dealerId: 'dealer-1' });
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 403, code: 'AUTH.TABLE_NOT_ALLOWED' });
      expect(r.body.error.details).toEqual({ tableId: TIGER, allowedTables: [CLASSIC] });
      expect(await version(shoeId)).toBe(0);
      expect(await rejectionOf(r.correlationId)).toEqual([{ code: 'AUTH.TABLE_NOT_ALLOWED', http_status: 403, actor_id: 'device-a', actor_role: 'table-device', table_id: TIGER, route: `POST /tables/${TIGER}/shoes` }]);
      // the same device on its own table is served
      expect((await send(deviceA, 'POST', `/tables/${CLASSIC}/shoes`, { shoeId: runId('atk-own'), dealerId: 'dealer-1' })).status).toBe(201);
    });

    it("dealing and betting in table B's shoe: every fact and bet refused and logged, the stream unchanged; an unrestricted platform still bets", async () => {
      const shoeId = runId('atk-deal');
      const roundId = `${shoeId}-r1`;
      const ok = async (bearer: string, path: string, body: unknown = {}) => {
        const r = await send(bearer, 'POST', path, body);
        expect({ path, status: r.status, error: r.body?.error }).toEqual({ path, status: 201, error: undefined });
      };
      const refused = async (bearer: string, path: string, body: unknown, actor: string) => {
        const before = await version(shoeId);
        const r = await send(bearer, 'POST', path, body);
        expect({ path, status: r.status, code: r.body?.error?.code }).toEqual({ path, status: 403, code: 'AUTH.TABLE_NOT_ALLOWED' });
        expect(await version(shoeId)).toBe(before);
        expect(await rejectionOf(r.correlationId)).toMatchObject([{ code: 'AUTH.TABLE_NOT_ALLOWED', http_status: 403, actor_id: actor, table_id: TIGER }]);
      };
      await ok(deviceB, `/tables/${TIGER}/shoes`, { shoeId, dealerId: 'dealer-1' });
      await refused(deviceA, `/shoes/${shoeId}/commencement`, { card: '2C' }, 'device-a');
      await ok(deviceB, `/shoes/${shoeId}/commencement`, { card: '2C' });
      for (const card of ['3C', '4C']) await ok(deviceB, `/shoes/${shoeId}/burns`, { card });
      await refused(deviceA, `/shoes/${shoeId}/rounds`, { roundId }, 'device-a');
      await ok(deviceB, `/shoes/${shoeId}/rounds`, { roundId });
      const bet = (betId: string) => ({ bet: { betId: `${shoeId}-${betId}`, accountId: 'acc-1', betCode: 'BANKER', stake: '1000', currency: 'EUR' } });
      await refused(token('betting-platform', 'platform-a', [CLASSIC]), `/shoes/${shoeId}/rounds/${roundId}/bets`, bet('b1'), 'platform-a');
      await ok(token('betting-platform', 'platform-any'), `/shoes/${shoeId}/rounds/${roundId}/bets`, bet('b2'));
      await ok(deviceB, `/shoes/${shoeId}/rounds/${roundId}/close-betting`);
      await refused(deviceA, `/shoes/${shoeId}/rounds/${roundId}/cards`, { position: 'P1', card: '9S' }, 'device-a');
      await refused(deviceA, `/shoes/${shoeId}/close`, {}, 'device-a');
      await ok(deviceB, `/shoes/${shoeId}/rounds/${roundId}/cards`, { position: 'P1', card: '9S' });
      // what the stream holds: table B's device and the unrestricted platform only
      const events = await h.store.readStream(`shoe-${shoeId}`);
      expect(new Set(events.map((e) => e.actor.id))).toEqual(new Set(['device-b', 'platform-any']));
    });
  });

  describe("one caller reusing another caller's Idempotency-Key", () => {
    const deviceY = token('table-device', 'device-y', [CLASSIC]);
    const deviceX = token('table-device', 'device-x', [CLASSIC]);
    const open = (bearer: string, shoeId: string, key: string) => send(bearer, 'POST', `/tables/${CLASSIC}/shoes`, { shoeId, dealerId: 'dealer-1' }, { 'idempotency-key': key });

    it('X after Y with the same key: X is executed on its own and gets its own answer; each retry gets its own first answer', async () => {
      const key = `open-shoe-${randomUUID().slice(0, 8)}`;
      const [s1, s2] = [runId('idem-y'), runId('idem-x')];
      const y = await open(deviceY, s1, key);
      const x = await open(deviceX, s2, key);
      expect({ y: y.status, x: x.status, xError: x.body?.error }).toEqual({ y: 201, x: 201, xError: undefined });
      expect(x.body.shoeId).toBe(s2);
      expect(x.body.events[0]).toMatchObject({ type: 'ShoeOpened', data: { shoeId: s2 } });
      expect(x.body.events[0].eventId).not.toBe(y.body.events[0].eventId);
      expect([await version(s1), await version(s2)]).toEqual([1, 1]);
      // retries: each caller gets its own first answer, nothing is appended again
      const yAgain = await open(deviceY, s1, key);
      const xAgain = await open(deviceX, s2, key);
      expect([yAgain.status, xAgain.status]).toEqual([201, 201]);
      expect(yAgain.body).toEqual(y.body);
      expect(xAgain.body).toEqual(x.body);
      expect([await version(s1), await version(s2)]).toEqual([1, 1]);
      // and a caller reusing its own key for another request is still refused
      const reused = await open(deviceX, runId('idem-x2'), key);
      expect({ status: reused.status, code: reused.body?.error?.code }).toEqual({ status: 409, code: 'IDEMPOTENCY.KEY_REUSED' });
    });

    it("X squats the key Y is going to use: Y's request is still executed, and answered Y's answer", async () => {
      const key = `guessable-${randomUUID().slice(0, 8)}`;
      const squat = await open(deviceX, runId('squat-x'), key);
      expect(squat.status).toBe(201);
      const shoeY = runId('squat-y');
      const y = await open(deviceY, shoeY, key);
      expect({ status: y.status, error: y.body?.error }).toEqual({ status: 201, error: undefined });
      expect(y.body.shoeId).toBe(shoeY);
      expect(await version(shoeY)).toBe(1);
      const rows = await h.ds.query(`SELECT caller, stream_id FROM idempotency_keys WHERE key = $1 ORDER BY caller`, [key]);
      expect(rows).toEqual([
        { caller: 'table-device:device-x', stream_id: `shoe-${squat.body.shoeId}` },
        { caller: 'table-device:device-y', stream_id: `shoe-${shoeY}` },
      ]);
    });
  });

  describe('an occurredAt a day in the past or a day in the future', () => {
    const device = token('table-device', 'device-t', [CLASSIC]);
    const expectOutOfRange = (r: Answer, reason: string) => {
      expect({ status: r.status, code: r.body?.error?.code, reason: r.body?.error?.details?.reason }).toEqual({ status: 422, code: 'TIME.OCCURRED_AT_OUT_OF_RANGE', reason });
    };

    it('opening a shoe: refused, no stream', async () => {
      const shoeId = runId('time-open');
      const open = (occurredAt: string) => send(device, 'POST', `/tables/${CLASSIC}/shoes`, { shoeId, dealerId: 'dealer-1', occurredAt });
      expectOutOfRange(await open(new Date(Date.now() - DAY_MS - 60_000).toISOString()), 'TOO_OLD');
      expectOutOfRange(await open(new Date(Date.now() + DAY_MS).toISOString()), 'IN_THE_FUTURE');
      expect(await version(shoeId)).toBe(0);
      expect((await open(new Date().toISOString())).status).toBe(201);
    });

    it('a fact in an open shoe: refused before its opening and in the future, the stream unchanged', async () => {
      const shoeId = runId('time-fact');
      expect((await send(device, 'POST', `/tables/${CLASSIC}/shoes`, { shoeId, dealerId: 'dealer-1' })).status).toBe(201);
      const commence = (occurredAt: string) => send(device, 'POST', `/shoes/${shoeId}/commencement`, { card: '2C', occurredAt });
      expectOutOfRange(await commence(new Date(Date.now() - DAY_MS).toISOString()), 'BEFORE_SHOE_OPENED');
      expectOutOfRange(await commence(new Date(Date.now() + DAY_MS).toISOString()), 'IN_THE_FUTURE');
      expect(await version(shoeId)).toBe(1);
      const accepted = await commence(new Date().toISOString());
      expect(accepted.status).toBe(201);
      expect(await version(shoeId)).toBe(2);
    });
  });

  describe('a raw read of a shoe stream', () => {
    it('is recorded in the access log (GET /audit/access-log), with who read which shoe', async () => {
      const reader = `reader-${randomUUID().slice(0, 8)}`;
      const device = token('table-device', reader, [CLASSIC]);
      const shoeId = runId('read');
      expect((await send(device, 'POST', `/tables/${CLASSIC}/shoes`, { shoeId, dealerId: 'dealer-1' })).status).toBe(201);
      const read = await send(device, 'GET', `/shoes/${shoeId}/events`);
      expect(read.status).toBe(200);
      const chain = await send(device, 'GET', `/shoes/${shoeId}/chain`);
      expect(chain.status).toBe(200);
      const log = await send(token('auditor', 'auditor-1'), 'GET', `/audit/access-log?actorId=${reader}`);
      expect(log.status).toBe(200);
      expect(log.body.items).toEqual([
        expect.objectContaining({ actorId: reader, actorRole: 'table-device', route: 'GET /shoes/:shoeId/events', params: expect.objectContaining({ shoeId }), resultCount: 1, correlationId: read.correlationId }),
        expect.objectContaining({ actorId: reader, actorRole: 'table-device', route: 'GET /shoes/:shoeId/chain', params: { shoeId }, correlationId: chain.correlationId }),
      ]);
    });
  });
});
