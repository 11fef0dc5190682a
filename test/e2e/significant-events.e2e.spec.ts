/**
 * Significant events raised in real time and acknowledged by a second person (docs/significant-events.md,
 * "Raised as facts", "Acknowledged by a second person"), through HTTP against the real API, PostgreSQL, Kafka, relay and projector:
 * a device with a skewed clock, a large win, a result correction, a round voided and an early close
 * each raise their significant event, on the ledger topic and on the significant-events topic, listed
 * by `GET /significant-events`; whoever had a hand in the cause cannot acknowledge it; a second pit
 * manager can, with a reason, once. The latencies from each cause's `recordedAt` to its raise on the
 * topic and on the route are printed, not asserted (the machine is shared).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { pgSession, verifyLedger } from '@ledger/anchors';
import { significantEventsTopicOf } from '@ledger/infra';
import type { KafkaConsumer } from '@ledger/kafka';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';
import { ConfigurationAttestor } from '../../apps/ledger/src/clock/configuration-attestor';
import { dealPlayerWin, waitApplied } from '../support/shoe-steps';

jest.setTimeout(240_000);

const TABLE = 'T-CLASSIC-01';
type Rec = { value: any; arrivedAt: number; kafkaTime: number; headers: Record<string, string> };

describe('significant events: raised as facts, acknowledged by a second person', () => {
  let h: LedgerHarness;
  let consumer: KafkaConsumer;
  const onTopic: Rec[] = [];
  const shoeId = runId('sig');
  const r1 = `${shoeId}-R1`;
  const r2 = `${shoeId}-R2`;
  const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
  const call = (method: string, path: string, role: 'auditor' | 'pit-manager', sub: string, body?: unknown) =>
    fetch(`${h.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${h.client.token(role, sub)}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  /** The raise of `code` on the topic (waits for it), with its arrival. */
  const raisedOnTopic = async (code: string, where: (d: any) => boolean = () => true): Promise<Rec> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = onTopic.find((x) => x.value.type === 'SignificantEventRaised' && x.value.data.code === code && where(x.value.data));
      if (r) return r;
      if (Date.now() > deadline) throw new Error(`${code} not on the significant-events topic within 60 s`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  /** The raise of `code` on the route (polls it), and when it was first listed. */
  const raisedOnRoute = async (code: string): Promise<{ item: any; listedAt: number }> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      // an early close is ledger-wide (no table): its tables are in its details
      const table = code === 'GAMING_DAY.CLOSED_EARLY' ? '' : `&tableId=${TABLE}`;
      const page = await h.client.get('auditor', 'aud-1', `/significant-events?code=${code}${table}&limit=50`);
      const item = page.items.find((i: any) => i.shoeId === shoeId || (code === 'GAMING_DAY.CLOSED_EARLY' && i.details.requestedBy === 'pm-close-1'));
      if (item) return { item, listedAt: Date.now() };
      if (Date.now() > deadline) throw new Error(`${code} not listed by GET /significant-events within 60 s`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  const latencies: Record<string, { topicMs: number; routeMs: number }> = {};
  /** Waits for `code` on both and records its latencies from the cause's recordedAt. */
  const seen = async (code: string): Promise<{ id: string; item: any }> => {
    const rec = await raisedOnTopic(code, (d) => d.shoeId === shoeId || code === 'GAMING_DAY.CLOSED_EARLY');
    const { item, listedAt } = await raisedOnRoute(code);
    const [cause] = await h.store.eventsByIds([rec.value.data.cause.eventId]);
    const t0 = Date.parse(cause.recordedAt);
    latencies[code] = { topicMs: rec.kafkaTime - t0, routeMs: listedAt - t0 };
    expect(item.significantEventId).toBe(rec.value.data.significantEventId);
    return { id: item.significantEventId, item };
  };

  beforeAll(async () => {
    // a device's skew is raised when its window ends: a short window keeps the spec quick
    h = await startLedger({
      env: { SIGNIFICANT_MONITOR: 'true', SIGNIFICANT_MONITOR_GROUP: `sig-monitor-${randomUUID()}`, SIGNIFICANT_WIN_AMOUNT_MINOR: '2000', SIGNIFICANT_FLOOD_WINDOW_SECONDS: '1', CONFIGURATION_ATTESTATION: 'true' },
    });
    // the settings in force are attested before any cause (verify detects the raises again with them)
    expect(await h.app.get(ConfigurationAttestor).whenStarted()).not.toBeNull();
    await h.startRelay();
    await h.startProjector();
    consumer = h.kafka.consumer({ groupId: `sig-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: significantEventsTopicOf(h.topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
        onTopic.push({ value: JSON.parse(message.value!.toString()), arrivedAt: Date.now(), kafkaTime: Number(message.timestamp), headers });
      },
    });
  });
  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`significant events, ms from the cause's recordedAt to the raise on the topic (record time) / listed by the route:\n${JSON.stringify(latencies, null, 1)}`);
    await consumer?.disconnect();
    await h?.close();
  });

  it('a skewed device clock, a large win, a correction, a void and an early close each raise their significant event on the topic and the route', async () => {
    // the device's clock is 2 minutes behind the ledger's: its shoe opening is recorded with it;
    // 2500 on PLAYER wins 2500: at SIGNIFICANT_WIN_AMOUNT_MINOR=2000, a large win
    await dealPlayerWin(h.client, { tableId: TABLE, shoeId, roundId: r1, dealerId: 'dealer-7', stake: '2500', openedAt: new Date(Date.now() - 120_000).toISOString() });

    const skew = await seen('DEVICE.CLOCK_SKEW');
    expect(skew.item).toMatchObject({ severity: 'medium', tableId: TABLE, dealerId: 'dealer-7', actorId: 'device-1', causeEventType: 'ShoeOpened', requiresAck: false });
    expect(Number(skew.item.details.skewMs)).toBeGreaterThan(5000);
    const win = await seen('WIN.LARGE');
    expect(win.item).toMatchObject({ severity: 'high', roundId: r1, dealerId: 'dealer-7', causeEventType: 'BetSettled', requiresAck: true, acknowledgedAt: null });
    expect(win.item.details).toMatchObject({ stake: '2500', winnings: '2500', currency: 'EUR', by: 'amount' });

    const correction = await h.client.post('pit-manager', 'pm-req', `/shoes/${shoeId}/rounds/${r1}/result-corrections`, { cards: ['2H', '9S', '3C', 'KD'], reason: 'cards misread by the scanner' });
    await h.client.post('pit-manager', 'pm-appr', `/decisions/${correction.decisionId}/approve`, { reason: 'video reviewed' });
    const corrected = await seen('RESULT.CORRECTED');
    expect(corrected.item).toMatchObject({ severity: 'high', roundId: r1, requiresAck: true });
    expect(corrected.item.details).toMatchObject({ actingManagerId: 'pm-req', approverId: 'pm-appr', from: 'PLAYER', to: 'BANKER' });

    await dev(`/shoes/${shoeId}/rounds`, { roundId: r2 });
    await h.client.post('betting-platform', 'platform-1', `/shoes/${shoeId}/rounds/${r2}/bets`, { bet: { betId: `${r2}-B1`, accountId: 'acct-2', betCode: 'BANKER', stake: '500', currency: 'EUR' } });
    const voiding = await h.client.post('pit-manager', 'pm-req', `/shoes/${shoeId}/rounds/${r2}/void`, { reason: 'card exposed before betting closed' });
    await h.client.post('pit-manager', 'pm-appr', `/decisions/${voiding.decisionId}/approve`, { reason: 'video reviewed' });
    const voided = await seen('ROUND.VOIDED');
    expect(voided.item).toMatchObject({ severity: 'medium', roundId: r2, requiresAck: false });

    const recall = await h.client.get('auditor', 'aud-1', `/shoes/${shoeId}/rounds/${r1}/recall`);
    const day = recall.round.gamingDay;
    const asked = await (await call('POST', `/gaming-days/${day}/close`, 'pit-manager', 'pm-close-1', { tableIds: [TABLE], early: true, reason: 'table closes for maintenance' })).json();
    const approved = await call('POST', `/gaming-days/${day}/close-requests/${(asked as any).requestId}/approve`, 'pit-manager', 'pm-close-2');
    expect(approved.status).toBe(201);
    const early = await seen('GAMING_DAY.CLOSED_EARLY');
    expect(early.item).toMatchObject({ severity: 'medium', tableId: null, causeEventType: 'GamingDayClosed' });
    expect(early.item.details).toMatchObject({ gamingDay: day, tableIds: TABLE, requestedBy: 'pm-close-1', approvedBy: 'pm-close-2' });

    // every raise on the significant-events topic is the ledger topic's record, byte for byte: CloudEvents headers, signature
    const rec = await raisedOnTopic('WIN.LARGE');
    expect(rec.headers).toMatchObject({ ce_type: 'baccarat.ledger.SignificantEventRaised.v1', ce_id: rec.value.eventId, ce_source: `/tables/${TABLE}` });
    expect(rec.headers['ledger-sig']).toBeTruthy();
    const stored = await h.store.readStream(`significant-${win.id}`);
    expect(stored.map((e) => [e.type, e.streamVersion, e.actor.role])).toEqual([['SignificantEventRaised', 1, 'system']]);
    expect(stored[0].hash).toBe(rec.value.hash);
  });

  it('a redelivered cause raises once: the monitor appends nothing for a cause it already raised', async () => {
    const page = await h.client.get('auditor', 'aud-1', `/significant-events?tableId=${TABLE}&limit=100`);
    const mine = page.items.filter((i: any) => i.shoeId === shoeId);
    const byCause = new Set(mine.map((i: any) => `${i.causeEventId}|${i.code}`));
    expect(byCause.size).toBe(mine.length);
    const { SignificantEventMonitor } = await import('../../apps/ledger/src/significant-events/significant-monitor');
    const monitor = h.app.get(SignificantEventMonitor);
    const causes = await h.store.eventsByIds(mine.map((i: any) => i.causeEventId));
    const again = await monitor.handle(causes.map((e, i) => ({ offset: String(i), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: '0' })));
    expect(again).toBe(0);
    // a record that is no stored event raises nothing, whatever it says
    const forged = { ...causes[0], eventId: randomUUID() };
    expect(await monitor.handle([{ offset: '0', key: null, value: Buffer.from(JSON.stringify(forged)), timestamp: '0' }])).toBe(0);
  });

  it('whoever had a hand in the cause cannot acknowledge it; a second pit manager can, with a reason, once', async () => {
    const { item } = await raisedOnRoute('RESULT.CORRECTED');
    const ack = (sub: string, role: 'auditor' | 'pit-manager' = 'pit-manager', body: unknown = { reason: 'reviewed with surveillance' }) =>
      call('POST', `/significant-events/${item.significantEventId}/acknowledgements`, role, sub, body);
    for (const own of ['pm-req', 'pm-appr']) {
      const r = await ack(own);
      expect([own, r.status, ((await r.json()) as any).error.code]).toEqual([own, 422, 'MANAGEMENT.SAME_APPROVER']);
    }
    const noReason = await ack('pm-3', 'pit-manager', {});
    expect(noReason.status).toBe(400);
    // a reason no one can read (zero-width characters, white space) is refused as a decision's would be, and records nothing
    for (const unreadable of ['\u200b\u200b\u200b\u200b', ' o\u2060k\ufeff ']) {
      const r = await ack('pm-3', 'pit-manager', { reason: unreadable });
      expect([r.status, ((await r.json()) as any).error.code]).toEqual([422, 'MANAGEMENT.REASON_REQUIRED']);
    }
    expect((await h.store.readStream(`significant-${item.significantEventId}`)).map((e) => e.type)).toEqual(['SignificantEventRaised']);
    const unknown = await call('POST', `/significant-events/${randomUUID()}/acknowledgements`, 'pit-manager', 'pm-3', { reason: 'reviewed' });
    expect([unknown.status, ((await unknown.json()) as any).error.code]).toEqual([404, 'SIGNIFICANT.NOT_FOUND']);
    const device = await fetch(`${h.baseUrl}/significant-events/${item.significantEventId}/acknowledgements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.client.token('table-device', 'device-1')}`, 'content-type': 'application/json' },
      body: '{"reason":"mine"}',
    });
    expect(device.status).toBe(403);

    // an id in upper case names the same significant event (UUIDs are case-insensitive on input)
    const upper = await call('GET', `/significant-events/${item.significantEventId.toUpperCase()}`, 'auditor', 'aud-1');
    expect([upper.status, ((await upper.json()) as any).significantEventId]).toEqual([200, item.significantEventId]);
    const ok = await ack('pm-3');
    expect(ok.status).toBe(201);
    const answer = (await ok.json()) as any;
    expect(answer).toMatchObject({ significantEventId: item.significantEventId, code: 'RESULT.CORRECTED', reason: 'reviewed with surveillance', acknowledgedBy: 'pm-3', role: 'pit-manager' });
    const twice = await ack('aud-1', 'auditor');
    expect([twice.status, ((await twice.json()) as any).error.code]).toEqual([409, 'SIGNIFICANT.ALREADY_ACKNOWLEDGED']);

    const stream = await h.store.readStream(`significant-${item.significantEventId}`);
    expect(stream.map((e) => [e.type, e.streamVersion, e.actor.id])).toEqual([
      ['SignificantEventRaised', 1, 'significant-event-monitor'],
      ['SignificantEventAcknowledged', 2, 'pm-3'],
    ]);
    await waitApplied(h.client, stream[1].eventId);
    const acked = await h.client.get('auditor', 'aud-1', `/significant-events?acknowledged=true&code=RESULT.CORRECTED&tableId=${TABLE}`);
    expect(acked.items.map((i: any) => [i.significantEventId, i.acknowledgedBy, i.ackReason])).toContainEqual([item.significantEventId, 'pm-3', 'reviewed with surveillance']);
    const open = await h.client.get('auditor', 'aud-1', `/significant-events?acknowledged=false&code=RESULT.CORRECTED&tableId=${TABLE}`);
    expect(open.items.map((i: any) => i.significantEventId)).not.toContain(item.significantEventId);
    // the acknowledgement is on the significant-events topic too
    const deadline = Date.now() + 60_000;
    while (!onTopic.some((r) => r.value.type === 'SignificantEventAcknowledged' && r.value.data.significantEventId === item.significantEventId)) {
      if (Date.now() > deadline) throw new Error('acknowledgement not on the topic within 60 s');
      await new Promise((res) => setTimeout(res, 50));
    }
    // the escalation gauges count the large win, still open
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/ledger_significant_events_unacknowledged\{severity="high"\} [1-9]/);
    expect(metrics).toMatch(/ledger_significant_events_overdue\{severity="high"\} 0/);
  });

  it('npm run -s verify covers them: the genuine ones pass, an acknowledgement forged around the API by the raiser is reported', async () => {
    const significantDivergences = async () => {
      const owner = new Client({ connectionString: TEST_DATABASE_URL });
      await owner.connect();
      try {
        const report = await verifyLedger({ session: pgSession(owner), publicKeys: new Map(), anchorFile: null, kafka: null, anchorsTopic: null, eventsTopic: null, maxDivergences: 100_000 });
        return report.divergences.filter((d) => d.source === 'significant-events');
      } finally {
        await owner.end();
      }
    };
    const page = await h.client.get('auditor', 'aud-1', `/significant-events?tableId=${TABLE}&limit=100`);
    const mine = page.items.filter((i: any) => i.shoeId === shoeId);
    const streams = new Set(mine.map((i: any) => `significant-${i.significantEventId}`));
    expect(streams.size).toBeGreaterThanOrEqual(4);
    expect((await significantDivergences()).filter((d) => streams.has(d.streamId!))).toEqual([]);

    // an insider appends, with the store's own function, an acknowledgement of the void by the manager who requested it
    const voided = mine.find((i: any) => i.code === 'ROUND.VOIDED');
    const forged = await h.store.append({
      streamId: `significant-${voided.significantEventId}`,
      tableId: TABLE,
      expectedVersion: 1,
      events: [
        { eventId: randomUUID(), type: 'SignificantEventAcknowledged', data: { significantEventId: voided.significantEventId, code: 'ROUND.VOIDED', reason: 'nothing to see', acknowledgedBy: 'pm-req', role: 'pit-manager' } },
      ],
      metadata: { actor: { id: 'pm-req', role: 'pit-manager' }, correlationId: randomUUID() },
    });
    const found = (await significantDivergences()).filter((d) => streams.has(d.streamId!));
    expect(found.map((d) => [d.kind, d.eventId, d.reason])).toEqual([['SIGNIFICANT_EVENT_NOT_GENUINE', forged.events[0].eventId, 'SignificantEventAcknowledged: acknowledged by pm-req, whose act raised it: a second person must']]);
  });
});
