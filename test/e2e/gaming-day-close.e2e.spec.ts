/**
 * Gaming-day close and adjustments (docs/reports.md §2), through the real API, relay and projector:
 * rounds dealt on day D, D closed by a pit manager (frozen, signed report), then a round of D
 * corrected with four eyes (request + approval). The frozen report stays byte-identical (stored and
 * recomputed from the events at its position), its signature verifies with the public key, and day
 * D+1's reconciliation report — and its close when the sweeper closes it — shows the correction as
 * an adjustment referencing the round, the closed day and the decision. `asOf` before the
 * correction gives the original result and settlements, after it the corrected ones.
 */
import { generateShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { publicKeyId, readPublicKeys } from '@ledger/anchors';
import { gamingDay } from '@ledger/projections';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GamingDayCloseService } from '../../apps/ledger/src/gaming-day-close/gaming-day-close.service';
import { GamingDayCloseSweeper } from '../../apps/ledger/src/gaming-day-close/close-sweeper';
import { nextDay } from '../../apps/ledger/src/kernel/closes/adjustments';
import { verifyReport } from '../../apps/ledger/src/kernel/closes/close-report';
import { CloseRecords } from '../../apps/ledger/src/kernel/closes/close-records';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { runActions, waitApplied, waitAsOf } from '../support/shoe-steps';

jest.setTimeout(300_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

function shoeWithCorrection(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `close-${i}`, { shoeId, dealerId: 'dealer-9', accounts: 4, betChance: 0.9, maxRounds: 10, managementVoidChance: 0.1, correctionChance: 0.3 });
    const k = s.actions.findIndex((a) => a.kind === 'correctResult');
    if (k > 0) return s;
  }
  throw new Error('no seed gave a correction');
}

