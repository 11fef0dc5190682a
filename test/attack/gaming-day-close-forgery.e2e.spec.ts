/**
 * Gaming-day closes against an insider holding the API's database login (`ledger_app`), docs/reports.md §2 and
 * docs/guarantees.md §8: a close row forged in a manager's name, a genuine signed close copied to another
 * day, and a (day, table) marked closed without a close. Before closes were events, the forged row was
 * served as genuine, the copy verified, and the marker made the real close answer 409 (so that table's
 * figures were never signed). Now a close is its `GamingDayClosed` event: every read checks it against
 * its signed report, forged and replayed ones are refused (listed apart, never served) and reported by
 * `npm run -s verify` (verifyLedger step 4), and a marker or a forged close cannot keep a day open.
 *
 * Real PostgreSQL and Kafka; the API, relay and projector in-process; the insider's writes go through
 * the API's own login (rows with plain SQL, events through the event store's append function).
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { pgSession, publicKeyId, readPublicKeys, sha256OfText, verifyLedger } from '@ledger/anchors';
import { createDataSource, PgEventStore } from '@ledger/event-store';
import { LEDGER_WIDE_TABLE_ID } from '@ledger/events';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import type { DataSource } from 'typeorm';
import { CloseRecords } from '../../apps/ledger/src/kernel/closes/close-records';
import { GamingDayCloseService } from '../../apps/ledger/src/gaming-day-close/gaming-day-close.service';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { waitApplied } from '../support/shoe-steps';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;
const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
const PUBLIC_KEY_FILE = '.stack/anchors/anchor-public.pem';

describe('gaming-day closes: forged, replayed and suppressed closes with the API login', () => {
  let h: LedgerHarness;
  let insider: Client; // the API's own login, as an insider holding it would use it
  let insiderDs: DataSource;
  let insiderStore: PgEventStore; // the event store's append function under the API's login
  let genuine: any; // a genuine close of the current day (early, four eyes)
  let projector: Awaited<ReturnType<LedgerHarness['startProjector']>>;
  let today: string;
  const forgedDay = '2020-01-02';
  const replayDay = '2020-01-03';
  const suppressedDay = '2020-01-04';

  const call = async (method: string, path: string, sub = 'aud-1', body?: unknown) => {
    const role = sub.startsWith('pm-') ? 'pit-manager' : 'auditor';
    const res = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${h.client.token(role, sub)}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const closeDivergences = async () => {
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    try {
      const report = await verifyLedger({ session: pgSession(owner), publicKeys: readPublicKeys([PUBLIC_KEY_FILE]), anchorFile: null, kafka: null, anchorsTopic: null, eventsTopic: null, maxDivergences: 100_000 });
      return report.divergences.filter((d) => d.source === 'closes');
    } finally {
      await owner.end();
    }
  };
  /** Appends a GamingDayClosed to this ledger's stream of `day`, as the insider (the API's login, the append function). */
  const forgeCloseEvent = async (day: string, data: Record<string, unknown>) => {
    const streamId = h.app.get(CloseRecords).streamOf(day);
    const eventId = randomUUID();
    await insiderStore.append({
      streamId,
      tableId: LEDGER_WIDE_TABLE_ID,
      expectedVersion: await insiderStore.streamVersion(streamId),
      events: [{ eventId, type: 'GamingDayClosed', data: { gamingDay: day, tableIds: [table.tableId], trigger: 'MANAGER', ...data } as never }],
      metadata: { actor: { id: 'pm-boss', role: 'pit-manager' }, correlationId: eventId },
    });
    return eventId;
  };
  const insertRow = (r: { day: string; report: string; sha: string; signature: string; keyId: string; eventId: string | null; position?: string }) =>
    insider.query(
      `INSERT INTO gaming_day_closes (scope, gaming_day, table_ids, through_position, report, report_sha256, signature, key_id, trigger, closed_by, closed_by_role${r.eventId ? ', event_id' : ''})
       VALUES ($1, $2::date, $3::text[], $4::bigint, $5, $6, $7, $8, 'MANAGER', 'pm-boss', 'pit-manager'${r.eventId ? ', $9' : ''})`,
      [h.topic, r.day, [table.tableId], r.position ?? '1', r.report, r.sha, r.signature, r.keyId, ...(r.eventId ? [r.eventId] : [])],
    );

  beforeAll(async () => {
    h = await startLedger({ env: { GAMING_DAY_CLOSE_SWEEP_MS: '0' } });
    await h.startRelay();
    projector = await h.startProjector();
    insider = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app });
    await insider.connect();
    insiderDs = createDataSource(TEST_SERVICE_DATABASE_URLS.app);
    await insiderDs.initialize();
    insiderStore = new PgEventStore(insiderDs, { topic: h.topic });
    const shoeId = runId('forge');
    await runShoeScript(generateShoeScript(table, 'close-forgery', { shoeId, dealerId: 'dealer-4', accounts: 3, betChance: 0.9, maxRounds: 4 }), h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    const day = (today = (await call('GET', `/shoes/${shoeId}/rounds/${(stored.find((e) => e.type === 'RoundOpened')!.data as { roundId: string }).roundId}/recall`)).body.round.gamingDay);
    const request = await call('POST', `/gaming-days/${day}/close`, 'pm-1', { tableIds: [table.tableId], early: true, reason: 'forgery spec' });
    const approved = await call('POST', `/gaming-days/${day}/close-requests/${request.body.requestId}/approve`, 'pm-2');
    expect(approved.status).toBe(201);
    genuine = approved.body;
  });
  afterAll(async () => {
    await insider?.end();
    await insiderDs?.destroy();
    await h?.close();
  });

  it('a close row forged with the API login (signature AAAA, a manager’s name) is no close: never served, reported by verify', async () => {
    const report = JSON.stringify({ gamingDay: forgedDay, tableIds: [table.tableId], throughPosition: '1', rows: [], totals: [] });
    await insertRow({ day: forgedDay, report, sha: sha256OfText(report), signature: 'AAAA', keyId: genuine.keyId, eventId: null });
    const got = await call('GET', `/gaming-days/${forgedDay}/close`);
    expect([got.status, got.body.error?.code]).toEqual([404, 'GAMING_DAY.NOT_CLOSED']);
    const list = await call('GET', '/gaming-days/closes');
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: any) => c.gamingDay)).not.toContain(forgedDay);
    expect((await closeDivergences()).filter((d) => d.kind === 'CLOSE_WITHOUT_EVENT' && d.reason.includes(forgedDay))).toHaveLength(1);
  });

  it('a genuine signed close copied to another day — as a row, and as a close event naming it — is refused as a replay', async () => {
    // the row alone: no event names it
    await insertRow({ day: replayDay, report: genuine.bytes, sha: genuine.sha256, signature: genuine.signature, keyId: genuine.keyId, eventId: null, position: genuine.throughPosition });
    expect((await call('GET', `/gaming-days/${replayDay}/close`)).body.error?.code).toBe('GAMING_DAY.NOT_CLOSED');
    // an event for the other day carrying the genuine hash and signature, and the genuine bytes beside it
    const forged = await forgeCloseEvent(replayDay, { throughPosition: genuine.throughPosition, reportSha256: genuine.sha256, signature: genuine.signature, keyId: genuine.keyId });
    await insertRow({ day: replayDay, report: genuine.bytes, sha: genuine.sha256, signature: genuine.signature, keyId: genuine.keyId, eventId: forged, position: genuine.throughPosition });
    const got = await call('GET', `/gaming-days/${replayDay}/close`);
    expect([got.status, got.body.error?.code, got.body.error?.details?.problem]).toEqual([500, 'GAMING_DAY.CLOSE_NOT_GENUINE', 'REPLAYED']);
    const list = await call('GET', '/gaming-days/closes');
    expect(list.body.items.map((c: any) => c.eventId)).toContain(genuine.eventId);
    expect(list.body.items.map((c: any) => c.eventId)).not.toContain(forged);
    expect(list.body.refused).toEqual(expect.arrayContaining([expect.objectContaining({ eventId: forged, gamingDay: replayDay, problem: 'REPLAYED' })]));
    const divergences = await closeDivergences();
    expect(divergences.filter((d) => d.kind === 'CLOSE_NOT_GENUINE' && d.eventId === forged).map((d) => d.reason.split(':')[0])).toEqual(['REPLAYED']);
    // the genuine close itself verifies, and is served
    expect(divergences.filter((d) => d.eventId === genuine.eventId)).toEqual([]);
    const own = await call('GET', `/gaming-days/${genuine.gamingDay}/close?tableId=${table.tableId}`);
    expect(own.body.closes.map((c: any) => c.eventId)).toContain(genuine.eventId);
    expect(publicKeyId(readPublicKeys([PUBLIC_KEY_FILE]).get(genuine.keyId)!)).toBe(genuine.keyId);
  });

  it('marking a (day, table) closed without its close cannot keep the day open: the real close is made, signed and served', async () => {
    // the old marker table, where it still exists (it made the real close answer 409)
    const [{ present }] = (await insider.query(`SELECT to_regclass('gaming_day_close_tables') IS NOT NULL AS present`)).rows;
    if (present) await insider.query(`INSERT INTO gaming_day_close_tables (scope, gaming_day, table_id, close_id) SELECT $1, $2::date, $3, max(id) FROM gaming_day_closes`, [h.topic, suppressedDay, table.tableId]);
    // a forged row and a forged close event (a signature that verifies over nothing)
    const fake = JSON.stringify({ gamingDay: suppressedDay, tableIds: [table.tableId], throughPosition: '1' });
    await insertRow({ day: suppressedDay, report: fake, sha: sha256OfText(fake), signature: 'AAAA', keyId: genuine.keyId, eventId: null });
    const forged = await forgeCloseEvent(suppressedDay, { throughPosition: '1', reportSha256: sha256OfText(fake), signature: 'AAAA', keyId: genuine.keyId });
    await insertRow({ day: suppressedDay, report: fake, sha: sha256OfText(fake), signature: 'AAAA', keyId: genuine.keyId, eventId: forged });

    const closed = await call('POST', `/gaming-days/${suppressedDay}/close`, 'pm-1', { tableIds: [table.tableId] });
    expect([closed.status, closed.body.error?.code]).toEqual([201, undefined]);
    expect(closed.body).toMatchObject({ gamingDay: suppressedDay, tableIds: [table.tableId], closedBy: 'pm-1' });
    const got = await call('GET', `/gaming-days/${suppressedDay}/close`);
    expect(got.status).toBe(200);
    expect(got.body.closes.map((c: any) => c.eventId)).toEqual([closed.body.eventId]);
    expect(got.body.refused.map((r: any) => [r.eventId, r.problem])).toEqual([[forged, 'BAD_SIGNATURE']]);
    const divergences = await closeDivergences();
    expect(divergences.filter((d) => d.eventId === closed.body.eventId)).toEqual([]);
    expect(divergences.filter((d) => d.eventId === forged).map((d) => d.kind)).toEqual(['CLOSE_NOT_GENUINE']);
  });

  it('a genuine close event appended again — an exact copy, or one claiming the sweeper — is refused, and verify reports it', async () => {
    const signed = { gamingDay: genuine.gamingDay, tableIds: genuine.tableIds, throughPosition: genuine.throughPosition, reportSha256: genuine.sha256, signature: genuine.signature, keyId: genuine.keyId };
    // an exact copy states the clock skew its report signs (layout 2), as the genuine event does
    const copy = await forgeCloseEvent(genuine.gamingDay, { ...signed, trigger: 'MANAGER', early: genuine.early, clockSkew: genuine.report.clockSkew });
    const asSweeper = await forgeCloseEvent(genuine.gamingDay, { ...signed, trigger: 'AUTOMATIC', clockSkew: genuine.report.clockSkew });
    for (const eventId of [copy, asSweeper]) await insertRow({ day: genuine.gamingDay, report: genuine.bytes, sha: genuine.sha256, signature: genuine.signature, keyId: genuine.keyId, eventId, position: genuine.throughPosition });
    const got = await call('GET', `/gaming-days/${genuine.gamingDay}/close?tableId=${table.tableId}`);
    expect(got.status).toBe(200);
    expect(got.body.closes.map((c: any) => c.eventId)).toEqual([genuine.eventId]);
    expect(got.body.refused.map((r: any) => [r.eventId, r.problem])).toEqual(
      expect.arrayContaining([
        [copy, 'DUPLICATE'],
        [asSweeper, 'REPLAYED'],
      ]),
    );
    const divergences = await closeDivergences();
    expect(
      divergences
        .filter((d) => d.eventId === copy || d.eventId === asSweeper)
        .map((d) => d.reason.split(':')[0])
        .sort(),
    ).toEqual(['DUPLICATE', 'REPLAYED']);
    expect(divergences.filter((d) => d.eventId === genuine.eventId)).toEqual([]);
  });

  it('an early-close request forged with the API login in another pit manager’s name cannot be approved by its forger', async () => {
    const other = tables.find((t) => t.tableId !== table.tableId)!.tableId;
    const streamId = h.app.get(CloseRecords).streamOf(today);
    const requestId = randomUUID();
    // pm-2 writes a request in pm-1's name (expiring in 2099), to approve it themself
    await insiderStore.append({
      streamId,
      tableId: LEDGER_WIDE_TABLE_ID,
      expectedVersion: await insiderStore.streamVersion(streamId),
      events: [{ eventId: randomUUID(), type: 'GamingDayCloseRequested', data: { requestId, gamingDay: today, tableIds: [other], reason: 'forged request', requestedBy: 'pm-1', expiresAt: '2099-01-01T00:00:00.000Z' } as never }],
      metadata: { actor: { id: 'pm-2', role: 'pit-manager' }, correlationId: requestId },
    });
    const approved = await call('POST', `/gaming-days/${today}/close-requests/${requestId}/approve`, 'pm-2');
    expect([approved.status, approved.body.error?.code]).toEqual([404, 'DECISION.NOT_FOUND']);
    const got = await call('GET', `/gaming-days/${today}/close?tableId=${other}`);
    expect([got.status, got.body.closes]).toEqual([200, []]);
  });

  it('an ended day is not closed short of its end: with the projector behind, the close answers 409 and succeeds once it has caught up', async () => {
    const other = tables.find((t) => t.tableId !== table.tableId)!;
    const service = h.app.get(GamingDayCloseService);
    const tomorrow = new Date(Date.now() + 36 * 3_600_000); // `today` has ended, as the service sees it
    await projector.stop();
    const shoeId = runId('late');
    await runShoeScript(generateShoeScript(other, 'close-late', { shoeId, dealerId: 'dealer-5', accounts: 2, betChance: 0.9, maxRounds: 2 }), h.client);
    const actor = { id: 'pm-1', role: 'pit-manager', trigger: 'MANAGER' as const };
    await expect(service.close(today, [other.tableId], actor, tomorrow)).rejects.toMatchObject({ code: 'ASOF.NOT_PROJECTED' });
    projector = await h.startProjector();
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    const closed = await service.close(today, [other.tableId], actor, tomorrow);
    expect(BigInt(closed.throughPosition)).toBeGreaterThanOrEqual(BigInt(stored[stored.length - 1].globalPosition));
  });
});
