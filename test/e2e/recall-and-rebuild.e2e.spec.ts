/**
 * Recall and rebuild (docs/guarantees.md §7, §9): after a shoe with a void and a correction, recall through the API shows the
 * whole history in order, and the rebuilt checksums equal the live ones. Real PostgreSQL, real
 * Kafka, the real relay and projector (in-process), the API over HTTP.
 */
import { generateShoeScript, runShoeScript, ShoeScript, SimTable } from '@ledger/simulator';
import { projectionChecksums, rebuildProjections } from '@ledger/projections';
import { readFileSync } from 'node:fs';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

/** A short seeded shoe that has at least one management void and one result correction. */
function shoeWithVoidAndCorrection(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `recall-${i}`, {
      shoeId,
      dealerId: 'dealer-3',
      accounts: 5,
      betChance: 0.8,
      maxRounds: 14,
      managementVoidChance: 0.2,
      correctionChance: 0.2,
      exposedCardChance: 0.05,
    });
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

describe('recall and rebuild after voids and corrections', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('recalls voided and corrected rounds with their whole history, and a rebuild has the live checksums', async () => {
    const table = tables.find((t) => t.tableId === 'T-FAB4-01')!;
    const shoeId = runId('recall');
    // this test's own reads in the access log (the shared test database holds other suites' rows of aud-1)
    const since = new Date().toISOString();
    const script = shoeWithVoidAndCorrection(table, shoeId);
    const stats = await runShoeScript(script, h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h, stored[stored.length - 1].eventId);

    // every void and correction went in two steps: requested by pm-1, then approved by pm-2 with their own token
    const decisions = script.actions.filter((a) => a.kind === 'voidRound' || a.kind === 'correctResult').length;
    expect(stats.approvals).toBe(decisions);
    // read loosely: the four-eyes event types are newer than some builds of the event catalogue
    const events = stored as unknown as { type: string; actor: { id: string; role: string }; data: Record<string, unknown> }[];
    const requests = events.filter((e) => e.type === 'DecisionRequested');
    const approvals = events.filter((e) => e.type === 'DecisionApproved');
    expect([requests.length, approvals.length]).toEqual([decisions, decisions]);
    expect(requests.every((e) => e.actor.id === 'pm-1' && e.actor.role === 'pit-manager')).toBe(true);
    expect(approvals.every((e) => e.actor.id === 'pm-2' && e.actor.role === 'pit-manager')).toBe(true);
    for (const approval of approvals) {
      // the approval comes after its request, and the compensating event right after the approval
      const at = events.indexOf(approval);
      const decisionId = approval.data.decisionId;
      expect(events.slice(0, at).some((e) => e.type === 'DecisionRequested' && e.data.decisionId === decisionId)).toBe(true);
      expect(['RoundVoided', 'ResultCorrected']).toContain(events[at + 1].type);
      expect(events[at + 1].data.decision).toMatchObject({ actingManagerId: 'pm-1', approverId: 'pm-2', decisionId });
    }

    // a management void: RESULTED then VOIDED, who and why, every stake refunded
    const voided = script.actions.find((a) => a.kind === 'voidRound') as { roundId: string; reason: string };
    const recallV = await h.client.get('auditor', 'aud-1', `/shoes/${shoeId}/rounds/${voided.roundId}/recall`);
    expect(recallV.round.status).toBe('VOIDED');
    expect(recallV.revisions.map((r: any) => r.kind)).toEqual(['RESULTED', 'VOIDED']);
    expect(recallV.revisions[1]).toMatchObject({ reason: voided.reason, actingManagerId: 'pm-1', approverId: 'pm-2', actorRole: 'pit-manager' });
    const versions = recallV.events.map((e: any) => e.streamVersion);
    expect(versions).toEqual([...versions].sort((a: number, b: number) => a - b));
    expect(recallV.events[0].type).toBe('RoundOpened');
    expect(recallV.events.map((e: any) => e.type)).toContain('RoundVoided');
    for (const b of recallV.bets) {
      expect(b.status).toBe('REFUNDED');
      expect(b.history.map((x: any) => x.kind)).toEqual(['SETTLED', 'REFUNDED']);
    }
    expect(recallV.chain.ok).toBe(true);

    // a correction: both versions of the result, every bet re-settled at revision 2
    const corrected = script.actions.find((a) => a.kind === 'correctResult') as { roundId: string; cards: string[] };
    const recallC = await h.client.get('auditor', 'aud-1', `/shoes/${shoeId}/rounds/${corrected.roundId}/recall`);
    expect(recallC.round.status).toBe('CORRECTED');
    expect(recallC.revisions.map((r: any) => r.kind)).toEqual(['RESULTED', 'CORRECTED']);
    expect(recallC.revisions[1].cards).toEqual(corrected.cards);
    expect(recallC.revisions[0].cards).not.toEqual(corrected.cards);
    for (const b of recallC.bets) {
      expect(b.status).toBe('RESETTLED');
      expect(b.revision).toBe(2);
      expect(b.history.map((x: any) => x.kind)).toEqual(['SETTLED', 'RESETTLED']);
    }

    // reconciliation: GGR = turnover − payouts, voids apart; the settlements list agrees with it
    const rec = await h.client.get('auditor', 'aud-1', `/reports/reconciliation?groupBy=shoe,currency&shoeId=${shoeId}`);
    expect(rec.items).toHaveLength(1);
    const row = rec.items[0];
    expect(BigInt(row.ggr)).toBe(BigInt(row.turnover) - BigInt(row.payouts));
    expect(BigInt(row.voidedStakes)).toBeGreaterThan(0n);
    let turnover = 0n;
    let payouts = 0n;
    let voidedStakes = 0n;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = await h.client.get('auditor', 'aud-1', `/settlements?shoeId=${shoeId}&limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      for (const s of page.items) {
        if (s.status === 'REFUNDED') voidedStakes += BigInt(s.stake);
        else {
          turnover += BigInt(s.stake);
          payouts += BigInt(s.payout);
        }
      }
      cursor = page.nextCursor;
    }
    expect({ turnover: row.turnover, payouts: row.payouts, voidedStakes: row.voidedStakes }).toEqual({
      turnover: turnover.toString(),
      payouts: payouts.toString(),
      voidedStakes: voidedStakes.toString(),
    });
    const csv: string = await fetch(`${h.baseUrl}/reports/reconciliation?groupBy=shoe&shoeId=${shoeId}&format=csv`, {
      headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` },
    }).then((r) => r.text());
    expect(csv.split('\n')[0]).toContain('turnover');
    expect(csv).toContain(row.ggr);

    // who looked at what
    const log = await h.client.get('pit-manager', 'pm-9', `/audit/access-log?actorId=aud-1&from=${encodeURIComponent(since)}&limit=1000`);
    expect(log.items.some((e: any) => e.route.includes('recall'))).toBe(true);

    // rebuild from offset zero into a scratch schema: the same checksums as live
    const live = await projectionChecksums(h.ds, h.readSchema, ALL_PROJECTIONS);
    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds: h.ds, kafka: h.kafka, topic: h.topic, schema: `${h.readSchema}_rb`, checkpointGroup: 'rebuild-check' });
    expect(rebuilt.events).toBe(stored.length);
    expect(rebuilt.checksums).toEqual(live);
  });
});
