/**
 * Staff statistics and evidence (docs/reports.md §6, §7), end to end: the real API, relay and
 * projector (in-process) against real PostgreSQL and Kafka. One shoe at a classic table: dealer A
 * deals 12 clean rounds (one with a refused card), dealer B takes over and 8 of their 12 rounds are
 * voided by exposed cards, A comes back for 2 rounds, one voided by a four-eyes decision with
 * evidence. The statistics count exactly that per dealer and per shift, and flag exactly B; the
 * recall shows the evidence of the table fact and of the decision; malformed evidence answers 400
 * `EVIDENCE.INVALID` and records nothing.
 */
import { LedgerHttpError } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(240_000);

const TABLE = 'T-CLASSIC-01';
const SUITS = ['S', 'H', 'D', 'C'];
const FACES = ['T', 'J', 'Q', 'K'];
const DEVICE = `dev-${TABLE}`;

async function waitApplied(h: LedgerHarness, eventId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await h.client.get('auditor', 'aud-1', `/projections/applied/${eventId}`);
    if (r.applied) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`event ${eventId} not projected within 60 s`);
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LedgerHttpError) return { status: e.status, code: e.code };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('staff statistics and evidence (docs/reports.md §6, §7)', () => {
  let h: LedgerHarness;
  const shoeId = runId('staff');
  const s = `/shoes/${shoeId}`;
  let round = 0;
  let faceUse = 0;
  const face = () => {
    const c = `${FACES[faceUse % 4]}${SUITS[Math.floor(faceUse / 4) % 4]}`;
    faceUse++;
    return c;
  };
  const dev = (path: string, body: unknown = {}) => h.client.post('table-device', DEVICE, path, body);

  /** A round dealt to a natural (player 9 or 8 against banker 0); `refuse` sends one card out of tableau order first. */
  async function cleanRound(opts: { refuse?: boolean; evidence?: unknown } = {}): Promise<string> {
    const roundId = `${shoeId}-R${++round}`;
    await dev(`${s}/rounds`, { roundId });
    await dev(`${s}/rounds/${roundId}/close-betting`);
    const p1 = `${round % 2 ? '9' : '8'}${SUITS[Math.floor(round / 2) % 4]}`;
    await dev(`${s}/rounds/${roundId}/cards`, { position: 'P1', card: p1, ...(opts.evidence ? { evidence: opts.evidence } : {}) });
    if (opts.refuse) expect(await refusal(dev(`${s}/rounds/${roundId}/cards`, { position: 'P2', card: face() }))).toEqual({ status: 422, code: 'TABLEAU.VIOLATION' });
    await dev(`${s}/rounds/${roundId}/cards`, { position: 'B1', card: face() });
    await dev(`${s}/rounds/${roundId}/cards`, { position: 'P2', card: face() });
    await dev(`${s}/rounds/${roundId}/cards`, { position: 'B2', card: face() });
    return roundId;
  }

  /** A round voided by a card exposed while bets are open (§5.3). */
  async function exposedRound(i: number): Promise<string> {
    const roundId = `${shoeId}-R${++round}`;
    await dev(`${s}/rounds`, { roundId });
    await dev(`${s}/exposed-cards`, { card: `${2 + (i % 6)}${SUITS[Math.floor(i / 6) % 4]}` });
    return roundId;
  }

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('counts per dealer and shift, flags exactly the dealer who voids far more than the peers, and shows evidence in recall', async () => {
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-A' });
    await dev(`${s}/commencement`, { card: 'AS', evidence: { cameraId: 'CAM-01', timecode: '20:00:00:00' } });
    await dev(`${s}/burns`, { card: null });

    // shift 1: dealer A, 12 clean rounds, one refused card (round 3), one card with evidence (round 1)
    const evidence = { cameraId: 'CAM-07', timecode: '21:04:10:12', segmentRef: 'vms://site-1/cam-07/clip-0042' };
    const firstRound = await cleanRound({ evidence });
    for (let i = 2; i <= 12; i++) await cleanRound({ refuse: i === 3 });

    // malformed evidence: 400 EVIDENCE.INVALID, nothing appended
    const before = (await h.store.readStream(`shoe-${shoeId}`)).length;
    expect(await refusal(dev(`${s}/dealer`, { dealerId: 'dealer-B', evidence: { cameraId: 'CAM-1' } }))).toMatchObject({ status: 400 }); // no evidence on a dealer change
    const openBad = `${shoeId}-Rbad`;
    expect(await refusal(dev(`${s}/rounds`, { roundId: openBad, evidence: { cameraId: 'CAM-1' } }))).toMatchObject({ status: 400 });
    expect(await refusal(dev(`${s}/exposed-cards`, { card: '2S', evidence: { timecode: '25:00:00:00' } }))).toEqual({ status: 400, code: 'EVIDENCE.INVALID' });
    expect(await refusal(dev(`${s}/cut-card`, { evidence: { cameraId: 'CAM-1', operator: 'x' } }))).toEqual({ status: 400, code: 'EVIDENCE.INVALID' });
    expect(await refusal(h.client.post('pit-manager', 'pm-1', `${s}/rounds/${firstRound}/void`, { reason: 'camera review', evidence: {} }))).toEqual({ status: 400, code: 'EVIDENCE.INVALID' });
    expect((await h.store.readStream(`shoe-${shoeId}`)).length).toBe(before);

    // shift 2: dealer B, 12 rounds of which 8 voided by exposed cards
    await dev(`${s}/dealer`, { dealerId: 'dealer-B' });
    for (let i = 0; i < 12; i++) {
      if (i % 3 === 2) await cleanRound();
      else await exposedRound(i);
    }

    // shift 3: dealer A again, 2 rounds, the second voided by pm-1 + pm-2 with evidence
    await dev(`${s}/dealer`, { dealerId: 'dealer-A' });
    await cleanRound();
    const managed = await cleanRound();
    const requestEvidence = { cameraId: 'CAM-07', timecode: '22:10:00;05' };
    const req = await h.client.post('pit-manager', 'pm-1', `${s}/rounds/${managed}/void`, { reason: 'card misread, video reviewed', evidence: requestEvidence });
    const approveEvidence = { segmentRef: 'vms://site-1/cam-07/clip-0099' };
    await h.client.post('pit-manager', 'pm-2', `/decisions/${req.decisionId}/approve`, { evidence: approveEvidence });
    await dev(`${s}/close`);

    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h, stored[stored.length - 1].eventId);
    // the evidence is in the events' data, and only where it was given
    const withEvidence = stored.filter((e) => 'evidence' in (e.data as object) || 'evidence' in (((e.data as { decision?: object }).decision ?? {}) as object));
    expect(withEvidence.map((e) => e.type)).toEqual(['CommencementCardDrawn', 'CardDealt', 'DecisionRequested', 'DecisionApproved', 'RoundVoided']);
    const voided = stored.find((e) => e.type === 'RoundVoided' && (e.data as { cause: string }).cause === 'MANAGEMENT')!;
    expect((voided.data as { decision: { evidence: unknown } }).decision.evidence).toEqual(requestEvidence);

    // recall: the dealt card's evidence, and the decision's
    const r1 = await h.client.get('auditor', 'aud-1', `${s}/rounds/${firstRound}/recall`);
    const dealt = r1.events.find((e: any) => e.type === 'CardDealt' && e.data.position === 'P1');
    expect(dealt.evidence).toEqual(evidence);
    expect(r1.events.filter((e: any) => e.evidence).length).toBe(1);
    const r2 = await h.client.get('auditor', 'aud-1', `${s}/rounds/${managed}/recall`);
    expect(r2.decisions).toHaveLength(1);
    expect(r2.decisions[0]).toMatchObject({ status: 'APPROVED', evidence: { ...requestEvidence, segmentRef: null }, decisionEvidence: { cameraId: null, timecode: null, ...approveEvidence } });
    expect(r2.events.find((e: any) => e.type === 'RoundVoided').evidence).toEqual({ ...requestEvidence, segmentRef: null });

    // per dealer, with the flag rule lowered to 10 rounds (the e2e shoe is short)
    const byDealer = await h.client.get('auditor', 'aud-1', `/statistics/staff?groupBy=dealer&tableId=${TABLE}&minRounds=10`);
    expect(byDealer.header).toMatchObject({ report: 'statistics.staff', reportVersion: 1, noActivity: false, filters: { groupBy: 'dealer', tableId: TABLE, minRounds: '10' } });
    const A = byDealer.items.find((d: any) => d.dealerId === 'dealer-A');
    const B = byDealer.items.find((d: any) => d.dealerId === 'dealer-B');
    expect(byDealer.items).toHaveLength(2);
    expect(A).toMatchObject({ rounds: 14, roundsResulted: 14, voids: 1, corrections: 0, exposedCards: 0, refusals: 1, roundsWithRefusal: 1, voidRate: '0.0714', refusalRate: '0.0714', flagged: false });
    expect(B).toMatchObject({ rounds: 12, roundsResulted: 4, voids: 8, exposedCards: 8, refusals: 0, voidRate: '0.6667', flagged: true });
    const bVoid = B.tests.find((t: any) => t.metric === 'VOID_RATE');
    expect(bVoid).toMatchObject({ count: 8, rounds: 12, peerCount: 1, peerRounds: 14, flagged: true, z: '3.18' });
    expect(A.tests.find((t: any) => t.metric === 'VOID_RATE')).toMatchObject({ flagged: false, z: '-3.18' });
    for (const d of [A, B]) {
      expect(Number.isInteger(d.roundTimeMs.median)).toBe(true);
      expect(Number.isInteger(d.roundTimeMs.mean)).toBe(true);
      expect(d.roundTimeMs.median).toBeGreaterThanOrEqual(0);
    }

    // the small-sample guard: with the default of 30 rounds nobody is flagged
    const guarded = await h.client.get('auditor', 'aud-1', `/statistics/staff?tableId=${TABLE}`);
    expect(guarded.flagRule).toMatchObject({ minRounds: 30, zThreshold: '3' });
    expect(guarded.items.map((d: any) => d.flagged)).toEqual([false, false]);
    expect(guarded.items.find((d: any) => d.dealerId === 'dealer-B').tests[0].note).toMatch(/fewer than 30 rounds/);

    // per shift: A, B, A
    const byShift = await h.client.get('pit-manager', 'pm-9', `/statistics/staff?groupBy=shift&tableId=${TABLE}`);
    expect(byShift.items.map((x: any) => [x.dealerId, x.shoeId, x.rounds, x.voids, x.exposedCards, x.refusals])).toEqual([
      ['dealer-A', shoeId, 12, 0, 0, 1],
      ['dealer-B', shoeId, 12, 8, 8, 0],
      ['dealer-A', shoeId, 2, 1, 0, 0],
    ]);
    expect(byShift.items.every((x: any) => x.shiftStartedAt && x.shiftEndedAt && x.tests.length === 0)).toBe(true);

    // per table
    const byTable = await h.client.get('auditor', 'aud-1', `/statistics/staff?groupBy=table`);
    expect(byTable.items).toEqual([expect.objectContaining({ tableId: TABLE, dealerId: null, rounds: 26, voids: 9, exposedCards: 8, refusals: 1 })]);

    // pit managers
    const pms = await h.client.get('auditor', 'aud-1', `/statistics/staff?groupBy=pitManager`);
    expect(pms.items).toEqual([]);
    expect(pms.pitManagers).toEqual([
      expect.objectContaining({ managerId: 'pm-1', decisionsRequested: 1, decisionsApproved: 0, voidsRequested: 1, voidsApproved: 0 }),
      expect.objectContaining({ managerId: 'pm-2', decisionsRequested: 0, decisionsApproved: 1, voidsRequested: 0, voidsApproved: 1 }),
    ]);

    // a period with nothing in it says so; a filter on another variant too
    const empty = await h.client.get('auditor', 'aud-1', `/statistics/staff?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`);
    expect(empty).toMatchObject({ items: [], header: { noActivity: true, period: { from: '2001-01-01T00:00:00.000Z', to: '2001-01-02T00:00:00.000Z' } } });
    expect((await h.client.get('auditor', 'aud-1', `/statistics/staff?variant=tiger`)).items).toEqual([]);

    // CSV
    const csvAnswer = await fetch(`${h.baseUrl}/statistics/staff?groupBy=dealer&minRounds=10&format=csv`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` } });
    expect(JSON.parse(csvAnswer.headers.get('ledger-report-header')!)).toMatchObject({ title: 'Staff and table statistics', report: 'statistics.staff', noActivity: false });
    const csv = await csvAnswer.text();
    const lines = csv.trim().split('\n');
    expect(lines[0]).toMatch(/^dealerId,/);
    const head = lines.find((l) => l.startsWith('dealerId'))!.split(',');
    const bLine = lines.find((l) => l.startsWith('dealer-B'))!.split(',');
    expect(bLine[head.indexOf('voids')]).toBe('8');
    expect(bLine[head.indexOf('voidZ')]).toBe('3.18');
    expect(bLine[head.indexOf('flagged')]).toBe('true');

    // roles and bad queries
    expect(await refusal(h.client.get('table-device', DEVICE, `/statistics/staff`))).toMatchObject({ status: 403 });
    expect(await refusal(h.client.get('auditor', 'aud-1', `/statistics/staff?groupBy=croupier`))).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
    expect(await refusal(h.client.get('auditor', 'aud-1', `/statistics/staff?minRounds=3`))).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
    expect(await refusal(h.client.get('auditor', 'aud-1', `/statistics/staff?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`))).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
  });
});
