/**
 * A statistical alert is a significant event (docs/fairness.md §6, docs/significant-events.md), through
 * HTTP against the real API, PostgreSQL, Kafka, relay and projector: an honest shoe dealt to its close
 * raises nothing; a shoe whose dealer finds a Banker natural every round (`bankerNaturalChance` 1 of
 * `libs/simulator/src/biased-shoe.ts`, 12 rounds) raises `STATISTICS.OUT_OF_BOUNDS` at its close, per
 * failing scope, on the route and the significant-events topic, with the figures the stored events
 * give; a redelivered close raises nothing new. Attack: raises forged by an insider with the store's own
 * append (a scope whose tests pass, an honest shoe's close) are reported by `npm run -s verify`.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { closeFairness, lookFromEvents, outOfBoundsDrafts, pgSession, readPublicKeys, sha256OfText, significantEventIdOf, verifyLedger } from '@ledger/anchors';
import { LEDGER_WIDE_TABLE_ID } from '@ledger/events';
import { canonicalReportBytes } from '../../apps/ledger/src/kernel/closes/close-report';
import { ReportSigningKey } from '../../apps/ledger/src/kernel/closes/report-signing-key';
import { significantEventsTopicOf } from '@ledger/infra';
import type { KafkaConsumer } from '@ledger/kafka';
import { dealShoe } from '@ledger/simulator';
import type { RoundOutcome } from '@ledger/rules';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';

jest.setTimeout(240_000);

const TABLE = 'T-CLASSIC-01';
const CODE = 'STATISTICS.OUT_OF_BOUNDS';

describe('fairness alerts: STATISTICS.OUT_OF_BOUNDS raised at a shoe close from the stored events', () => {
  let h: LedgerHarness;
  let consumer: KafkaConsumer;
  const onTopic: any[] = [];
  const honestShoe = runId('fair-honest');
  const biasedShoe = runId('fair-biased');
  const closes: Record<string, any> = {};
  const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);

  /** Opens `shoeId` with `dealerId`, deals `rounds` through the API (P1 B1 P2 B2 [P3] [B3]) and closes it: its ShoeClosed event. */
  const dealAndClose = async (shoeId: string, dealerId: string, rounds: readonly RoundOutcome[]) => {
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId });
    await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoeId}/burns`, { card: null });
    for (const [i, o] of rounds.entries()) {
      const roundId = `${shoeId}-R${i + 1}`;
      await dev(`/shoes/${shoeId}/rounds`, { roundId });
      await dev(`/shoes/${shoeId}/rounds/${roundId}/close-betting`);
      const order: [string, string][] = [
        ['P1', o.player[0].code],
        ['B1', o.banker[0].code],
        ['P2', o.player[1].code],
        ['B2', o.banker[1].code],
        ...(o.player[2] ? [['P3', o.player[2].code] as [string, string]] : []),
        ...(o.banker[2] ? [['B3', o.banker[2].code] as [string, string]] : []),
      ];
      for (const [position, card] of order) await dev(`/shoes/${shoeId}/rounds/${roundId}/cards`, { position, card });
    }
    await dev(`/shoes/${shoeId}/close`);
    const stream = await h.store.readStream(`shoe-${shoeId}`);
    return stream.find((e) => e.type === 'ShoeClosed')!;
  };
  const raisesOnRoute = async (shoeId: string) => (await h.client.get('auditor', 'aud-1', `/significant-events?code=${CODE}&tableId=${TABLE}&limit=100`)).items.filter((i: any) => i.shoeId === shoeId);
  const until = async <T>(what: string, probe: () => Promise<T | null> | T | null): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`${what} within 60 s`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  /** The biased shoe's raises on the route, once the monitor has raised at least its shoe and dealer scopes. */
  const biasedRaises = () =>
    until(`${CODE} of the biased shoe listed`, async () => {
      const items = await raisesOnRoute(biasedShoe);
      return items.length >= 2 ? items : null;
    });
  const divergences = async (source: string) => {
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    try {
      const publicKeys = readPublicKeys(['.stack/anchors/anchor-public.pem']);
      const report = await verifyLedger({ session: pgSession(owner), publicKeys, anchorFile: null, kafka: null, anchorsTopic: null, eventsTopic: null, maxDivergences: 100_000 });
      return report.divergences.filter((d) => d.source === source);
    } finally {
      await owner.end();
    }
  };

  const significantDivergences = () => divergences('significant-events');

  beforeAll(async () => {
    h = await startLedger({ env: { SIGNIFICANT_MONITOR: 'true', SIGNIFICANT_MONITOR_GROUP: `fair-monitor-${randomUUID()}` } });
    await h.startRelay();
    await h.startProjector();
    consumer = h.kafka.consumer({ groupId: `fair-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: significantEventsTopicOf(h.topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        onTopic.push(JSON.parse(message.value!.toString()));
      },
    });
    // the honest shoe first, then the biased one, at the same table (one partition: the monitor sees them in order)
    closes.honest = await dealAndClose(honestShoe, 'dealer-honest', dealShoe(8, 'fair-e2e-honest').rounds.slice(0, 6));
    closes.biased = await dealAndClose(biasedShoe, 'dealer-finds-naturals', dealShoe(8, 'fair-e2e-biased', { bankerNaturalChance: 1 }).rounds.slice(0, 12));
  });
  afterAll(async () => {
    await consumer?.disconnect();
    await h?.close();
  });

  it('a biased shoe raises STATISTICS.OUT_OF_BOUNDS at its close, per failing scope, on the topic and the route; an honest shoe raises none', async () => {
    // what the stored events give at that close (the monitor's own computation, from the events)
    const first = await biasedRaises();
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    const confidence = { numerator: 95n, denominator: 100n };
    const dayRule = { timeZone: first[0].details.timeZone, cutoffHour: Number(first[0].details.cutoffHour) };
    const { day, look } = await lookFromEvents(pgSession(owner), closes.biased, { dayRule, confidence, topic: h.topic });
    await owner.end();
    const expected = outOfBoundsDrafts(look!, { day, dayRule, confidence });
    expect(expected.map((d) => d.scopeKey)).toEqual(expect.arrayContaining([`shoe:${biasedShoe}`, 'dealer:dealer-finds-naturals']));
    // one raise per failing scope, each listed
    const listed = await until('every failing scope raised', async () => {
      const items = await raisesOnRoute(biasedShoe);
      return items.length >= expected.length ? items : null;
    });
    expect(listed.map((i: any) => i.details.scopeKey).sort()).toEqual(expected.map((d) => d.scopeKey).sort());
    const shoe = listed.find((i: any) => i.details.scope === 'shoe');
    expect(shoe).toMatchObject({ severity: 'high', tableId: TABLE, dealerId: 'dealer-finds-naturals', causeEventId: closes.biased.eventId, causeEventType: 'ShoeClosed', requiresAck: true });
    expect(shoe.details).toMatchObject({ rounds: '12', gamingDay: day, confidence: '95/100', variant: 'classic' });
    expect(shoe.details.statistics.split(',')).toContain('NATURALS');
    // every Banker hand a natural: NONE, PLAYER, BANKER, BOTH
    const naturals = shoe.details['NATURALS.observed'].split(',').map(Number);
    expect(naturals[2] + naturals[3]).toBe(12);
    expect(Number(shoe.details['NATURALS.pValue'])).toBeLessThan(Number(shoe.details.alpha));
    expect(shoe.details['NATURALS.expected'].split(',')).toHaveLength(4);
    expect(shoe.significantEventId).toBe(significantEventIdOf(closes.biased.eventId, CODE, `shoe:${biasedShoe}`));
    // on the significant-events topic, the same raises
    const topical = await until('the raises on the significant-events topic', () => {
      const r = onTopic.filter((v) => v.type === 'SignificantEventRaised' && v.data.code === CODE && v.data.shoeId === biasedShoe);
      return r.length === listed.length ? r : null;
    });
    expect(topical.map((v) => v.data.significantEventId).sort()).toEqual(listed.map((i: any) => i.significantEventId).sort());
    // the honest shoe's close came first in the same partition: handled, it raised nothing
    expect(await raisesOnRoute(honestShoe)).toEqual([]);
    expect(onTopic.filter((v) => v.data?.shoeId === honestShoe && v.data?.code === CODE)).toEqual([]);
  });

  it('a redelivered close raises nothing new', async () => {
    const { SignificantEventMonitor } = await import('../../apps/ledger/src/significant-events/significant-monitor');
    const monitor = h.app.get(SignificantEventMonitor);
    const again = await monitor.handle([closes.biased, closes.honest].map((e, i) => ({ offset: String(i), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: '0' })));
    expect(again).toBe(0);
  });

  it('attack: verify passes the genuine raises and reports forged ones (a scope whose tests pass, an honest shoe)', async () => {
    const listed = await biasedRaises();
    const mine = new Set(listed.map((i: any) => `significant-${i.significantEventId}`));
    expect((await significantDivergences()).filter((d) => mine.has(d.streamId!))).toEqual([]);

    const shoeRaise = listed.find((i: any) => i.details.scope === 'shoe');
    const [stored] = await h.store.readStream(`significant-${shoeRaise.significantEventId}`);
    /** An insider appends a raise with the store's own function, as the monitor would, for `cause` and `scopeKey`. */
    const forge = async (cause: any, scopeKey: string, shoeId: string) => {
      const id = significantEventIdOf(cause.eventId, CODE, scopeKey);
      const data = {
        ...(stored.data as any),
        significantEventId: id,
        cause: { eventId: cause.eventId, globalPosition: cause.globalPosition, streamId: cause.streamId, eventType: cause.type },
        shoeId,
        actor: cause.actor.id,
        details: { ...(stored.data as any).details, scopeKey },
      };
      await h.store.append({
        streamId: `significant-${id}`,
        tableId: TABLE,
        expectedVersion: 0,
        events: [{ eventId: id, type: 'SignificantEventRaised', data }],
        metadata: { actor: { id: 'significant-event-monitor', role: 'system' }, correlationId: cause.correlationId, causationId: cause.eventId },
      });
      return id;
    };
    const honest = await forge(closes.honest, `shoe:${honestShoe}`, honestShoe);
    // a dealer who dealt none of the biased shoe's rounds: that scope's tests pass (no rounds)
    const otherDealer = await forge(closes.biased, 'dealer:dealer-honest', biasedShoe);
    const found = (await significantDivergences()).filter((d) => [honest, otherDealer].includes(d.eventId!));
    expect(found.map((d) => [d.kind, d.eventId, d.reason]).sort()).toEqual(
      [
        ['SIGNIFICANT_EVENT_NOT_GENUINE', honest, `SignificantEventRaised: the events give no failed test in scope shoe:${honestShoe} at its cause: the alert is not what the statistics say`],
        ['SIGNIFICANT_EVENT_NOT_GENUINE', otherDealer, 'SignificantEventRaised: the events give no failed test in scope dealer:dealer-honest at its cause: the alert is not what the statistics say'],
      ].sort(),
    );
  });

  it('the gaming-day close states the fairness verdict of the table day from the events (layout 3), its CSV too; verify reports a signed close whose fairness is forged', async () => {
    await biasedRaises();
    const call = (method: string, path: string, sub: string, body?: unknown) =>
      fetch(`${h.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${h.client.token(sub.startsWith('aud') ? 'auditor' : 'pit-manager', sub)}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const { waitApplied, waitAsOf } = await import('../support/shoe-steps');
    const last = (await h.store.readStream(`shoe-${biasedShoe}`)).at(-1)!;
    await waitApplied(h.client, last.eventId);
    const raises = await biasedRaises();
    for (const r of raises) await waitAsOf(h.baseUrl, h.client.token('auditor', 'aud-1'), BigInt((await h.store.readStream(`significant-${r.significantEventId}`))[0].globalPosition));
    const day = raises[0].details.gamingDay;
    const asked = (await (await call('POST', `/gaming-days/${day}/close`, 'pm-fair-1', { tableIds: [TABLE], early: true, reason: 'fairness close spec' })).json()) as any;
    const res = await call('POST', `/gaming-days/${day}/close-requests/${asked.requestId}/approve`, 'pm-fair-2');
    expect(res.status).toBe(201);
    const close = (await res.json()) as any;
    expect(close.report.header.reportVersion).toBe(3);
    const [f] = close.report.fairness;
    expect(f).toMatchObject({ tableId: TABLE, rounds: 18, variant: 'classic', decks: 8, confidence: '95/100' });
    // every raise of the table's day up to the close (the genuine ones, and those the attack above appended)
    expect(f.alertsRaised).toBeGreaterThanOrEqual(raises.length);
    expect(f.statistics.map((s: any) => s.statistic)).toEqual(['OUTCOME', 'PAIRS', 'NATURALS', 'CARD_RANKS']);
    expect(f.alert).toBe(f.statistics.some((s: any) => s.alert));
    // what the events give at its position
    const owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
    const computed = await closeFairness(pgSession(owner), {
      gamingDay: day,
      dayRule: close.report.gamingDayRule,
      tableIds: [TABLE],
      throughPosition: BigInt(close.throughPosition),
      topic: h.topic,
      confidence: { numerator: 95n, denominator: 100n },
    });
    expect(close.report.fairness).toEqual(computed);
    // the CSV export: a fairness line per statistic, the clock skew line (signed ms)
    const csv = await (await call('GET', `/gaming-days/${day}/close?tableId=${TABLE}&format=csv`, 'aud-1')).text();
    const header = csv.split('\n')[0].split(',');
    const lines = csv
      .split('\n')
      .slice(1)
      .filter((l) => l.includes(',fairness,') || l.includes(',clockSkew,'));
    expect(header).toEqual(expect.arrayContaining(['skewMs', 'statistic', 'pValue', 'alert', 'alertsRaised']));
    expect(lines.filter((l) => l.includes(',fairness,'))).toHaveLength(4);
    expect(lines.filter((l) => l.includes(',clockSkew,'))).toHaveLength(1);
    const genuineDivergences = (await divergences('closes')).filter((d) => d.eventId === close.eventId);
    expect(genuineDivergences).toEqual([]);

    // an insider holding the report key signs a close of the same day and table stating an honest verdict
    const forgedBody = { ...close.report, early: null, fairness: [{ ...f, alert: false, statistics: f.statistics.map((s: any) => ({ ...s, pValue: '0.5', alert: false })), alertsRaised: 0 }] };
    const bytes = canonicalReportBytes(forgedBody).toString('utf8');
    const signer = await h.app.get(ReportSigningKey).signer();
    const signature = await signer.sign('gaming-day-close', forgedBody);
    const streamId = `gaming-day-${day}:forged-${randomUUID().slice(0, 8)}`;
    const eventId = randomUUID();
    const data = { gamingDay: day, tableIds: [TABLE], throughPosition: close.throughPosition, reportSha256: sha256OfText(bytes), signature, keyId: signer.keyId, trigger: 'MANAGER', clockSkew: close.report.clockSkew };
    await h.store.append({
      streamId,
      tableId: LEDGER_WIDE_TABLE_ID,
      expectedVersion: 0,
      events: [{ eventId, type: 'GamingDayClosed', data: data as never }],
      metadata: { actor: { id: 'pm-fair-2', role: 'pit-manager' }, correlationId: eventId },
    });
    await owner.query(
      `INSERT INTO gaming_day_closes (scope, gaming_day, table_ids, through_position, report, report_sha256, signature, key_id, trigger, closed_by, closed_by_role, event_id)
       VALUES ($1, $2::date, $3::text[], $4::bigint, $5, $6, $7, $8, 'MANAGER', 'pm-fair-2', 'pit-manager', $9)`,
      [h.topic, day, [TABLE], close.throughPosition, bytes, sha256OfText(bytes), signature, signer.keyId, eventId],
    );
    await owner.end();
    const found = (await divergences('closes')).filter((d) => d.eventId === eventId);
    expect(found.map((d) => d.kind)).toEqual(['CLOSE_NOT_GENUINE']);
    expect(found[0].reason).toMatch(new RegExp(`^FAIRNESS_MISMATCH: the fairness it signs for ${TABLE} is not what the events give`));
  });
});
