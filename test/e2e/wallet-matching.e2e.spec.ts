/**
 * Wallet matching (docs/reports.md §4) end to end: rounds dealt through the API (with a management
 * void, so settled bets are refunded), the relay and projector running, a wallet file built from
 * `GET /settlements` with four injected faults — a missing win, a doubled refund, an amount off by
 * one minor unit, an unknown bet — uploaded as CSV with a column mapping; the match finds exactly
 * those and matches the rest; the run, its items and their CSV read back; a bad file is refused with
 * its line and stores nothing. Real PostgreSQL, real Kafka.
 */
import { generateShoeScript, runShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

/** A short seeded shoe with a management void of a round that has bets (its settled bets get refunded). */
function shoeWithRefunds(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `wallet-${i}`, { shoeId, dealerId: 'dealer-w', accounts: 4, betChance: 0.8, maxRounds: 10, managementVoidChance: 0.25 });
    const betRounds = new Set(s.actions.filter((a) => a.kind === 'bets').map((a) => (a as { roundId: string }).roundId));
    if (s.actions.some((a) => a.kind === 'voidRound' && betRounds.has((a as { roundId: string }).roundId))) return s;
  }
  throw new Error('no seed gave a void of a round with bets');
}

interface WalletLine {
  txn_id: string;
  roundId: string;
  betId: string;
  accountId: string;
  type: string;
  amount: string;
  currency: string;
  time: string;
}

const csvOf = (rows: readonly WalletLine[]) =>
  ['txn_id,roundId,betId,accountId,type,amount,currency,time', ...rows.map((r) => [r.txn_id, r.roundId, r.betId, r.accountId, r.type, r.amount, r.currency, r.time].join(','))].join('\n') + '\n';

