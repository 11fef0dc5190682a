/**
 * "As known at time T" (docs/reports.md §3): the reconciliation report (every grouping, JSON and
 * CSV), the settlements (list and one bet) and the round recall accept `asOf` (a global position or
 * an ISO time) and answer from the events' projection rows as the ledger knew them then. Invariants:
 * as of the latest position they equal the live answers; as of an earlier position the reconciliation
 * equals the live answer sampled then, whatever was corrected since (history, not a second opinion). Before a correction, the original result
 * and settlements; after, the corrected ones. Real PostgreSQL, Kafka, relay and projector.
 */
import { generateShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { readFileSync } from 'node:fs';
import { droppedTotal } from '../../apps/ledger/src/kernel/as-of/dropped-total';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { runActions, waitApplied, waitAsOf } from '../support/shoe-steps';

jest.setTimeout(300_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;
const DIMENSIONS = ['table', 'shoe', 'dealer', 'day', 'currency'];
const SAMPLED_GROUPINGS = ['', 'table,currency', 'shoe', 'day,dealer', 'table,shoe,dealer,day,currency'];

function shoeWithVoidAndCorrection(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `asof-${i}`, { shoeId, dealerId: 'dealer-4', accounts: 4, betChance: 0.9, maxRounds: 14, managementVoidChance: 0.2, correctionChance: 0.25 });
    const firstCorrection = s.actions.findIndex((a) => a.kind === 'correctResult');
    if (firstCorrection > 0 && s.actions.slice(0, firstCorrection).some((a) => a.kind === 'voidRound')) return s;
  }
  throw new Error('no seed gave a void before a correction');
}

