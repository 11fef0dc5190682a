/**
 * The wallet upload streamed through its staging tables (docs/reports.md §4.5), against the real
 * PostgreSQL as the API's own login (`ledger_app`: the TEMPORARY right of migration 1799400000000),
 * with a made-up read model of 1,000 bets (800 of the file's days, 200 before them):
 * - a CSV of 2,600+ rows (three chunks and more) with matches, amount and field faults, duplicates
 *   (also across chunks), rows the ledger lacks, bets named outside the scope, zero wins, missing
 *   wins: the stored run (file rows, bytes, SHA-256, scope, totals, summary, zeroNotInFile) and its
 *   items in seq order equal what the whole-file `matchWallet` gives on the same rows and ledger;
 * - at no step does the upload hold more than one chunk (1,000) of rows or items (the probe);
 * - a bad row at line 2,500 (after two chunks were staged): 400 `WALLET.FILE_INVALID`, nothing stored;
 * - an items budget below the run's items: 429 `WALLET.BUDGET_EXHAUSTED`, nothing stored.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { createDataSource } from '@ledger/event-store';
import type { ReadModel, WalletBetRow } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { first } from '../kernel/sql';
import { betIdOfTransactionId, expectedTransactions, type LedgerBet, type LedgerBetRevision, type LedgerTransaction } from '../kernel/as-of/wallet-transactions';
import { migrateAll } from '../persistence/migrate-all';
import { TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS } from '../../../../test/support/ledger-harness';
import { columnMap, readWalletFile } from './wallet-file';
import { matchWallet, type MatchScope } from './wallet-match';
import { WalletService, type WalletItemView } from './wallet.service';

jest.setTimeout(120_000);

/** Bet `i`: 800 on 2026-01-05 (the file's first day), 200 on 2026-01-02 (only loaded when the file names them). */
function bet(i: number): LedgerBet {
  const stake = BigInt(100 + (i % 50) * 10);
  const gamingDay = i < 800 ? '2026-01-05' : '2026-01-02';
  const payout = i % 3 === 0 ? 0n : stake * 2n;
  const history: LedgerBetRevision[] = [{ kind: 'SETTLED', revision: 1, payout, occurredAt: `${gamingDay}T10:01:00.000Z`, eventId: `e-${i}-1` }];
  if (i % 10 === 1) history.push({ kind: 'REFUNDED', revision: 1, payout: null, occurredAt: `${gamingDay}T10:02:00.000Z`, eventId: `e-${i}-2` });
  return {
    betId: `bet-${String(i).padStart(4, '0')}`,
    roundId: `round-${i % 40}`,
    tableId: 't1',
    accountId: `acc-${i % 9}`,
    currency: i % 7 === 0 ? 'USD' : 'EUR',
    gamingDay,
    stake,
    placedAt: `${gamingDay}T10:00:00.000Z`,
    history,
  };
}
const BETS = Array.from({ length: 1000 }, (_, i) => bet(i));

/** The read model's rows of `bets` (one per history entry, by bet id then seq). */
const rowsOf = (bets: readonly LedgerBet[]): WalletBetRow[] =>
  [...bets]
    .sort((a, b) => (a.betId < b.betId ? -1 : 1))
    .flatMap((b) =>
      b.history.map((h, k) => ({
        bet_id: b.betId,
        round_id: b.roundId,
        table_id: b.tableId,
        account_id: b.accountId,
        currency: b.currency,
        gaming_day: b.gamingDay,
        stake: b.stake.toString(),
        placed_at: new Date(b.placedAt),
        seq: k + 1,
        kind: h.kind,
        revision: h.revision,
        payout: h.payout === null ? null : h.payout.toString(),
        occurred_at: new Date(h.occurredAt),
        event_id: h.eventId,
      })),
    );

const inDays = (b: LedgerBet, s: MatchScope) => s.kind === 'days' && b.gamingDay >= s.fromDay && b.gamingDay <= s.toDay;
const settlements = {
  walletScopeCount: async (s: MatchScope) => BETS.filter((b) => inDays(b, s)).length,
  walletBets: async (s: MatchScope, ids: readonly string[]) => rowsOf(BETS.filter((b) => inDays(b, s) || ids.includes(b.betId))),
  walletBetsOutside: async (s: MatchScope, ids: readonly string[]) => rowsOf(BETS.filter((b) => !inDays(b, s) && ids.includes(b.betId))),
};
const readModel = { settlements, on: () => ({ settlements }) } as unknown as ReadModel;

