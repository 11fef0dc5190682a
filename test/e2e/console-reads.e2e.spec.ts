/**
 * The reads the back-office console is built on (apps/console; README "The HTTP API"): `GET /me`,
 * `GET /tables/overview`, `GET /shoes`, `GET /shoes/{shoeId}/rounds`, and every other read route's
 * answer checked against docs/openapi.json (test/support/openapi-contract.ts, strictly: no
 * undocumented field; the e2e tier checks every other answer too), so the console's generated
 * types tell the truth. Real PostgreSQL, Kafka, relay and projector
 * (in-process), the API over HTTP; two short shoes on one table with a void and a correction.
 */
import { generateShoeScript, runShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { readFileSync } from 'node:fs';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { ResponseContract } from '../support/openapi-contract';

jest.setTimeout(240_000);

const tables: (SimTable & { name: string })[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

/** A seeded shoe of a few rounds with a management void and a correction. */
function shoeWithVoidAndCorrection(table: SimTable, shoeId: string, maxRounds: number): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `console-${i}`, { shoeId, dealerId: 'dealer-7', accounts: 3, betChance: 0.7, maxRounds, managementVoidChance: 0.2, correctionChance: 0.2 });
    if (s.actions.some((a) => a.kind === 'voidRound') && s.actions.some((a) => a.kind === 'correctResult')) return s;
  }
  throw new Error('no seed gave a void and a correction');
}

async function waitApplied(h: LedgerHarness, eventId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await h.client.get('auditor', 'aud-1', `/projections/applied/${eventId}`);
    if (r.applied) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`event ${eventId} not projected within 60 s`);
}