describe('wallet matching', () => {
  let h: LedgerHarness;
  let auth: { authorization: string };
  let pm: { authorization: string };
  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    auth = { authorization: `Bearer ${h.client.token('auditor', 'aud-w')}` };
    pm = { authorization: `Bearer ${h.client.token('pit-manager', 'pm-w')}` };
  });
  afterAll(async () => {
    await h?.close();
  });

  async function waitApplied(eventId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if ((await h.client.get('auditor', 'aud-w', `/projections/applied/${eventId}`)).applied) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`event ${eventId} not projected within 60 s`);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an answer the contract check validates
  const json = async (r: Response): Promise<any> => r.json();
  const upload = (body: string, query: string, contentType = 'text/csv') => fetch(`${h.baseUrl}/reconciliation/wallet-files${query}`, { method: 'POST', headers: { ...pm, 'content-type': contentType }, body });
  const runCount = async () => Number((await h.ds.query(`SELECT count(*)::int AS n FROM wallet_match_runs`))[0].n);

  it('finds exactly the injected faults, matches the rest, and serves the run as JSON and CSV', async () => {
    const shoeId = runId('wallet');
    const script = shoeWithRefunds(
      tables.find((t) => t.tableId === 'T-CLASSIC-01')!,
      shoeId,
    );
    const t0 = new Date().toISOString();
    await runShoeScript(script, h.client);
    const t1 = new Date(Date.now() + 1).toISOString();
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(stored[stored.length - 1].eventId);

    // the wallet file from the ledger's own settlements: every movement that is not 0
    const list = await h.client.get('auditor', 'aud-w', `/settlements?shoeId=${shoeId}&limit=1000`);
    const lines: WalletLine[] = [];
    for (const b of list.items) {
      expect(b.betTransactionId).toBe(`${b.betId}:bet`);
      const bet = await h.client.get('auditor', 'aud-w', `/settlements/${encodeURIComponent(b.betId)}`);
      const line = (txn: string, type: string, amount: string, time: string) => ({ txn_id: txn, roundId: b.roundId, betId: b.betId, accountId: b.accountId, type, amount, currency: b.currency, time });
      lines.push(line(bet.betTransactionId, 'bet', bet.stake, bet.placedAt));
      for (const e of bet.history) {
        expect(e.transactionId).toBe(`${b.betId}:${e.kind === 'REFUNDED' ? 'refund' : 'win'}:${e.revision}`);
        if (e.walletAmount !== '0') lines.push(line(e.transactionId, e.kind === 'REFUNDED' ? 'refund' : 'win', e.walletAmount, e.occurredAt));
      }
    }
    const win = lines.find((l) => l.type === 'win' && BigInt(l.amount) > 0n)!;
    const refund = lines.find((l) => l.type === 'refund')!;
    const offByOne = lines.find((l) => l.type === 'bet')!;
    expect([win, refund, offByOne].every(Boolean)).toBe(true);
    const ghost = { ...offByOne, txn_id: `${shoeId}-ghost:bet`, betId: `${shoeId}-ghost`, amount: '500' };
    // a bet the wallet booked against another round: FIELDS_DIFFER, with the wallet's round shown
    const misfiled = lines.find((l) => l.type === 'bet' && l !== offByOne && l.betId !== refund.betId)!;
    const file = [...lines.filter((l) => l !== win).map((l) => (l === offByOne ? { ...l, amount: String(BigInt(l.amount) + 1n) } : l === misfiled ? { ...l, roundId: 'R-wallet-9' } : l)), { ...refund }, ghost];

    const res = await upload(csvOf(file), '?map.transactionId=txn_id');
    const run = await json(res);
    expect(res.status).toBe(201);
    expect(run.totals).toEqual({ MATCHED: lines.length - 3, MISSING_IN_WALLET: 1, MISSING_IN_LEDGER: 1, AMOUNT_DIFFERS: 1, FIELDS_DIFFER: 1, DUPLICATED: 1 });
    expect(run.file).toMatchObject({ format: 'csv', rows: file.length });
    expect(run.header).toMatchObject({ report: 'wallet-match', title: 'Wallet match', noActivity: false, filters: { 'map.transactionId': 'txn_id', scope: 'file' } });
    expect(run.scope.fromDay).toBe(run.scope.toDay);

    const page = await h.client.get('auditor', 'aud-w', `/reconciliation/wallet-files/${run.runId}/items?limit=1000`);
    const findings = page.items
      .filter((i: { status: string }) => i.status !== 'MATCHED')
      .map((i: { status: string; transactionId: string; ledgerAmount: string | null; walletAmount: string | null }) => [i.status, i.transactionId, i.ledgerAmount, i.walletAmount]);
    expect(findings).toHaveLength(5);
    expect(findings).toEqual(
      expect.arrayContaining([
        ['FIELDS_DIFFER', misfiled.txn_id, misfiled.amount, misfiled.amount],
        ['MISSING_IN_WALLET', win.txn_id, win.amount, null],
        ['DUPLICATED', refund.txn_id, refund.amount, refund.amount],
        ['AMOUNT_DIFFERS', offByOne.txn_id, offByOne.amount, String(BigInt(offByOne.amount) + 1n)],
        ['MISSING_IN_LEDGER', ghost.txn_id, null, '500'],
      ]),
    );
    // the wallet's value where fields differ, beside the ledger's
    const fieldsDiffer = page.items.find((i: { status: string }) => i.status === 'FIELDS_DIFFER');
    expect(fieldsDiffer).toMatchObject({ roundId: misfiled.roundId, differences: ['roundId'], walletValues: { roundId: 'R-wallet-9' } });
    expect(page.items.find((i: { status: string }) => i.status === 'AMOUNT_DIFFERS')).toMatchObject({ differences: ['amount'], walletValues: {} });
    // the same file over the time period of the shoe instead of its gaming day: the same findings
    const again = await json(await upload(csvOf(file), `?map.transactionId=txn_id&from=${encodeURIComponent(t0)}&to=${encodeURIComponent(t1)}`));
    expect(again.totals).toEqual(run.totals);
    expect(again.scope).toMatchObject({ source: 'period', from: t0, fromDay: null });
    expect(again.header.period).toEqual({ from: t0, to: t1 });

    // a refund of a settled bet: the movements of the bet add up to 0
    const refunded = lines.filter((l) => l.betId === refund.betId);
    expect(refunded.reduce((n, l) => n + (l.type === 'bet' ? -BigInt(l.amount) : BigInt(l.amount)), 0n)).toBe(0n);

    // the summary per currency and gaming day adds up to the totals
    const summed = run.summary.reduce((n: number, s: { counts: Record<string, number> }) => n + Object.values(s.counts).reduce((a, b) => a + b, 0), 0);
    expect(summed).toBe(run.itemCount);
    expect(run.summary[0]).toMatchObject({ currency: win.currency });

    // the same run read back, listed, and its items as CSV
    expect(await h.client.get('auditor', 'aud-w', `/reconciliation/wallet-files/${run.runId}`)).toMatchObject({ runId: run.runId, totals: run.totals });
    const runs = await h.client.get('pit-manager', 'pm-w', `/reconciliation/wallet-files?limit=5`);
    expect(runs.items.map((r: { runId: string }) => r.runId).slice(0, 2)).toEqual([again.runId, run.runId]);
    // the page after the newest run (whatever other runs the database holds from other suites)
    const newest = await h.client.get('auditor', 'aud-w', '/reconciliation/wallet-files?limit=1');
    const next = await h.client.get('auditor', 'aud-w', `/reconciliation/wallet-files?limit=1&cursor=${newest.nextCursor}`);
    expect(next.items[0].runId).toBe(run.runId);
    const csvRes = await fetch(`${h.baseUrl}/reconciliation/wallet-files/${run.runId}/items?format=csv`, { headers: auth });
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(JSON.parse(csvRes.headers.get('ledger-report-header')!)).toMatchObject({ report: 'wallet-match' });
    const csvRows: Record<string, string>[] = parse(await csvRes.text(), { columns: true });
    expect(csvRows).toHaveLength(run.itemCount);
    expect(
      csvRows
        .filter((r) => r.status !== 'MATCHED')
        .map((r) => r.transactionId)
        .sort(),
    ).toEqual([win.txn_id, refund.txn_id, offByOne.txn_id, ghost.txn_id, misfiled.txn_id].sort());
    expect(csvRows.find((r) => r.status === 'FIELDS_DIFFER')).toMatchObject({ roundId: misfiled.roundId, differences: 'roundId', walletRoundId: 'R-wallet-9', walletBetId: '' });
    const onlyMissing = await h.client.get('auditor', 'aud-w', `/reconciliation/wallet-files/${run.runId}/items?status=MISSING_IN_WALLET`);
    expect(onlyMissing.items.map((i: { transactionId: string }) => i.transactionId)).toEqual([win.txn_id]);

    // an auditor reads the runs but may not upload (auditors only read); a table device may not even read
    const byAuditor = await fetch(`${h.baseUrl}/reconciliation/wallet-files`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: csvOf(file) });
    expect([byAuditor.status, (await json(byAuditor)).error.code]).toEqual([403, 'AUTH.FORBIDDEN']);
    const device = await fetch(`${h.baseUrl}/reconciliation/wallet-files`, { headers: { authorization: `Bearer ${h.client.token('table-device', 'device-1')}` } });
    expect(device.status).toBe(403);
  });

  it('refuses a bad file with the line of each bad row and stores no run', async () => {
    const before = await runCount();
    const bad = ['transactionId,type,amount,currency,time', 'x:bet,bet,1000,EUR,2026-01-05T10:00:00Z', 'y:bet,bet,1e3,EUR,2026-01-05T10:00:00Z', 'z:win:1,win,10.50,EUR,2026-01-05T10:00:00Z'].join('\n');
    const res = await upload(bad, '');
    const body = await json(res);
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('WALLET.FILE_INVALID');
    expect(body.error.details.problems.map((p: { line: number }) => p.line)).toEqual([3, 4]);
    const jsonl = await upload(JSON.stringify({ transactionId: 'x:bet', type: 'bet', amount: 1000, currency: 'EUR', time: '2026-01-05T10:00:00Z' }) + '\n', '', 'application/x-ndjson');
    expect([jsonl.status, (await json(jsonl)).error.code]).toEqual([400, 'WALLET.FILE_INVALID']);
    const type = await upload('{}', '', 'application/json');
    expect([type.status, (await json(type)).error.code]).toEqual([415, 'WALLET.UNSUPPORTED_FILE_TYPE']);
    const mapping = await upload(bad, '?map.amount=type');
    expect([mapping.status, (await json(mapping)).error.code]).toEqual([400, 'VALIDATION.FAILED']);
    const empty = await upload('transactionId,type,amount,currency,time\n', '');
    expect([empty.status, (await json(empty)).error.code]).toEqual([400, 'WALLET.SCOPE_UNKNOWN']);
    // a body of 0 bytes (a file name curl could not read), scoped explicitly: refused, not a run of every transaction missing
    for (const [contentType, scoped] of [
      ['text/csv', '?fromDay=2026-01-05&toDay=2026-01-05'],
      ['application/x-ndjson', '?fromDay=2026-01-05&toDay=2026-01-05'],
    ]) {
      const nothing = await upload('', scoped, contentType);
      const refusal = await json(nothing);
      expect([nothing.status, refusal.error.code, refusal.error.details.problems[0].line]).toEqual([400, 'WALLET.FILE_INVALID', 1]);
    }
    const unknown = await fetch(`${h.baseUrl}/reconciliation/wallet-files/00000000-0000-4000-8000-000000000000`, { headers: auth });
    expect([unknown.status, (await json(unknown)).error.code]).toEqual([404, 'WALLET.RUN_NOT_FOUND']);
    expect(await runCount()).toBe(before);
  });
});