const CONFIG: Partial<LedgerApiEnv> = {
  GAMING_DAY_TZ: 'UTC',
  GAMING_DAY_CUTOFF_HOUR: 0,
  WALLET_FILE_MAX_BYTES: 10 * 1024 * 1024,
  WALLET_FILE_MAX_ROWS: 10_000,
  WALLET_BUDGET_RUNS_PER_DAY: 100,
  WALLET_BUDGET_ITEMS_PER_DAY: 1_000_000,
};
const config = (over: Partial<LedgerApiEnv> = {}) => ({ get: (k: keyof LedgerApiEnv) => ({ ...CONFIG, ...over })[k] }) as unknown as ConfigService<LedgerApiEnv, true>;

/** The file: every scope bet's transactions with faults, duplicates, rows the ledger lacks, bets named outside the scope. */
function walletCsv(badLine: number | null = null): string {
  const lines = ['transactionId,betId,roundId,type,amount,currency,time'];
  const add = (id: string, betId: string, roundId: string, type: string, amount: string, currency: string, time: string) => lines.push([id, betId, roundId, type, amount, currency, time].join(','));
  for (const [i, b] of BETS.entries()) {
    if (i >= 900) break; // bets 900..999 are never named
    const txns = expectedTransactions(b);
    for (const [k, t] of txns.entries()) {
      if (i % 11 === 5 && k === 1) continue; // a win missing in the wallet
      if (t.amount === 0n && i % 2 === 0) continue; // most lost bets' zero wins are not in the wallet
      const amount = i % 17 === 3 && k === 0 ? t.amount + 1n : t.amount;
      const roundId = i % 23 === 4 ? 'round-x' : '';
      add(t.transactionId, i % 4 === 0 ? b.betId : '', roundId, t.type, amount.toString(), t.currency, `2026-01-05T1${i % 10}:00:00Z`);
    }
  }
  for (let g = 0; g < 700; g++) add(`ghost-${g}:bet`, '', '', 'bet', '500', g % 2 ? 'EUR' : 'GBP', `2026-01-0${5 + (g % 3)}T12:00:00Z`);
  const body = lines.slice(1);
  for (let d = 0; d < 160; d++) lines.push(body[(d * 97) % body.length]); // duplicates of earlier lines, across chunks
  if (badLine !== null) lines[badLine - 1] = 'x,,,bet,1.5,EUR,2026-01-05T10:00:00Z';
  return lines.join('\n') + '\n';
}

/** `text` as a stream of 64 KiB pieces. */
const streamOf = (text: string) => {
  const buf = Buffer.from(text);
  return Readable.from(Array.from({ length: Math.ceil(buf.length / 65536) }, (_, i) => buf.subarray(i * 65536, (i + 1) * 65536)));
};

