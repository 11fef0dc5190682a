/**
 * The significant events whose cause is not a ledger event (docs/significant-events.md, "Causes",
 * "Floods are bounded"), through the real API, PostgreSQL, Kafka, relay and projector, one API for
 * the file (`SIGNIFICANT_FLOOD_WINDOW_SECONDS=2`, `RATE_LIMIT_STORM_PER_MINUTE=5`):
 * - wrong cards refused (422 `TABLEAU.VIOLATION`) raise `CARD.WRONG`, once per (device, window) with
 *   the count, on the route and on the significant-events topic;
 * - a device whose clock runs two minutes behind sends many facts: per window, its first raised at once and
 *   the rest by one `DEVICE.CLOCK_SKEW` with their count;
 * - a record the projector quarantines raises `RECORD.QUARANTINED`; an incident (a halted partition) `PROJECTION.HALTED`;
 * - a storm of 429s raises one `RATE.LIMIT_STORM` per minute;
 * - `GET /audit/anchors/verify` finding a stored chain broken raises `CHAIN.DIVERGED`, and finding it again raises nothing new;
 * - every raise passes `npm run -s verify`'s step 7 (no SIGNIFICANT_EVENT_NOT_GENUINE); a raise an
 *   insider forges with a cause its code does not admit (a quarantine raising CHAIN.DIVERGED) is reported.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { pgSession, significantEventIdFor, verifyLedger } from '@ledger/anchors';
import { significantEventsTopicOf } from '@ledger/infra';
import type { KafkaConsumer } from '@ledger/kafka';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';
import { ConfigurationAttestor } from '../../apps/ledger/src/clock/configuration-attestor';

jest.setTimeout(180_000);

const TABLE = 'T-CLASSIC-01';

describe('significant events raised by refusals, the projector, the verifier and storms of 429s', () => {
  let h: LedgerHarness;
  let consumer: KafkaConsumer;
  const onTopic: any[] = [];
  const started = new Date();
  /** The raises of `code` since the spec started whose data matches `where`, as stored. */
  const raises = async (code: string, where: (d: any) => boolean = () => true): Promise<any[]> => {
    const rows: { data: any }[] = await h.ds.query(`SELECT data FROM events WHERE type = 'SignificantEventRaised' AND data->>'code' = $1 AND recorded_at >= $2 ORDER BY global_position`, [code, started]);
    return rows.map((r) => r.data).filter(where);
  };
  /** Waits until `raises(code, where)` satisfies `done`. */
  const until = async (code: string, where: (d: any) => boolean, done: (r: any[]) => boolean): Promise<any[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await raises(code, where);
      if (done(r)) return r;
      if (Date.now() > deadline) throw new Error(`${code}: ${JSON.stringify(r)} within 30 s`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const sum = (r: any[]) => r.reduce((n, d) => n + d.cause.window.count, 0);
  /** Each window's raises: its first cause alone (count 1, no rest), and at most one raise of the rest (marked rest). */
  const splitPerWindow = (r: any[]) => {
    for (const start of new Set(r.map((d) => d.cause.window.start))) {
      const of = r.filter((d) => d.cause.window.start === start);
      expect(of.filter((d) => !d.cause.window.rest).map((d) => d.cause.window.count)).toEqual([1]);
      expect(of.filter((d) => d.cause.window.rest).length).toBeLessThanOrEqual(1);
    }
  };

  beforeAll(async () => {
    h = await startLedger({
      env: {
        SIGNIFICANT_MONITOR: 'true',
        SIGNIFICANT_MONITOR_GROUP: `sig-causes-${randomUUID()}`,
        SIGNIFICANT_FLOOD_WINDOW_SECONDS: '2',
        SIGNIFICANT_PROJECTOR_POLL_MS: '200',
        RATE_LIMIT_STORM_PER_MINUTE: '5',
        RATE_LIMIT_AUDITOR: '4',
        CONFIGURATION_ATTESTATION: 'true',
      },
    });
    // the settings in force are attested before any cause (verify detects the raises again with them)
    expect(await h.app.get(ConfigurationAttestor).whenStarted()).not.toBeNull();
    await h.startRelay();
    await h.startProjector();
    consumer = h.kafka.consumer({ groupId: `sig-causes-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: significantEventsTopicOf(h.topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        onTopic.push(JSON.parse(message.value!.toString()));
      },
    });
  });
  afterAll(async () => {
    await consumer?.disconnect();
    await h?.close();
  });

  it('wrong cards refused raise CARD.WRONG once per (device, window) with the count, on the route and the topic', async () => {
    const shoeId = runId('sigw');
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'dev-wrong', path, body);
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoeId}/burns`, { card: null });
    await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}-R1` });
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-R1/close-betting`);
    await dev(`/shoes/${shoeId}/rounds/${shoeId}-R1/cards`, { position: 'P1', card: '9S' });
    const token = h.client.token('table-device', 'dev-wrong');
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${h.baseUrl}/shoes/${shoeId}/rounds/${shoeId}-R1/cards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ position: 'P3', card: '2H' }),
      });
      expect({ status: res.status, code: ((await res.json()) as any).error.code }).toEqual({ status: 422, code: 'TABLEAU.VIOLATION' });
    }
    const mine = (d: any) => d.cause.actorId === 'dev-wrong';
    const wrong = await until('CARD.WRONG', mine, (r) => sum(r) === 6);
    // per window: its first refusal raised at once (count 1), the rest by one raise marked rest; six refusals
    // in at most two windows of 2 s (they may straddle one boundary)
    splitPerWindow(wrong);
    expect(wrong.length).toBeLessThanOrEqual(4);
    expect(wrong[0]).toMatchObject({
      severity: 'medium',
      actor: 'dev-wrong',
      tableId: TABLE,
      cause: { kind: 'refusal', errorCode: 'TABLEAU.VIOLATION', actorRole: 'table-device', window: { seconds: 2, subject: 'table-device:dev-wrong' } },
    });
    expect(wrong[0].details.count).toBe(String(wrong[0].cause.window.count));
    // on the route (the projector's read model) and on the significant-events topic
    const deadline = Date.now() + 30_000;
    let listed: any;
    while (!listed && Date.now() < deadline) {
      const page = await h.client.get('pit-manager', 'pm-read', `/significant-events?code=CARD.WRONG&tableId=${TABLE}&limit=50`);
      listed = page.items.find((i: any) => i.significantEventId === wrong[0].significantEventId);
      if (!listed) await new Promise((res) => setTimeout(res, 100));
    }
    expect(listed).toMatchObject({ causeKind: 'refusal', causeEventId: null, actorId: 'dev-wrong', cause: { errorCode: 'TABLEAU.VIOLATION' } });
    while (!onTopic.some((e) => e.eventId === wrong[0].significantEventId) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(onTopic.find((e) => e.eventId === wrong[0].significantEventId)).toMatchObject({ type: 'SignificantEventRaised', data: { code: 'CARD.WRONG' } });
  });

  it('a device whose clock runs two minutes behind sends many facts: one DEVICE.CLOCK_SKEW per window, with the count', async () => {
    const shoeId = runId('sigs');
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'dev-skew', path, body);
    const behind = (i: number) => new Date(Date.now() - 120_000 + i).toISOString();
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-2', occurredAt: behind(0) });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS', occurredAt: behind(1) });
    await dev(`/shoes/${shoeId}/burns`, { card: null, occurredAt: behind(2) });
    const r1 = `${shoeId}-R1`;
    await dev(`/shoes/${shoeId}/rounds`, { roundId: r1, occurredAt: behind(3) });
    await dev(`/shoes/${shoeId}/rounds/${r1}/close-betting`, { occurredAt: behind(4) });
    for (const [i, [position, card]] of [
      ['P1', '9S'],
      ['B1', '2H'],
      ['P2', 'KD'],
      ['B2', '3C'],
    ].entries())
      await dev(`/shoes/${shoeId}/rounds/${r1}/cards`, { position, card, occurredAt: behind(5 + i) });
    // every fact of the device recorded more than OCCURRED_AT_MAX_SKEW_MS (5 s) after it says it happened
    const facts: { n: string }[] = await h.ds.query(`SELECT count(*)::text AS n FROM events WHERE stream_id = $1 AND actor_id = 'dev-skew' AND recorded_at - occurred_at > interval '5 seconds'`, [`shoe-${shoeId}`]);
    const skews = await until(
      'DEVICE.CLOCK_SKEW',
      (d) => d.shoeId === shoeId,
      (r) => sum(r) === Number(facts[0].n),
    );
    expect(Number(facts[0].n)).toBeGreaterThanOrEqual(8);
    splitPerWindow(skews);
    expect(skews.length).toBeLessThan(Number(facts[0].n));
    const first = skews.filter((d) => !d.cause.window.rest).sort((a, b) => a.cause.window.start.localeCompare(b.cause.window.start))[0];
    expect(first).toMatchObject({ actor: 'dev-skew', cause: { kind: 'event', eventType: 'ShoeOpened', window: { subject: 'table-device:dev-skew', seconds: 2, count: 1 } } });
  });

  it('a record the projector quarantines raises RECORD.QUARANTINED; an incident raises PROJECTION.HALTED', async () => {
    const producer = h.kafka.producer();
    await producer.connect();
    await producer.send(h.topic, [{ key: TABLE, value: Buffer.from(`{"not":"a ledger event ${randomUUID()}"}`) }]);
    await producer.disconnect();
    const quarantined = await until(
      'RECORD.QUARANTINED',
      (d) => d.cause.key.startsWith(`${h.topic}/`),
      (r) => r.length >= 1,
    );
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ severity: 'high', actor: 'projector', cause: { kind: 'projector', record: 'quarantine' } });
    // an incident of another consumer group (the spec's projector keeps running): the API reads every incident
    const [{ id }] = await h.ds.query(
      `INSERT INTO "${h.readSchema}".projection_incidents (consumer_group, topic, partition, code, message) VALUES ('sig-causes-halted', $1, 0, 'PROJECTION.GAP', 'a gap') RETURNING id::text AS id`,
      [h.topic],
    );
    const halted = await until(
      'PROJECTION.HALTED',
      (d) => d.cause.key.startsWith(`${h.topic}/0@`) && d.cause.key.endsWith(`#${id}`) && d.cause.consumerGroup === 'sig-causes-halted',
      (r) => r.length >= 1,
    );
    expect(halted[0]).toMatchObject({ severity: 'high', cause: { kind: 'projector', record: 'incident', reason: 'PROJECTION.GAP' }, details: { code: 'PROJECTION.GAP' } });
  });

  it('a storm of 429s raises one RATE.LIMIT_STORM for its minute', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fetch(`${h.baseUrl}/significant-events?limit=1`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-storm')}` } })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(8);
    const storms = await until(
      'RATE.LIMIT_STORM',
      () => true,
      (r) => r.length >= 1,
    );
    // 8 or more 429s at a threshold of 5: one raise per minute they fell in (two only across a minute's boundary)
    expect(storms.length).toBeLessThanOrEqual(2);
    expect(new Set(storms.map((d) => d.cause.window.start)).size).toBe(storms.length);
    expect(storms[0]).toMatchObject({ actor: 'rate-limits', cause: { kind: 'rate-limit-window', threshold: 5, window: { seconds: 60, subject: '*', count: 5 } } });
  });

  it('GET /audit/anchors/verify finding a stored chain broken raises CHAIN.DIVERGED; finding it again raises nothing new', async () => {
    const shoeId = runId('sigv');
    await h.client.post('table-device', 'dev-v', `/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-3' });
    const [e] = await h.store.readStream(`shoe-${shoeId}`);
    const c = h.ds;
    await c.query('ALTER TABLE events DISABLE TRIGGER USER');
    try {
      await c.query(`UPDATE events SET data = jsonb_set(data, '{dealerId}', '"forged"') WHERE event_id = $1`, [e.eventId]);
    } finally {
      await c.query('ALTER TABLE events ENABLE TRIGGER USER');
    }
    try {
      const verify = async (sub: string) => {
        const res = await fetch(`${h.baseUrl}/audit/anchors/verify`, { headers: { authorization: `Bearer ${h.client.token('auditor', sub)}` } });
        expect(res.status).toBe(200);
        return (await res.json()) as any;
      };
      const report = await verify('aud-v1');
      expect(report.divergences.some((d: any) => d.kind === 'STORED_CHAIN_BROKEN')).toBe(true);
      const chain = await until(
        'CHAIN.DIVERGED',
        (d) => d.cause.kind === 'verifier',
        (r) => r.some((d) => d.cause.divergence === 'STORED_CHAIN_BROKEN'),
      );
      await verify('aud-v2');
      // the second verification's raises are appended in the background: wait for its flush, then count again
      await new Promise((res) => setTimeout(res, 1_500));
      expect(await raises('CHAIN.DIVERGED', (d) => d.cause.kind === 'verifier')).toHaveLength(chain.length);
      expect(chain.find((d) => d.cause.divergence === 'STORED_CHAIN_BROKEN')).toMatchObject({ severity: 'critical', actor: 'verifier', cause: { source: 'postgres' } });
    } finally {
      await c.query('ALTER TABLE events DISABLE TRIGGER USER');
      await c.query(`UPDATE events SET data = $2::jsonb WHERE event_id = $1`, [e.eventId, JSON.stringify(e.data)]);
      await c.query('ALTER TABLE events ENABLE TRIGGER USER');
    }
  });

  it("every raise of the spec passes verify's step 7; a raise forged with a cause its code does not admit is reported", async () => {
    const mine: { stream_id: string }[] = await h.ds.query(`SELECT stream_id FROM events WHERE type = 'SignificantEventRaised' AND recorded_at >= $1`, [started]);
    expect(mine.length).toBeGreaterThanOrEqual(5);
    const streams = new Set(mine.map((r) => r.stream_id));
    // an insider appends, with the store's own function and as the ledger, a CHAIN.DIVERGED "caused" by a quarantined record, its id the one that cause gives
    const cause = { kind: 'projector', record: 'quarantine', key: `${h.topic}/0/1@1`, consumerGroup: 'forger', reason: 'HASH_MISMATCH' } as const;
    const id = significantEventIdFor('CHAIN.DIVERGED', cause);
    const forged = await h.store.append({
      streamId: `significant-${id}`,
      tableId: '*',
      expectedVersion: 0,
      events: [{ eventId: id, type: 'SignificantEventRaised', data: { significantEventId: id, code: 'CHAIN.DIVERGED', severity: 'critical', cause, actor: 'projector', details: {} } }],
      metadata: { actor: { id: 'significant-event-monitor', role: 'system' }, correlationId: randomUUID() },
    });
    streams.add(`significant-${id}`);
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    try {
      const report = await verifyLedger({ session: pgSession(owner), publicKeys: new Map(), anchorFile: null, kafka: null, anchorsTopic: null, eventsTopic: null, maxDivergences: 100_000 });
      const found = report.divergences.filter((d) => d.source === 'significant-events' && streams.has(d.streamId!));
      expect(found.map((d) => [d.kind, d.eventId, d.reason])).toEqual([['SIGNIFICANT_EVENT_NOT_GENUINE', forged.events[0].eventId, "SignificantEventRaised: a projector's quarantine record cannot raise CHAIN.DIVERGED"]]);
    } finally {
      await owner.end();
    }
  });
});