describe('gaming-day close: frozen signed report, adjustments in the next day, asOf', () => {
  let h: LedgerHarness;
  const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
  const shoeId = runId('close');
  let script: ShoeScript;
  let k: number;
  let roundId: string;
  let day: string;
  let before: bigint;
  let after: bigint;
  let close: any;
  const token = (role: 'auditor' | 'pit-manager', sub: string) => h.client.token(role, sub);
  const get = (path: string) => h.client.get('auditor', 'aud-1', path);
  const call = (method: string, path: string, role: 'auditor' | 'pit-manager', body?: unknown, sub?: string) =>
    fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token(role, sub ?? (role === 'auditor' ? 'aud-1' : 'pm-1'))}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    h = await startLedger({ env: { GAMING_DAY_CLOSE_SWEEP_MS: '0' } });
    await h.startRelay();
    await h.startProjector();
    script = shoeWithCorrection(table, shoeId);
    k = script.actions.findIndex((a) => a.kind === 'correctResult');
    roundId = (script.actions[k] as { roundId: string }).roundId;
    await runActions(h.client, script, 0, k);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    before = BigInt(stored[stored.length - 1].globalPosition);
    await waitAsOf(h.baseUrl, token('auditor', 'aud-1'), before);
    day = (await get(`/shoes/${shoeId}/rounds/${roundId}/recall`)).round.gamingDay;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a day that does not exist is refused as a validation failure whose problems are a list, as every VALIDATION.FAILED', async () => {
    const bad = await call('POST', '/gaming-days/2026-02-30/close', 'pit-manager', { tableIds: [table.tableId] });
    expect([bad.status, ((await bad.json()) as any).error]).toEqual([400, { code: 'VALIDATION.FAILED', message: expect.any(String), details: { problems: ['day must be a date YYYY-MM-DD that exists'] } }]);
  });

  it('day D has not ended: a plain close is refused; an early close needs a reason and a second pit manager', async () => {
    expect((await call('POST', `/gaming-days/${day}/close`, 'auditor', { tableIds: [table.tableId] })).status).toBe(403);
    const plain = await call('POST', `/gaming-days/${day}/close`, 'pit-manager', { tableIds: [table.tableId] });
    expect([plain.status, ((await plain.json()) as any).error.code]).toEqual([422, 'GAMING_DAY.NOT_ENDED']);
    const noReason = await call('POST', `/gaming-days/${day}/close`, 'pit-manager', { tableIds: [table.tableId], early: true });
    expect([noReason.status, ((await noReason.json()) as any).error.code]).toEqual([422, 'MANAGEMENT.REASON_REQUIRED']);
    const asked = await call('POST', `/gaming-days/${day}/close`, 'pit-manager', { tableIds: [table.tableId], early: true, reason: 'table closes for maintenance' });
    expect(asked.status).toBe(202);
    const request = (await asked.json()) as any;
    expect(request).toMatchObject({ gamingDay: day, tableIds: [table.tableId], requestedBy: 'pm-1', status: 'PENDING_APPROVAL' });
    // nothing is closed yet; the requester cannot approve their own request
    expect((await call('GET', `/gaming-days/${day}/close`, 'auditor')).status).toBe(404);
    const pending = (await (await call('GET', `/gaming-days/${day}/close-requests`, 'pit-manager', undefined, 'pm-2')).json()) as any;
    expect(pending.items).toEqual([expect.objectContaining({ requestId: request.requestId, requestedBy: 'pm-1', status: 'PENDING_APPROVAL', approvedBy: null, closeEventId: null })]);
    expect(Date.parse(pending.items[0].expiresAt) - Date.parse(pending.items[0].requestedAt)).toBeLessThanOrEqual(3_600_000);
    const self = await call('POST', `/gaming-days/${day}/close-requests/${request.requestId}/approve`, 'pit-manager');
    expect([self.status, ((await self.json()) as any).error.code]).toEqual([422, 'MANAGEMENT.SAME_APPROVER']);
    const unknownRequest = await call('POST', `/gaming-days/${day}/close-requests/no-such-request/approve`, 'pit-manager', undefined, 'pm-2');
    expect([unknownRequest.status, ((await unknownRequest.json()) as any).error.code]).toEqual([404, 'DECISION.NOT_FOUND']);
    const res = await call('POST', `/gaming-days/${day}/close-requests/${request.requestId}/approve`, 'pit-manager', undefined, 'pm-2');
    expect(res.status).toBe(201);
    close = await res.json();
    expect(close).toMatchObject({
      gamingDay: day,
      tableIds: [table.tableId],
      trigger: 'MANAGER',
      closedBy: 'pm-2',
      early: { requestId: request.requestId, reason: 'table closes for maintenance', requestedBy: 'pm-1', approvedBy: 'pm-2' },
    });
    const done = (await (await call('GET', `/gaming-days/${day}/close-requests`, 'auditor')).json()) as any;
    expect(done.items).toEqual([expect.objectContaining({ requestId: request.requestId, status: 'APPROVED', approvedBy: 'pm-2', closeEventId: close.eventId })]);
    const again = await call('POST', `/gaming-days/${day}/close-requests/${request.requestId}/approve`, 'pit-manager', undefined, 'pm-3');
    expect([again.status, ((await again.json()) as any).error.code]).toEqual([422, 'DECISION.ALREADY_DECIDED']);
  });

  it('the close is a fact of the ledger: its GamingDayClosed event carries the report hash and signature, the request before it', async () => {
    const events = await h.store.readStream(h.app.get(CloseRecords).streamOf(day));
    expect(events.map((e) => [e.type, e.tableId, e.actor.id])).toEqual([
      ['GamingDayCloseRequested', '*', 'pm-1'],
      ['GamingDayClosed', '*', 'pm-2'],
    ]);
    const closed = events[1] as any;
    expect(closed.eventId).toBe(close.eventId);
    expect(closed.globalPosition).toBe(close.closeId);
    expect(closed.data).toMatchObject({ gamingDay: day, tableIds: [table.tableId], throughPosition: close.throughPosition, reportSha256: close.sha256, signature: close.signature, keyId: close.keyId, trigger: 'MANAGER' });
    // published like every event: applied by the projector, in the audit trail and the regulators' export
    await waitApplied(h.client, close.eventId);
    const audit = await get(`/audit/events?type=GamingDayClosed`);
    expect(audit.items.map((e: any) => [e.eventId, e.tableId, e.shoeId])).toEqual([[close.eventId, '*', null]]);
    const from = new Date(Date.parse(closed.recordedAt) - 1000).toISOString();
    const to = new Date(Date.parse(closed.recordedAt) + 1000).toISOString();
    const exported = await (await call('GET', `/exports/events?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, 'auditor')).text();
    expect(exported).toContain(close.eventId);
  });

  it('the close of day D is frozen at a position, signed, and fetched byte for byte', async () => {
    expect(BigInt(close.throughPosition)).toBeGreaterThanOrEqual(before);
    // the figures: the as-of reconciliation of the day's rounds at the close's position
    const rec = await get(`/reports/reconciliation?groupBy=table,dealer,currency&tableId=${table.tableId}&fromDay=${day}&toDay=${day}&asOf=${close.throughPosition}`);
    expect(close.report.rows).toEqual(rec.items);
    expect(close.report.rows.length).toBeGreaterThan(0);
    expect(close.report.header).toMatchObject({ report: 'gaming-day-close', period: { from: day, to: day }, noActivity: false });
    expect(close.report.header.software.version).toMatch(/\d/);
    // signature with the anchor signing key; the bytes are the canonical JSON of the report
    const keys = readPublicKeys(['.stack/anchors/anchor-public.pem']);
    const pub = keys.get(close.keyId)!;
    expect(publicKeyId(pub)).toBe(close.keyId);
    expect(verifyReport(Buffer.from(close.bytes, 'utf8'), close.signature, pub)).toBe(true);
    expect(createHash('sha256').update(close.bytes).digest('hex')).toBe(close.sha256);
    expect(JSON.parse(close.bytes)).toEqual(close.report);
    const raw = await call('GET', `/gaming-days/${day}/close?tableId=${table.tableId}&format=raw`, 'auditor');
    expect(raw.headers.get('x-report-signature')).toBe(close.signature);
    expect(raw.headers.get('content-type')).toBe('application/vnd.ledger.close-report+json');
    expect(await raw.text()).toBe(close.bytes);
    // the same bytes chosen by Accept alone (the media type the document declares for them)
    const byAccept = await fetch(`${h.baseUrl}/gaming-days/${day}/close?tableId=${table.tableId}`, { headers: { authorization: `Bearer ${token('auditor', 'aud-1')}`, accept: 'application/vnd.ledger.close-report+json' } });
    expect([byAccept.headers.get('content-type'), await byAccept.text()]).toEqual(['application/vnd.ledger.close-report+json', close.bytes]);
    // a second close of the same day and table: 409; a future day: 422; an unknown table: 404
    const again = await call('POST', `/gaming-days/${day}/close`, 'pit-manager', { tableIds: [table.tableId], early: true, reason: 'once more' });
    expect([again.status, ((await again.json()) as any).error.code]).toEqual([409, 'GAMING_DAY.ALREADY_CLOSED']);
    const future = await call('POST', `/gaming-days/2999-01-01/close`, 'pit-manager', {});
    expect([future.status, ((await future.json()) as any).error.code]).toEqual([422, 'GAMING_DAY.NOT_STARTED']);
    const unknown = await call('POST', `/gaming-days/${day}/close`, 'pit-manager', { tableIds: ['T-NONE'] });
    expect([unknown.status, ((await unknown.json()) as any).error.code]).toEqual([404, 'TABLE.UNKNOWN']);
    const notClosed = await call('GET', `/gaming-days/2001-01-01/close`, 'auditor');
    expect([notClosed.status, ((await notClosed.json()) as any).error.code]).toEqual([404, 'GAMING_DAY.NOT_CLOSED']);
  });

  it('a correction of a round of D after the close: the frozen report is byte-identical, and D+1 carries the adjustment', async () => {
    await runActions(h.client, script, k, k + 1); // request + approval (four eyes)
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const corrected = stored.find((e) => e.type === 'ResultCorrected' && (e.data as { roundId: string }).roundId === roundId)!;
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    after = BigInt(stored[stored.length - 1].globalPosition);
    await waitAsOf(h.baseUrl, token('auditor', 'aud-1'), after);

    // the frozen report: the same bytes stored, and the same bytes computed again from the events at its position
    const fetched = (await get(`/gaming-days/${day}/close?tableId=${table.tableId}`)).closes[0];
    expect(fetched.bytes).toBe(close.bytes);
    expect(fetched.signature).toBe(close.signature);
    const service = h.app.get(GamingDayCloseService);
    expect((await service.recompute(fetched)).toString('utf8')).toBe(close.bytes);
    // the live report of D has changed (the projection files the correction under the round's day)…
    const liveD = await get(`/reports/reconciliation?groupBy=table&tableId=${table.tableId}&fromDay=${day}&toDay=${day}`);
    expect(liveD.items[0].corrections).not.toBe(close.report.totals[0].corrections);

    // …and the next open day's report carries it as an adjustment referencing round, day and decision
    const recorded = gamingDay(corrected.recordedAt);
    const target = recorded === day ? nextDay(day) : recorded;
    const recall = await get(`/shoes/${shoeId}/rounds/${roundId}/recall`);
    const decision = recall.decisions.find((d: any) => d.kind === 'CORRECT_RESULT');
    const next = await get(`/reports/reconciliation?groupBy=table,currency&tableId=${table.tableId}&fromDay=${target}&toDay=${target}`);
    expect(next.adjustments).toHaveLength(1);
    const adj = next.adjustments[0];
    expect(adj).toMatchObject({
      roundId,
      shoeId,
      tableId: table.tableId,
      closedDay: day,
      closeId: close.closeId,
      targetDay: target,
      kind: 'CORRECTED',
      eventId: corrected.eventId,
      globalPosition: String(corrected.globalPosition),
      decisionId: decision.decisionId,
      actingManagerId: 'pm-1',
      approverId: 'pm-2',
      corrections: '1',
      turnover: '0',
    });
    // the money: the change of the round's payouts, bet by bet
    let payoutDelta = 0n;
    for (const b of recall.bets) payoutDelta += BigInt(b.history[b.history.length - 1].payout) - BigInt(b.history[0].payout);
    expect(adj.payouts).toBe(payoutDelta.toString());
    expect(adj.ggr).toBe((-payoutDelta).toString());
    expect(adj.correctionPayoutDelta).toBe(payoutDelta.toString());
    // not in day D's own report (it carries nothing), nor before the correction
    expect((await get(`/reports/reconciliation?groupBy=table&tableId=${table.tableId}&fromDay=${day}&toDay=${day}`)).adjustments).toEqual([]);
    expect((await get(`/reports/reconciliation?groupBy=table&tableId=${table.tableId}&fromDay=${target}&toDay=${target}&asOf=${before}`)).adjustments).toEqual([]);
    expect((await get(`/reports/reconciliation?groupBy=table&tableId=${table.tableId}&fromDay=${target}&toDay=${target}&asOf=${after}`)).adjustments).toEqual(next.adjustments);
  });

  it('asOf before the correction: the original result and settlements; after: the corrected ones', async () => {
    const then = await get(`/shoes/${shoeId}/rounds/${roundId}/recall?asOf=${close.throughPosition}`);
    const now = await get(`/shoes/${shoeId}/rounds/${roundId}/recall?asOf=${after}`);
    expect(then.round.status).toBe('RESULTED');
    expect(now.round.status).toBe('CORRECTED');
    expect(then.round.winner).toBe(now.revisions[0].winner);
    expect(now.round.winner).toBe(now.revisions[1].winner);
    const settledThen = await get(`/settlements?roundId=${roundId}&asOf=${close.throughPosition}`);
    const settledNow = await get(`/settlements?roundId=${roundId}&asOf=${after}`);
    expect(settledThen.items.map((s: any) => [s.status, s.payout])).toEqual(now.bets.map((b: any) => ['SETTLED', b.history[0].payout]));
    expect(settledNow.items.map((s: any) => [s.status, s.payout])).toEqual(now.bets.map((b: any) => ['RESETTLED', b.payout]));
    const time = new Date(Date.parse(then.events[then.events.length - 1].recordedAt)).toISOString();
    expect((await get(`/settlements/${now.bets[0].betId}?asOf=${time}`)).status).toBe('SETTLED');
  });

  it('the sweeper closes D+1 at its cut-off plus the grace period, carrying the adjustment, once', async () => {
    const sweeper = h.app.get(GamingDayCloseSweeper);
    const target = (await get(`/reports/reconciliation?groupBy=table&tableId=${table.tableId}&asOf=${after}`)).adjustments[0].targetDay;
    const [y, m, d] = target.split('-').map(Number);
    const at = new Date(Date.UTC(y, m - 1, d + 1, 6, 31)); // UTC, cut-off 06:00, grace 30 min
    expect(sweeper.dueDay(at)).toBe(target);
    expect(await sweeper.sweep(at)).toBe(target);
    expect(await sweeper.sweep(at)).toBeNull(); // already closed: nothing more
    const closes = (await get(`/gaming-days/${target}/close`)).closes;
    expect(closes).toHaveLength(1);
    expect(closes[0]).toMatchObject({ trigger: 'AUTOMATIC', closedBy: 'ledger' });
    expect(closes[0].tableIds).toEqual(tables.map((t) => t.tableId).sort());
    expect(closes[0].report.adjustments.map((a: any) => [a.roundId, a.closedDay, a.kind])).toEqual([[roundId, day, 'CORRECTED']]);
    expect(closes[0].report.rows).toEqual([]);
    const csv = await (await call('GET', `/gaming-days/${target}/close?format=csv`, 'auditor')).text();
    expect(csv.split('\n')[0]).toContain('section');
    expect(csv).toContain(`adjustment,${target}`);
    expect(csv).toContain(roundId);
    const list = (await get('/gaming-days/closes')).items;
    // day D itself was closed early for one table only: the sweeper closed its other tables once D had ended
    expect(list.map((c: any) => c.gamingDay)).toEqual([day, day, target]);
    expect(list.filter((c: any) => c.gamingDay === day).map((c: any) => [c.trigger, c.tableIds.includes(table.tableId)])).toEqual([
      ['MANAGER', true],
      ['AUTOMATIC', false],
    ]);
  });

  it('two closes of the same day at once (two API instances): one close, the other 409; the table refuses changes', async () => {
    const service = h.app.get(GamingDayCloseService);
    const later = nextDay(nextDay(day));
    const at = new Date(Date.parse(`${nextDay(later)}T12:00:00Z`)); // the day after: \`later\` has ended
    const actor = { id: 'ledger', role: 'system', trigger: 'AUTOMATIC' as const };
    const results = await Promise.allSettled([service.close(later, null, actor, at), service.close(later, null, actor, at)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.code).toBe('GAMING_DAY.ALREADY_CLOSED');
    expect((await get(`/gaming-days/${later}/close`)).closes).toHaveLength(1);
    // the stored reports are append-only, even for the owner; the close events are the ledger's
    await expect(h.ds.query(`UPDATE gaming_day_closes SET closed_by = 'x' WHERE event_id = $1`, [close.eventId])).rejects.toThrow(/append-only/);
    await expect(h.ds.query(`DELETE FROM events WHERE event_id = $1`, [close.eventId])).rejects.toThrow();
  });

  it('a sweeper that missed days (an outage) closes every finished, unclosed day, oldest first', async () => {
    const sweeper = h.app.get(GamingDayCloseSweeper);
    const closedDays = (await get('/gaming-days/closes')).items.map((c: any) => c.gamingDay).sort();
    const last = closedDays[closedDays.length - 1];
    const [y, m, d] = last.split('-').map(Number);
    const at = new Date(Date.UTC(y, m - 1, d + 4, 6, 31)); // three more days have ended since the last close
    const missed = [1, 2, 3].map((k) => new Date(Date.UTC(y, m - 1, d + k)).toISOString().slice(0, 10));
    expect((await sweeper.dueDays(at)).slice(-3)).toEqual(missed);
    expect(await sweeper.sweep(at)).toBe(missed[2]);
    for (const day of missed) expect((await get(`/gaming-days/${day}/close`)).closes.map((c: any) => c.trigger)).toEqual(['AUTOMATIC']);
    expect(await sweeper.sweep(at)).toBeNull();
  });
});