describe('the wallet upload streamed through its staging (int)', () => {
  let ds: DataSource;
  const map = columnMap().map;
  const upload = (svc: WalletService, actor: string, csv: string) => svc.upload(streamOf(csv), { format: 'csv', map, mapGiven: {}, actor: { id: actor, role: 'pit-manager' } });
  const runsOf = async (actor: string) => (await first<{ n: number }>(ds, `SELECT count(*)::int AS n FROM wallet_match_runs WHERE actor_id = $1`, [actor]))?.n;
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'stored',
      (e) => (e instanceof ApiError ? e.code : String(e)),
    );

  beforeAll(async () => {
    await migrateAll(TEST_DATABASE_URL, 'read');
    ds = createDataSource(TEST_SERVICE_DATABASE_URLS.app, { poolSize: 2, applicationName: 'wallet-stream-int' });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it('Given a file of 2,600+ rows, Then the stored run and its items equal the whole-file match, holding at most one chunk of rows or items at a time', async () => {
    const csv = walletCsv();
    const svc = new WalletService(ds, readModel, config());
    const held = { rows: 0, items: 0 };
    svc.probe = { held: (kind, n) => (held[kind] = Math.max(held[kind], n)) };
    const actor = `stream-${Date.now()}`;
    const run = await upload(svc, actor, csv);

    const file = await readWalletFile(streamOf(csv), { format: 'csv', map, limitBytes: 1 << 30, limitRows: 1 << 30 });
    expect(file.rows.length).toBeGreaterThan(2500);
    expect(file.problems).toEqual([]);
    const scope: MatchScope = { kind: 'days', fromDay: '2026-01-05', toDay: '2026-01-07' };
    const named = new Set(file.rows.flatMap((r) => [r.betId, betIdOfTransactionId(r.transactionId)]).filter((b): b is string => b !== null));
    const ledger: LedgerTransaction[] = BETS.filter((b) => inDays(b, scope) || named.has(b.betId)).flatMap(expectedTransactions);
    const whole = matchWallet(file.rows, ledger, scope, svc.dayOf);
    expect(new Set(whole.items.map((i) => i.status)).size).toBe(6); // every status is exercised

    expect(run.file).toEqual({ format: 'csv', sha256: createHash('sha256').update(csv).digest('hex'), bytes: String(Buffer.byteLength(csv)), rows: file.rows.length });
    expect(run.scope).toEqual({ fromDay: '2026-01-05', toDay: '2026-01-07', from: null, to: null, source: 'file' });
    expect(run.totals).toEqual(whole.totals);
    expect(run.summary).toEqual(whole.summary.map((s) => ({ ...s, ledgerAmount: s.ledgerAmount.toString(), walletAmount: s.walletAmount.toString() })));
    expect(run.zeroNotInFile).toBe(whole.zeroNotInFile);
    expect(run.itemCount).toBe(whole.items.length);
    const stored: WalletItemView[] = [];
    for await (const it of svc.allItems(run.runId, null)) stored.push(it);
    const expected: WalletItemView[] = whole.items.map((i, k) => ({
      seq: k + 1,
      status: i.status,
      transactionId: i.transactionId,
      type: i.type,
      betId: i.betId,
      roundId: i.roundId,
      accountId: i.accountId,
      currency: i.currency,
      gamingDay: i.gamingDay,
      ledgerAmount: i.ledgerAmount?.toString() ?? null,
      walletAmount: i.walletAmount?.toString() ?? null,
      walletLine: i.walletLine,
      walletTime: i.walletTime,
      differences: [...i.differences],
      walletValues: i.walletValues,
    }));
    expect(stored).toEqual(expected);

    expect(held.rows).toBe(1000);
    expect(held.items).toBe(1000);
    expect(await runsOf(actor)).toBe(1);
  });

  it('Given a bad row at line 2,500, Then 400 WALLET.FILE_INVALID and nothing is stored', async () => {
    const svc = new WalletService(ds, readModel, config());
    const actor = `stream-bad-${Date.now()}`;
    let err: unknown;
    await svc.upload(streamOf(walletCsv(2500)), { format: 'csv', map, mapGiven: {}, actor: { id: actor, role: 'pit-manager' } }).catch((e) => (err = e));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('WALLET.FILE_INVALID');
    expect((err as ApiError).details).toMatchObject({ count: 1, line: 2500 });
    expect(await runsOf(actor)).toBe(0);
  });

  it('Given an items budget below the run’s items, Then 429 WALLET.BUDGET_EXHAUSTED and nothing is stored; within it, stored', async () => {
    const actor = `stream-budget-${Date.now()}`;
    expect(await refusal(upload(new WalletService(ds, readModel, config({ WALLET_BUDGET_ITEMS_PER_DAY: 2000 })), actor, walletCsv()))).toBe('WALLET.BUDGET_EXHAUSTED');
    expect(await runsOf(actor)).toBe(0);
    expect(await refusal(upload(new WalletService(ds, readModel, config({ WALLET_BUDGET_ITEMS_PER_DAY: 5000 })), actor, walletCsv()))).toBe('stored');
    expect(await runsOf(actor)).toBe(1);
  });
});
