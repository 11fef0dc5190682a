/**
 * Significant events against an insider holding the projector's database login (`ledger_projector`),
 * docs/significant-events.md "What the read model may not decide". The read model of significant
 * events is the projector's to write: before, the list, one event, the live stream and the escalation
 * gauges all read it, so marking a large win "acknowledged" there silenced its escalation
 * (`ledger_significant_events_unacknowledged` dropped), and a forged row was served as a raise of the
 * ledger. Now the gauges count the stored events, every row served is rebuilt from them (a row with
 * no raise is left out and counted), and the live stream reads the event store up to the relay's
 * published position.
 *
 * And a pit manager whose correction turned a losing bet into a large win (the resettlement's
 * `WIN.LARGE`, caused by the `BetResettled` the approver's act appended) is refused its
 * acknowledgement: the raise names both managers of the correction (found by an adversarial review:
 * the requester's acknowledgement was accepted, 201).
 *
 * The live stream takes the role's share of live streams (`LIVE_STREAMS_AUDITORS`, shared with
 * `/live/tables`) and records each subscription in the query log, as `/live/tables` does (found by
 * review: 220 auditor streams were accepted, none logged).
 *
 * A raise whose data its schema refuses (stored with a login that may append: `cause: null`) is
 * quarantined by the projector, passed over by the live stream and not served (found by review: the
 * projector crash-looped on it, freezing its partition's tables, the live stream's poller failed on
 * every poll, and the event route answered 500); the list's period is confirmed on the stored raise.
 *
 * Each change on the stream carries its global position as its SSE `id`: a client that reconnects
 * with `Last-Event-ID` is sent what it missed, in order, before the live changes (found by review:
 * no `id:`, so a dropped connection lost what was raised meanwhile).
 *
 * Real PostgreSQL and Kafka; the API (with its monitor), relay and projector in-process.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';
import { ConfigurationAttestor } from '../../apps/ledger/src/clock/configuration-attestor';
import { dealPlayerWin } from '../support/shoe-steps';

jest.setTimeout(240_000);

const TABLE = 'T-CLASSIC-01';

describe('a significant-events read model poisoned with the projector login cannot silence or forge a significant event', () => {
  let h: LedgerHarness;
  let projector: Client;
  const live: { kind: string; event: any; id?: string }[] = [];
  const stop = new AbortController();
  /** This run's query-log rows only (the test database may hold an earlier run's). */
  const specStarted = new Date();
  const shoeId = runId('sigpoison');
  const r1 = `${shoeId}-R1`;
  const gauge = async (name: string): Promise<number> => {
    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const m = new RegExp(`^${name}\\{severity="high"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const counter = async (kind: string): Promise<number> => {
    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const m = new RegExp(`^ledger_significant_read_model_mismatches_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`${what}: not within 60 s`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  /** Opens `GET /significant-events/live` as aud-1 and collects its events until the spec ends. */
  const listen = async () => {
    const res = await fetch(`${h.baseUrl}/significant-events/live`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` }, signal: stop.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    void (async () => {
      let buf = '';
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        buf += Buffer.from(value!).toString('utf8');
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const kind = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          const id = /^id: (.+)$/m.exec(block)?.[1];
          if (kind && data) live.push({ kind, event: JSON.parse(data), ...(id ? { id } : {}) });
        }
      }
    })();
  };

  beforeAll(async () => {
    h = await startLedger({ env: { SIGNIFICANT_MONITOR: 'true', SIGNIFICANT_MONITOR_GROUP: `sig-poison-${randomUUID()}`, SIGNIFICANT_WIN_AMOUNT_MINOR: '2000', LIVE_STREAMS_AUDITORS: '3', CONFIGURATION_ATTESTATION: 'true' } });
    // the settings in force are attested before any cause (verify detects the raises again with them)
    expect(await h.app.get(ConfigurationAttestor).whenStarted()).not.toBeNull();
    await h.startRelay();
    await h.startProjector();
    projector = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.projector });
    await projector.connect();
  });
  afterAll(async () => {
    stop.abort();
    await projector?.end();
    await h?.close();
  });

  it('a large win marked acknowledged and a forged raise in the read model: the gauges, the list, the event and the live stream keep to the stored events', async () => {
    await listen();
    // the live stream starts at the published position once its poller has run
    await new Promise((res) => setTimeout(res, 500));
    // 2500 on PLAYER wins 2500: at SIGNIFICANT_WIN_AMOUNT_MINOR=2000, a large win (high: a second person must acknowledge it)
    await dealPlayerWin(h.client, { tableId: TABLE, shoeId, roundId: r1, dealerId: 'dealer-3', stake: '2500' });

    const listed = await until('the large win listed', async () => {
      const page = await h.client.get('auditor', 'aud-1', `/significant-events?code=WIN.LARGE&tableId=${TABLE}&acknowledged=false`);
      return page.items.find((i: any) => i.shoeId === shoeId);
    });
    const id: string = listed.significantEventId;
    // the monitor that raised it says it consumes (0 would page: LedgerSignificantMonitorDown)
    expect(/^ledger_significant_monitor_up (\d+)$/m.exec(await (await fetch(`${h.baseUrl}/metrics`)).text())?.[1]).toBe('1');
    const raisedLive = await until('the raise on the live stream', () => live.find((c) => c.kind === 'raised' && c.event.significantEventId === id));
    expect(raisedLive.event).toMatchObject({ code: 'WIN.LARGE', severity: 'high', shoeId, acknowledgedAt: null });
    const openBefore = await gauge('ledger_significant_events_unacknowledged');
    expect(openBefore).toBeGreaterThanOrEqual(1);

    // the insider: the large win "acknowledged" by nobody, its stake rewritten, and a forged critical raise
    const S = h.readSchema;
    const marked = await projector.query(
      `UPDATE ${S}.significant_events SET acknowledged_by = 'pm-nobody', acknowledged_role = 'pit-manager', ack_reason = 'forged', acknowledged_at = now(), ack_position = raised_position + 1,
              details = details || '{"stake":"1"}'::jsonb WHERE significant_event_id = $1`,
      [id],
    );
    expect(marked.rowCount).toBe(1);
    const forgedId = randomUUID();
    await projector.query(
      `INSERT INTO ${S}.significant_events (significant_event_id, code, severity, severity_rank, table_id, shoe_id, round_id, dealer_id, actor_id, cause_event_id, cause_event_type,
                                            cause_global_position, details, requires_ack, raised_at, raised_position)
       SELECT $1, 'CHAIN.DIVERGED', 'critical', 4, table_id, shoe_id, round_id, dealer_id, actor_id, cause_event_id, cause_event_type,
              cause_global_position, details, true, raised_at, raised_position + 1 FROM ${S}.significant_events WHERE significant_event_id = $2`,
      [forgedId, id],
    );
    const notRaisedBefore = await counter('not-raised');
    // overdue is counted on the stored events too: past a deadline of 0 s every open one is overdue, past an hour not this one
    const high = async (deadlineSeconds: number) => (await h.store.significant.openCounts({ severities: ['high'], deadlineSeconds })).find((c) => c.severity === 'high')!;
    const now = await high(0);
    expect(now.overdue).toBe(now.unacknowledged);
    expect(now.unacknowledged).toBe(openBefore);
    expect((await high(3600)).overdue).toBeLessThan(now.unacknowledged);

    // the escalation still counts it: the gauge reads the stored events
    expect(await gauge('ledger_significant_events_unacknowledged')).toBe(openBefore);
    // the event and the list say what the events say: not acknowledged, its real stake; the forged row is not served
    const one = await h.client.get('auditor', 'aud-1', `/significant-events/${id}`);
    expect(one).toMatchObject({ significantEventId: id, acknowledgedAt: null, acknowledgedBy: null });
    expect(one.details.stake).toBe('2500');
    const all = await h.client.get('auditor', 'aud-1', `/significant-events?code=WIN.LARGE&tableId=${TABLE}`);
    const mine = all.items.filter((i: any) => i.shoeId === shoeId);
    expect(mine.map((i: any) => [i.significantEventId, i.acknowledgedAt, i.details.stake])).toEqual([[id, null, '2500']]);
    // the read model chooses the pages of acknowledged=false (full pages for the console), so it can leave this one
    // out of them (docs/significant-events.md): the gauge above still counts it; it is never served as acknowledged
    const acked = await h.client.get('auditor', 'aud-1', `/significant-events?code=WIN.LARGE&tableId=${TABLE}&acknowledged=true`);
    expect(acked.items.map((i: any) => i.significantEventId)).not.toContain(id);
    const table = await h.client.get('auditor', 'aud-1', `/significant-events?tableId=${TABLE}&limit=100`);
    expect(table.items.map((i: any) => i.significantEventId)).toContain(id);
    expect(table.items.map((i: any) => i.significantEventId)).not.toContain(forgedId);
    expect(await counter('not-raised')).toBeGreaterThan(notRaisedBefore);
    await expect(h.client.get('auditor', 'aud-1', `/significant-events/${forgedId}`)).rejects.toMatchObject({ status: 404 });
    expect(await counter('acknowledgement')).toBeGreaterThan(0);
    expect(live.some((c) => c.event.significantEventId === forgedId)).toBe(false);

    // a real acknowledgement by a second person: on the live stream, and the gauge drops by it
    const res = await fetch(`${h.baseUrl}/significant-events/${id}/acknowledgements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-3')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'win verified on camera' }),
    });
    expect(res.status).toBe(201);
    const ackLive = await until('the acknowledgement on the live stream', () => live.find((c) => c.kind === 'acknowledged' && c.event.significantEventId === id));
    expect(ackLive.event).toMatchObject({ acknowledgedBy: 'pm-3', ackReason: 'win verified on camera', code: 'WIN.LARGE' });
    expect(await gauge('ledger_significant_events_unacknowledged')).toBe(openBefore - 1);
  });

  it("refuses the requesting manager's acknowledgement of the large win their own correction created", async () => {
    const shoe = runId('sigself');
    const roundId = `${shoe}-R1`;
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
    await dev(`/tables/${TABLE}/shoes`, { shoeId: shoe, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoe}/commencement`, { card: 'AS' });
    await dev(`/shoes/${shoe}/burns`, { card: null });
    await dev(`/shoes/${shoe}/rounds`, { roundId });
    await h.client.post('betting-platform', 'platform-1', `/shoes/${shoe}/rounds/${roundId}/bets`, {
      bet: { betId: `${roundId}-B1`, accountId: 'acct-1', betCode: 'PLAYER', stake: '5000', currency: 'EUR' },
    });
    await dev(`/shoes/${shoe}/rounds/${roundId}/close-betting`);
    // Banker 9 against Player 5: the PLAYER bet loses
    for (const [position, card] of [
      ['P1', '2H'],
      ['B1', '9S'],
      ['P2', '3C'],
      ['B2', 'KD'],
    ])
      await dev(`/shoes/${shoe}/rounds/${roundId}/cards`, { position, card });
    // corrected to Player 9 against Banker 5: the bet wins 5,000, over SIGNIFICANT_WIN_AMOUNT_MINOR
    const { decisionId } = await h.client.post('pit-manager', 'pm-req', `/shoes/${shoe}/rounds/${roundId}/result-corrections`, { reason: 'cards misread by the scanner', cards: ['9S', '2H', 'KD', '3C'] });
    await h.client.post('pit-manager', 'pm-appr', `/decisions/${decisionId}/approve`, {});
    const win = await until("the resettlement's large win listed", async () => {
      const page = await h.client.get('auditor', 'aud-1', `/significant-events?code=WIN.LARGE&tableId=${TABLE}&limit=50`);
      return page.items.find((i: any) => i.shoeId === shoe);
    });
    expect(win).toMatchObject({ causeEventType: 'BetResettled', actorId: 'pm-appr' });
    expect(win.details).toMatchObject({ actingManagerId: 'pm-req', approverId: 'pm-appr', winnings: '5000', multiple: '100/1', amountMinor: '2000' });
    const ack = (sub: string) =>
      fetch(`${h.baseUrl}/significant-events/${win.significantEventId}/acknowledgements`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.client.token('pit-manager', sub)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'large win reviewed' }),
      });
    for (const sub of ['pm-req', 'pm-appr']) {
      const res = await ack(sub);
      expect([sub, res.status, ((await res.json()) as any).error?.code]).toEqual([sub, 422, 'MANAGEMENT.SAME_APPROVER']);
    }
    expect((await ack('pm-3')).status).toBe(201);
  });

  it('a raise whose data its schema refuses (cause null), stored with a login that may append, is quarantined: the table, the list, the event route and the live stream go on; a rewritten raised_at moves no raise into a period', async () => {
    const badId = randomUUID();
    await h.store.append({
      streamId: `significant-${badId}`,
      tableId: TABLE,
      expectedVersion: 0,
      events: [{ eventId: randomUUID(), type: 'SignificantEventRaised', data: { significantEventId: badId, code: 'ROUND.VOIDED', severity: 'medium', cause: null, actor: 'x', details: {} } as never }],
      metadata: { actor: { id: 'significant-event-monitor', role: 'system' }, correlationId: randomUUID() },
    });
    // a later large win on the same table (the same partition): projected, listed and streamed
    const shoe = runId('sigafter');
    await dealPlayerWin(h.client, { tableId: TABLE, shoeId: shoe, roundId: `${shoe}-R1`, dealerId: 'dealer-3', stake: '2500' });
    const later = await until('the later large win listed', async () => (await h.client.get('auditor', 'aud-1', `/significant-events?code=WIN.LARGE&tableId=${TABLE}`)).items.find((i: any) => i.shoeId === shoe));
    await until('the later raise on the live stream', () => live.find((c) => c.kind === 'raised' && c.event.significantEventId === later.significantEventId));
    const state = await until('the later shoe projected', async () => h.client.get('pit-manager', 'pm-3', `/shoes/${shoe}/state`).catch(() => undefined));
    expect(state).toMatchObject({ shoeId: shoe });
    const quarantined: { reason: string; authentic: boolean }[] = await h.ds.query(`SELECT reason, authentic FROM ${h.readSchema}.quarantine WHERE stream_id = $1`, [`significant-${badId}`]);
    expect(quarantined).toEqual([{ reason: 'MALFORMED', authentic: true }]);
    await expect(h.client.get('auditor', 'aud-1', `/significant-events/${badId}`)).rejects.toMatchObject({ status: 404 });
    expect(await counter('malformed')).toBeGreaterThan(0);

    // the insider moves the later raise into January 2025 in the read model: the period is confirmed on the stored raise
    const moved = await projector.query(`UPDATE ${h.readSchema}.significant_events SET raised_at = '2025-01-01T12:00:00Z' WHERE significant_event_id = $1`, [later.significantEventId]);
    expect(moved.rowCount).toBe(1);
    const period = await h.client.get('auditor', 'aud-1', `/significant-events?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z&limit=100`);
    expect(period.items.map((i: any) => i.significantEventId)).not.toContain(later.significantEventId);
  });

  it('a stream resumed with Last-Event-ID is sent what it missed, in order and once; a Last-Event-ID that is not a position is refused', async () => {
    const sent = live.filter((c) => c.id !== undefined);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.every((c) => /^[0-9]+$/.test(c.id!))).toBe(true);
    const first = sent[0];
    /** The first `n` changes of a pit manager's stream opened with `lastEventId`, and any `gap`. */
    const resumed = async (lastEventId: string, n: number, ms: number) => {
      const ctl = new AbortController();
      const res = await fetch(`${h.baseUrl}/significant-events/live`, { headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-resume')}`, 'last-event-id': lastEventId }, signal: ctl.signal });
      expect(res.status).toBe(200);
      const got: { kind: string; id?: string; event: any }[] = [];
      const reader = res.body!.getReader();
      const timer = setTimeout(() => ctl.abort(), ms);
      let buf = '';
      try {
        while (got.length < n) {
          const { done, value } = await reader.read();
          if (done) break;
          buf += Buffer.from(value).toString('utf8');
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const kind = /^event: (.+)$/m.exec(block)?.[1];
            if (kind) got.push({ kind, id: /^id: (.+)$/m.exec(block)?.[1], event: JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? 'null') });
          }
        }
      } catch {
        // aborted: what came is what there was
      } finally {
        clearTimeout(timer);
        ctl.abort();
      }
      return got;
    };
    // from just before the first change this spec saw: every change since, in the order the first stream had them
    const again = await resumed((BigInt(first.id!) - 1n).toString(), sent.length, 10_000);
    // (a read may bring more than asked for: a change raised since is compared no further)
    expect(again.slice(0, sent.length).map((c) => [c.kind, c.id, c.event.significantEventId])).toEqual(sent.map((c) => [c.kind, c.id, c.event.significantEventId]));
    // from the last one: nothing of the past
    const caughtUp = await resumed(sent[sent.length - 1].id!, 1, 1_500);
    expect(caughtUp.filter((c) => BigInt(c.id ?? '0') <= BigInt(sent[sent.length - 1].id!))).toEqual([]);
    for (const bad of ['abc', '-1', '99999999999999999999', '9223372036854775808']) {
      const r = await fetch(`${h.baseUrl}/significant-events/live`, { headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-resume')}`, 'last-event-id': bad } });
      expect([bad, r.status, ((await r.json()) as any).error.code]).toEqual([bad, 400, 'VALIDATION.FAILED']);
    }
  });

  it("caps the auditors' live streams over all of them, and records each subscription in the query log", async () => {
    // aud-1 holds one stream since the first test; two more auditors take the role's last two places
    const open = (sub: string) => fetch(`${h.baseUrl}/significant-events/live`, { headers: { authorization: `Bearer ${h.client.token('auditor', sub)}` }, signal: stop.signal });
    const held = [await open('aud-cap-1'), await open('aud-cap-2')];
    expect(held.map((r) => r.status)).toEqual([200, 200]);
    const refused = await open('aud-cap-3');
    expect([refused.status, ((await refused.json()) as any).error]).toMatchObject([429, { code: 'RATE.LIVE_STREAMS_BUSY', details: { scope: 'role', limit: 3 } }]);
    const logged: { actor_id: string }[] = await h.ds.query(`SELECT actor_id FROM query_log WHERE route = 'GET /significant-events/live' AND actor_id IN ('aud-1', 'aud-cap-1', 'aud-cap-2', 'aud-cap-3') AND at >= $1`, [
      specStarted,
    ]);
    expect(logged.map((r) => r.actor_id).sort()).toEqual(['aud-1', 'aud-cap-1', 'aud-cap-2']);
  });
});
