/**
 * CSV formula injection (docs/reports.md §8): text a caller controls — account
 * ids, dealer ids, reasons of management decisions, video evidence, wallet transaction ids, token
 * subjects — reaches the CSV answers of the API. A spreadsheet opening one runs a field that starts
 * with `=`, `+`, `-` or `@` (and `\t`, `\r`) as a formula: `=HYPERLINK("http://x")` becomes a link,
 * `+cmd|' /C calc'!A0` a DDE call. Before the fix every such field came out as it was.
 *
 * Real PostgreSQL and Kafka, the real API, relay and projector: a shoe dealt by dealer `-2-3` with
 * bets of account `-1-1`, voids and corrections whose reasons and evidence are the payloads, a
 * refused write by a device whose token subject is a payload, an audited read by such an auditor, a
 * wallet file whose ids are the payloads, an early gaming-day close of the table. Then every CSV
 * answer of the API — the five exports, the reconciliation, the staff statistics (dealers and pit
 * managers), the wallet items and the close — is read as a spreadsheet would: no field starts with a
 * formula character, but plain numbers (`-150`, `-0.079536`, which no spreadsheet runs); each payload
 * is there, neutralised by one leading `'`, and dropping that `'` gives it back exactly.
 */
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { isDecisionCommandKind, pendingDecisionOf } from '@ledger/client';
import { APPROVAL_KEY_SUFFIX, approvalRoute, DEFAULT_RUNNER_ACTORS, generateShoeScript, requestOfAction, sendApiRequest, subjectOf, type ShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { waitApplied } from '../support/shoe-steps';

jest.setTimeout(300_000);

const PAYLOADS = ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", '@SUM(1)', '-2+3'];
/** Evidence references hold no space (docs/reports.md §7). */
const EVIDENCE = ['=HYPERLINK("http://x")', "+cmd|'/C_calc'!A0", '@SUM(1)', '-2+3'];
/** Ids (`ID_PATTERN`: letters, digits, `_ . : -`) may start with a minus: a formula `-2-3` = -5. */
const DEALER = '-2-3';
const ACCOUNT = '-1-1';
const TABLE = 'T-CLASSIC-01';
const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

/** A field a spreadsheet runs as a formula: it starts with = + - @ tab or CR, and is not a plain number. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
const isLive = (field: string): boolean => /^[=+\-@\t\r]/.test(field) && !PLAIN_NUMBER.test(field);
/** The value a neutralised field stands for (docs/reports.md §8: one leading `'` is dropped). */
const original = (field: string): string => (field.startsWith("'") ? field.slice(1) : field);

function shoeWithDecisions(table: SimTable, shoeId: string): ShoeScript {
  for (let i = 0; i < 500; i++) {
    const s = generateShoeScript(table, `csv-injection-${i}`, { shoeId, dealerId: DEALER, accounts: 3, betChance: 0.9, maxRounds: 12, managementVoidChance: 0.2, correctionChance: 0.25 });
    if (s.actions.filter((a) => a.kind === 'voidRound' || a.kind === 'correctResult').length >= 3 && s.actions.some((a) => a.kind === 'correctResult')) return s;
  }
  throw new Error('no seed gave three decisions with a correction');
}

/** The script with the payloads in it: account `acct-1` renamed, every decision's reason a payload. */
function poisoned(script: ShoeScript): ShoeScript {
  let k = 0;
  const actions = script.actions.map((a) => {
    if (a.kind === 'bets') return { ...a, bets: a.bets.map((b) => (b.accountId === 'acct-1' ? { ...b, accountId: ACCOUNT } : b)) };
    if (a.kind === 'voidRound' || a.kind === 'correctResult') return { ...a, reason: PAYLOADS[k++ % PAYLOADS.length] };
    return a;
  });
  return { ...script, actions };
}

describe('CSV answers neutralise spreadsheet formulas (docs/reports.md §8)', () => {
  let h: LedgerHarness;
  const csv = new Map<string, Record<string, string>[]>();
  const shoeId = runId('csv-injection');

  const auth = (role: 'auditor' | 'pit-manager', sub: string) => ({ authorization: `Bearer ${h.client.token(role, sub)}` });
  const getCsv = async (name: string, path: string) => {
    const res = await fetch(`${h.baseUrl}${path}`, { headers: auth('auditor', 'aud-csv') });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${text.slice(0, 300)}`);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    csv.set(name, parse(text, { columns: true, skip_empty_lines: true, relax_column_count: false }) as Record<string, string>[]);
  };
  const rowsOf = (name: string) => csv.get(name) ?? [];
  const column = (name: string, col: string) => rowsOf(name).map((r) => r[col]);

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    const from = new Date(Date.now() - 1).toISOString();

    // the shoe: decisions carry a payload as reason and another as video evidence
    const script = poisoned(
      shoeWithDecisions(
        tables.find((t) => t.tableId === TABLE)!,
        shoeId,
      ),
    );
    let e = 0;
    for (let i = 0; i < script.actions.length; i++) {
      const key = `${shoeId}:${i}`;
      const req = requestOfAction(script.actions[i], shoeId);
      const decision = isDecisionCommandKind(req.kind);
      const body = decision ? { ...(req.body as object), evidence: { segmentRef: EVIDENCE[e++ % EVIDENCE.length] } } : req.body;
      const res = await sendApiRequest(h.client, { ...req, body }, subjectOf(req.role, DEFAULT_RUNNER_ACTORS), { 'idempotency-key': key });
      const pending = decision ? pendingDecisionOf(res) : null;
      if (pending) {
        const [, sub, , , approval] = approvalRoute(pending.decisionId, DEFAULT_RUNNER_ACTORS);
        const approvalBody = { ...(approval.body as object), evidence: { segmentRef: EVIDENCE[e++ % EVIDENCE.length] } };
        await sendApiRequest(h.client, { ...approval, body: approvalBody }, sub, { 'idempotency-key': key + APPROVAL_KEY_SUFFIX });
      }
    }
    // a refused write by a device whose token subject is a payload (the rejection log), an audited read by another (the access log)
    const refused = await fetch(`${h.baseUrl}/shoes/${shoeId}/burns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.client.token('table-device', PAYLOADS[1])}` },
      body: JSON.stringify({ cards: PAYLOADS[0] }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect((await fetch(`${h.baseUrl}/settlements?shoeId=${shoeId}`, { headers: auth('auditor', PAYLOADS[2]) })).status).toBe(200);

    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);

    // a wallet file whose transaction and account ids are the payloads (missing in the ledger), with a negative amount
    const now = new Date().toISOString();
    const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const lines = ['transactionId,type,amount,currency,time,accountId', ...PAYLOADS.map((p, i) => [quote(p), 'win', i === 3 ? '-150' : '150', 'EUR', now, quote(PAYLOADS[(i + 1) % 4])].join(','))];
    const upload = await fetch(`${h.baseUrl}/reconciliation/wallet-files`, { method: 'POST', headers: { ...auth('pit-manager', 'pm-1'), 'content-type': 'text/csv' }, body: lines.join('\n') + '\n' });
    const uploaded = (await upload.json()) as { runId: string };
    expect(upload.status).toBe(201);

    // an early close of the table's gaming day (four eyes)
    const roundId = (stored.find((x) => x.type === 'RoundOpened')!.data as { roundId: string }).roundId;
    const day = ((await h.client.get('auditor', 'aud-csv', `/shoes/${shoeId}/rounds/${roundId}/recall`)) as { round: { gamingDay: string } }).round.gamingDay;
    const request = (await h.client.post('pit-manager', 'pm-1', `/gaming-days/${day}/close`, { tableIds: [TABLE], early: true, reason: PAYLOADS[0] })) as { requestId: string };
    await h.client.post('pit-manager', 'pm-2', `/gaming-days/${day}/close-requests/${request.requestId}/approve`, {});

    const to = new Date(Date.now() + 1).toISOString();
    const period = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    for (const kind of ['events', 'settlements', 'decisions', 'rejections', 'access-log']) await getCsv(kind, `/exports/${kind}?${period}&format=csv`);
    await getCsv('reconciliation', `/reports/reconciliation?groupBy=shoe,dealer,currency&shoeId=${shoeId}&format=csv`);
    await getCsv('staff-dealers', `/statistics/staff?groupBy=dealer&tableId=${TABLE}&format=csv`);
    await getCsv('staff-pit-managers', `/statistics/staff?groupBy=pitManager&format=csv`);
    await getCsv('wallet-items', `/reconciliation/wallet-files/${uploaded.runId}/items?format=csv`);
    await getCsv('close', `/gaming-days/${day}/close?format=csv`);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('no field of any CSV answer starts with a formula character (a plain number such as -150 is no formula)', () => {
    expect([...csv.keys()].sort()).toEqual(['access-log', 'close', 'decisions', 'events', 'reconciliation', 'rejections', 'settlements', 'staff-dealers', 'staff-pit-managers', 'wallet-items'].sort());
    const live: string[] = [];
    for (const [name, rows] of csv) {
      expect(rows.length).toBeGreaterThan(0);
      rows.forEach((r, i) => {
        for (const [col, v] of Object.entries(r)) if (isLive(v)) live.push(`${name} row ${i + 1} ${col}: ${v}`);
      });
    }
    expect(live).toEqual([]);
  });

  it('the reasons of voids and corrections: neutralised in the decisions and settlements exports, and given back exactly', () => {
    for (const name of ['decisions', 'settlements']) {
      const reasons = column(name, 'reason').filter((r) => PAYLOADS.includes(original(r)));
      expect(reasons.length).toBeGreaterThanOrEqual(name === 'decisions' ? 3 : 1);
      for (const r of reasons) expect(r).toBe(`'${original(r)}`);
    }
  });

  it('account and dealer ids that start with a minus: neutralised in the settlements export, the reconciliation, the staff statistics and the close', () => {
    expect(column('settlements', 'accountId')).toContain(`'${ACCOUNT}`);
    expect(column('settlements', 'dealerId')).toContain(`'${DEALER}`);
    expect(column('reconciliation', 'dealerId')).toEqual([`'${DEALER}`]);
    expect(column('staff-dealers', 'dealerId')).toContain(`'${DEALER}`);
    expect(column('close', 'dealerId')).toContain(`'${DEALER}`);
    // amounts stay numbers: every amount is a plain signed integer, the negative ones too
    const amounts = [...column('settlements', 'net'), ...column('reconciliation', 'ggr'), ...column('close', 'ggr')].filter((x) => x !== '');
    expect(amounts.some((v) => v.startsWith('-'))).toBe(true);
    for (const v of amounts) expect(v).toMatch(/^-?\d+$/);
  });

  it('evidence and token subjects: inside the events and decisions (canonical JSON), and the rejection and access logs', () => {
    const withEvidence = column('events', 'data').filter((d) => EVIDENCE.some((p) => JSON.stringify(JSON.parse(original(d))).includes(`"segmentRef":${JSON.stringify(p)}`)));
    expect(withEvidence.length).toBeGreaterThanOrEqual(3);
    expect(column('rejections', 'actorId')).toContain(`'${PAYLOADS[1]}`);
    expect(column('access-log', 'actorId')).toContain(`'${PAYLOADS[2]}`);
  });

  it('the wallet items CSV: transaction and account ids neutralised, the negative amount a plain number', () => {
    const items = rowsOf('wallet-items').filter((r) => r.status === 'MISSING_IN_LEDGER');
    expect(items.map((r) => original(r.transactionId)).sort()).toEqual([...PAYLOADS].sort());
    expect(items.every((r) => r.transactionId.startsWith("'") && r.accountId.startsWith("'"))).toBe(true);
    expect(items.map((r) => r.walletAmount).sort()).toEqual(['-150', '150', '150', '150']);
  });
});