describe('console reads: /me, /tables/overview, /shoes, /shoes/{id}/rounds, and every read answers its schema', () => {
  let h: LedgerHarness;
  let contract: ResponseContract;
  const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
  const older = runId('con-a');
  const newer = runId('con-b');

  /** GET as `role`: a 200 whose body fits the schema docs/openapi.json gives the route (also checked for every answer by contract.setup.ts). */
  async function read(role: 'pit-manager' | 'auditor' | 'table-device' | 'betting-platform', path: string, template: string): Promise<any> {
    const res = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${h.client.token(role, `${role}-c`)}` } });
    const text = await res.text();
    expect([path, res.status]).toEqual([path, 200]);
    const verdict = contract.check({ method: 'GET', url: path, status: res.status, contentType: res.headers.get('content-type') ?? '', body: text });
    expect([template, verdict]).toEqual([template, { kind: 'json', problems: [] }]);
    return JSON.parse(text);
  }

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    contract = await ResponseContract.create();
    for (const shoeId of [older, newer]) {
      await runShoeScript(shoeWithVoidAndCorrection(table, shoeId, 16), h.client);
      const stored = await h.store.readStream(`shoe-${shoeId}`);
      await waitApplied(h, stored[stored.length - 1].eventId);
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  it('GET /me tells each role who it is, its tables, the token expiry and the gaming day', async () => {
    for (const role of ['table-device', 'betting-platform', 'pit-manager', 'auditor'] as const) {
      const me = await read(role, '/me', '/me');
      expect(me).toMatchObject({ sub: `${role}-c`, role, gamingDay: { timeZone: 'UTC', cutoffHour: 6 } });
      expect(Date.parse(me.expiresAt)).toBeGreaterThan(Date.now());
      expect(me.tables === null).toBe(role !== 'table-device');
    }
  });

  it('GET /shoes lists shoes newest first in keyset pages, by table and status', async () => {
    const all = await read('auditor', `/shoes?tableId=${table.tableId}`, '/shoes');
    expect(all.items.map((s: any) => s.shoeId)).toEqual([newer, older]);
    expect(all.nextCursor).toBeNull();
    const first = await read('pit-manager', `/shoes?tableId=${table.tableId}&limit=1`, '/shoes');
    expect(first.items.map((s: any) => s.shoeId)).toEqual([newer]);
    const second = await read('pit-manager', `/shoes?tableId=${table.tableId}&limit=1&cursor=${first.nextCursor}`, '/shoes');
    expect(second.items.map((s: any) => s.shoeId)).toEqual([older]);
    expect(second.nextCursor).toBeNull();
    const state = await h.client.get('auditor', 'aud-1', `/shoes/${older}/state`);
    expect(second.items[0]).toEqual({
      shoeId: older,
      tableId: table.tableId,
      variant: table.variant,
      status: state.status,
      handNumber: state.handNumber,
      cardsRemaining: state.cardsRemaining,
      dealerId: state.dealerId,
      openedAt: state.openedAt,
      closedAt: state.closedAt,
      voided: state.voided,
      roundsPlayed: state.roundsPlayed,
    });
    expect((await read('auditor', `/shoes?tableId=${table.tableId}&status=VOIDED`, '/shoes')).items).toEqual([]);
    expect((await read('auditor', `/shoes?tableId=T-NONE`, '/shoes')).items).toEqual([]);
    const bad = await fetch(`${h.baseUrl}/shoes?cursor=abc`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'a')}` } });
    expect([bad.status, ((await bad.json()) as any).error.code]).toEqual([400, 'VALIDATION.FAILED']);
    const unknown = await fetch(`${h.baseUrl}/shoes?status=LOST`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'a')}` } });
    expect(unknown.status).toBe(400);
  });

  it('GET /shoes/{id}/rounds pages the rounds by hand number with their cards, positions and revisions; 404 for an unknown shoe', async () => {
    const rounds: any[] = [];
    let pages = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = await read('auditor', `/shoes/${newer}/rounds?limit=5${cursor ? `&cursor=${cursor}` : ''}`, '/shoes/{shoeId}/rounds');
      rounds.push(...page.items);
      cursor = page.nextCursor;
      pages++;
    }
    expect(rounds.length).toBeGreaterThan(5);
    expect(pages).toBe(Math.ceil(rounds.length / 5) + (rounds.length % 5 === 0 ? 1 : 0));
    expect(rounds.map((r) => r.handNumber)).toEqual(rounds.map((_, i) => i + 1));
    const voided = rounds.find((r) => r.status === 'VOIDED');
    const corrected = rounds.find((r) => r.status === 'CORRECTED');
    expect(voided.voidedAt).not.toBeNull();
    expect(voided.voidCause).toBe('MANAGEMENT');
    expect(corrected.correctedAt).not.toBeNull();
    expect(corrected.currentRevision).toBe(2);
    for (const r of rounds.filter((x) => x.status !== 'OPEN')) {
      // positions in dealing order, and the player's and banker's cards are the ones at their positions
      expect(r.cards.map((c: any) => c.index)).toEqual(r.cards.map((_: unknown, i: number) => i));
      const at = (side: 'P' | 'B') => r.cards.filter((c: any) => c.position?.startsWith(side)).map((c: any) => c.card);
      if (r.playerCards) expect(at('P')).toEqual(r.playerCards);
      if (r.bankerCards) expect(at('B')).toEqual(r.bankerCards);
      expect(r.cards.slice(0, 4).map((c: any) => c.position)).toEqual(['P1', 'B1', 'P2', 'B2']);
      expect(r.gamingDay).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const recall = await read('auditor', `/shoes/${newer}/rounds/${corrected.roundId}/recall`, '/shoes/{shoeId}/rounds/{roundId}/recall');
    expect(corrected.cards.map((c: any) => c.card)).toEqual(recall.round.cards);
    expect(corrected).toMatchObject({ winner: recall.round.winner, playerTotal: recall.round.playerTotal, gamingDay: recall.round.gamingDay });
    const res = await fetch(`${h.baseUrl}/shoes/no-such-shoe/rounds`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'a')}` } });
    expect([res.status, ((await res.json()) as any).error.code]).toEqual([404, 'SHOE.NOT_FOUND']);
  });

  it('GET /tables/overview gives every configured table with its latest shoe, last 12 results newest first, bead plate and big road', async () => {
    const o = await read('pit-manager', '/tables/overview', '/tables/overview');
    expect(o.tables.map((t: any) => t.tableId)).toEqual(tables.map((t) => t.tableId));
    const mine = o.tables.find((t: any) => t.tableId === table.tableId);
    expect(mine).toMatchObject({ name: table.name, variant: table.variant, currency: table.currency });
    expect(mine.shoe.shoeId).toBe(newer);
    const rounds = (await h.client.get('auditor', 'aud-1', `/shoes/${newer}/rounds?limit=1000`)).items;
    const newestFirst = [...rounds].reverse().slice(0, 12);
    expect(mine.lastResults.map((r: any) => r.roundId)).toEqual(newestFirst.map((r: any) => r.roundId));
    expect(mine.lastResults[0]).toEqual({
      roundId: newestFirst[0].roundId,
      handNumber: newestFirst[0].handNumber,
      status: newestFirst[0].status,
      winner: newestFirst[0].winner,
      playerTotal: newestFirst[0].playerTotal,
      bankerTotal: newestFirst[0].bankerTotal,
      playerPair: newestFirst[0].playerPair,
      bankerPair: newestFirst[0].bankerPair,
      isNatural: newestFirst[0].isNatural,
    });
    const roads = await read('auditor', `/shoes/${newer}/roads`, '/shoes/{shoeId}/roads');
    expect(mine.beadPlate).toEqual(roads.beadPlate);
    expect(mine.bigRoad).toEqual(roads.bigRoad);
    // a table without a shoe in this read model
    const empty = o.tables.find((t: any) => t.tableId !== table.tableId);
    expect(empty).toMatchObject({ shoe: null, lastResults: [], beadPlate: [], bigRoad: null });
    // recorded in the query log like every audit read
    const log = await h.client.get('auditor', 'aud-1', '/audit/access-log?actorId=pit-manager-c&limit=1000');
    expect(log.items.map((x: any) => x.route)).toContain('GET /tables/overview');
  });

  it('GET /audit/events with a time window pages in order of occurredAt then position, by its own cursor; a cursor of the other order is refused', async () => {
    const all = (await read('auditor', `/audit/events?shoeId=${older}&limit=1000`, '/audit/events')).items as { globalPosition: string; occurredAt: string }[];
    expect(all.length).toBeGreaterThan(10);
    const from = all[0].occurredAt;
    const to = new Date(Date.parse(all[all.length - 1].occurredAt) + 1).toISOString();
    const seen: { globalPosition: string; occurredAt: string }[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/audit/events?shoeId=${older}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await read('auditor', path, '/audit/events');
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    const byTime = [...all].filter((e) => e.occurredAt >= from).sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt) || Number(BigInt(a.globalPosition) - BigInt(b.globalPosition)));
    expect(seen.map((e) => e.globalPosition)).toEqual(byTime.map((e) => e.globalPosition));
    // a cursor of a global-order page on a time-window page, and the reverse: 400, not a page of something else
    const global = await h.client.get('auditor', 'aud-1', `/audit/events?shoeId=${older}&limit=3`);
    const timed = await h.client.get('auditor', 'aud-1', `/audit/events?shoeId=${older}&from=${encodeURIComponent(from)}&limit=3`);
    const auth = { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` };
    const crossed = [
      await fetch(`${h.baseUrl}/audit/events?shoeId=${older}&from=${encodeURIComponent(from)}&limit=3&cursor=${global.nextCursor}`, { headers: auth }),
      await fetch(`${h.baseUrl}/audit/events?shoeId=${older}&limit=3&cursor=${timed.nextCursor}`, { headers: auth }),
    ];
    for (const res of crossed) expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([400, 'VALIDATION.FAILED']);
  });

  it('every other read route answers the schema its document names', async () => {
    const rounds = (await h.client.get('auditor', 'aud-1', `/shoes/${older}/rounds?limit=1000`)).items;
    const voided = rounds.find((r: any) => r.status === 'VOIDED');
    const bet = (await h.client.get('auditor', 'aud-1', `/settlements?shoeId=${older}&limit=1`)).items[0];
    const decision = (await h.client.get('auditor', 'aud-1', `/decisions?shoeId=${older}`)).decisions[0];
    const stream = await read('table-device', `/shoes/${older}/events?limit=50`, '/shoes/{shoeId}/events');
    await read('betting-platform', '/tables', '/tables');
    await read('auditor', `/shoes/${older}/state`, '/shoes/{shoeId}/state');
    await read('auditor', `/shoes/${older}/roads`, '/shoes/{shoeId}/roads');
    await read('auditor', `/shoes/${older}/chain`, '/shoes/{shoeId}/chain');
    await read('auditor', `/tables/${table.tableId}/chain`, '/tables/{tableId}/chain');
    const recall = await read('auditor', `/shoes/${older}/rounds/${voided.roundId}/recall`, '/shoes/{shoeId}/rounds/{roundId}/recall');
    expect(recall.decisions.length).toBeGreaterThan(0);
    await read('auditor', `/audit/events?shoeId=${older}&limit=100`, '/audit/events');
    await read('auditor', `/audit/decisions?shoeId=${older}`, '/audit/decisions');
    await read('auditor', '/audit/access-log?limit=100', '/audit/access-log');
    await read('auditor', `/settlements?shoeId=${older}&limit=100`, '/settlements');
    await read('auditor', `/settlements/${bet.betId}`, '/settlements/{betId}');
    for (const groupBy of ['table,currency', 'shoe,dealer,day,currency', '']) await read('auditor', `/reports/reconciliation?groupBy=${groupBy}`, '/reports/reconciliation');
    await read('auditor', `/decisions?shoeId=${older}`, '/decisions');
    await read('pit-manager', `/decisions/${decision.decisionId}`, '/decisions/{decisionId}');
    await read('auditor', '/projections/status', '/projections/status');
    await read('table-device', `/projections/applied/${stream.events[0].eventId}`, '/projections/applied/{eventId}');
    await read('auditor', '/audit/anchors/verify', '/audit/anchors/verify');
  });
});