describe('asOf on reconciliation, settlements and recall', () => {
  let h: LedgerHarness;
  const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
  const shoeId = runId('asof');
  let script: ShoeScript;
  let corrected: { roundId: string };
  let before: bigint;
  let latest: bigint;
  /** Live reconciliation answers sampled at `before` (then a correction and more rounds happen), and the time just after. */
  const samples = new Map<string, unknown>();
  let sampledAt: string;
  const get = (path: string) => h.client.get('auditor', 'aud-1', path);
  const raw = (path: string) => fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` } });

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    script = shoeWithVoidAndCorrection(table, shoeId);
    const k = script.actions.findIndex((a) => a.kind === 'correctResult');
    corrected = script.actions[k] as { roundId: string } & ShoeScript['actions'][number];
    await runActions(h.client, script, 0, k);
    let stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    before = BigInt(stored[stored.length - 1].globalPosition);
    await waitAsOf(h.baseUrl, h.client.token('auditor', 'aud-1'), before);
    for (const g of SAMPLED_GROUPINGS) {
      for (const filter of [`&shoeId=${shoeId}`, '']) {
        const path = `/reports/reconciliation?groupBy=${g}${filter}`;
        samples.set(path, (await get(path)).items);
      }
    }
    sampledAt = new Date().toISOString();
    await runActions(h.client, script, k);
    stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    latest = BigInt(stored[stored.length - 1].globalPosition);
    await waitAsOf(h.baseUrl, h.client.token('auditor', 'aud-1'), latest);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('as of the latest position, the reconciliation equals the live one in every grouping (JSON and CSV), dropped total included', async () => {
    const groupings: string[] = [];
    for (let mask = 0; mask < 32; mask++) groupings.push(DIMENSIONS.filter((_, i) => mask & (1 << i)).join(','));
    for (const g of groupings) {
      for (const filter of [`&shoeId=${shoeId}`, '']) {
        const live = await get(`/reports/reconciliation?groupBy=${g}${filter}`);
        const asOf = await get(`/reports/reconciliation?groupBy=${g}${filter}&asOf=${latest}`);
        expect([g, asOf.items]).toEqual([g, live.items]);
        expect(asOf.asOfPosition).toBe(latest.toString());
      }
    }
    const csvLive = await (await raw(`/reports/reconciliation?groupBy=day,dealer&shoeId=${shoeId}&format=csv`)).text();
    const csvAsOf = await (await raw(`/reports/reconciliation?groupBy=day,dealer&shoeId=${shoeId}&format=csv&asOf=${latest}`)).text();
    expect(csvAsOf).toBe(csvLive);
    expect(csvLive.split('\n')[0]).toContain('dropped');
    // an ISO time after everything: the same answer
    const byTime = await get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}&asOf=${new Date().toISOString()}`);
    expect(byTime.items).toEqual((await get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`)).items);
    // the dropped total is the exact sum of the dropped fractions of the settlements in force
    const settlements = (await get(`/settlements?shoeId=${shoeId}&limit=1000`)).items;
    const inForce = settlements.filter((s: any) => s.status === 'SETTLED' || s.status === 'RESETTLED').map((s: any) => s.dropped);
    expect(byTime.items[0].dropped).toBe(droppedTotal(inForce));
  });

  it('as-of is history, not a second opinion: after a four-eyes correction and more rounds, the reconciliation as of the sampled position equals the live answer sampled then', async () => {
    expect(samples.size).toBe(SAMPLED_GROUPINGS.length * 2);
    for (const [path, sampled] of samples) {
      expect([path, (await get(`${path}&asOf=${before}`)).items]).toEqual([path, sampled]);
      expect([path, (await get(`${path}&asOf=${sampledAt}`)).items]).toEqual([path, sampled]);
    }
    // and something did change since: the correction (and the rounds after it) are in the live answer, not in the sample
    const liveNow = (await get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`)).items;
    const sampled = samples.get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`) as { corrections: string }[];
    expect(BigInt(liveNow[0].corrections)).toBeGreaterThan(BigInt(sampled[0].corrections));
  });

  it('as of the latest position, settlements and recall equal the live ones', async () => {
    const live = await get(`/settlements?shoeId=${shoeId}&limit=1000`);
    expect(await get(`/settlements?shoeId=${shoeId}&limit=1000&asOf=${latest}`)).toEqual(live);
    const page1 = await get(`/settlements?shoeId=${shoeId}&limit=3&asOf=${latest}`);
    const page2 = await get(`/settlements?shoeId=${shoeId}&limit=3&asOf=${latest}&cursor=${page1.nextCursor}`);
    expect([...page1.items, ...page2.items]).toEqual(live.items.slice(0, 6));
    const rounds = (await get(`/shoes/${shoeId}/rounds?limit=1000`)).items;
    for (const r of rounds) {
      const a = await get(`/shoes/${shoeId}/rounds/${r.roundId}/recall`);
      const b = await get(`/shoes/${shoeId}/rounds/${r.roundId}/recall?asOf=${latest}`);
      expect({ round: b.round, revisions: b.revisions, events: b.events, decisions: b.decisions, bets: b.bets }).toEqual({
        round: a.round,
        revisions: a.revisions,
        events: a.events,
        decisions: a.decisions,
        bets: a.bets,
      });
    }
    const bet = live.items[0];
    expect(await get(`/settlements/${bet.betId}?asOf=${latest}`)).toEqual(await get(`/settlements/${bet.betId}`));
  });

  it('before the correction: the original result and settlements; after: the corrected ones', async () => {
    const now = await get(`/shoes/${shoeId}/rounds/${corrected.roundId}/recall`);
    const then = await get(`/shoes/${shoeId}/rounds/${corrected.roundId}/recall?asOf=${before}`);
    expect(now.round.status).toBe('CORRECTED');
    expect(then.round.status).toBe('RESULTED');
    expect(then.revisions.map((r: any) => r.kind)).toEqual(['RESULTED']);
    expect(then.round.currentRevision).toBe(1);
    const original = now.revisions[0];
    expect({ winner: then.round.winner, playerCards: then.round.playerCards, bankerCards: then.round.bankerCards }).toEqual({
      winner: original.winner,
      playerCards: original.playerCards,
      bankerCards: original.bankerCards,
    });
    expect(then.events.every((e: any) => BigInt(e.globalPosition) <= before)).toBe(true);
    expect(then.events.some((e: any) => e.type === 'ResultCorrected')).toBe(false);
    expect(then.decisions.filter((d: any) => d.kind === 'CORRECT_RESULT')).toEqual([]);
    expect(now.bets.length).toBeGreaterThan(0);
    for (const b of now.bets) {
      const first = b.history[0];
      const old = then.bets.find((x: any) => x.betId === b.betId);
      expect(old).toMatchObject({ status: 'SETTLED', revision: 1, result: first.result, payout: first.payout, winnings: first.winnings, history: [first] });
      expect(b).toMatchObject({ status: 'RESETTLED', revision: 2 });
      const one = await get(`/settlements/${b.betId}?asOf=${before}`);
      const { betId: _b, ...firstOfBet } = first;
      expect(one).toMatchObject({ status: 'SETTLED', payout: first.payout, history: [firstOfBet] });
      const oneNow = await get(`/settlements/${b.betId}?asOf=${latest}`);
      expect(oneNow).toMatchObject({ status: 'RESETTLED', payout: b.payout });
    }
    const listThen = await get(`/settlements?roundId=${corrected.roundId}&asOf=${before}`);
    expect(listThen.items.every((s: any) => s.status === 'SETTLED')).toBe(true);
    // the reconciliation then has no correction for this shoe; now it has
    const recThen = await get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}&asOf=${before}`);
    const recNow = await get(`/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}`);
    expect(BigInt(recThen.items[0].corrections)).toBeLessThan(BigInt(recNow.items[0].corrections));
  });

  it('refuses an asOf the read model has not reached (409 ASOF.NOT_PROJECTED) and a malformed one (400)', async () => {
    const far = await raw(`/reports/reconciliation?asOf=${latest + 1_000_000_000n}`);
    expect([far.status, ((await far.json()) as any).error.code]).toEqual([409, 'ASOF.NOT_PROJECTED']);
    for (const bad of ['-1', 'yesterday', '01', '2026-13-01']) {
      const r = await raw(`/settlements?asOf=${bad}`);
      expect([bad, r.status]).toEqual([bad, 400]);
    }
    const gone = await raw(`/shoes/${shoeId}/rounds/${corrected.roundId}/recall?asOf=0`);
    expect([gone.status, ((await gone.json()) as any).error.code]).toEqual([404, 'ROUND.NOT_FOUND']);
  });
});
