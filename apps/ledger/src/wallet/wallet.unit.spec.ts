import { Readable } from 'node:stream';
import { columnMap, FileTooLargeError, readWalletFile, walletFileFormat, type WalletRow } from './wallet-file';
import { matchWallet, scopeOfRows } from './wallet-match';
import { betIdOfTransactionId, expectedTransactions, walletAmounts, type LedgerBet } from '../kernel/as-of/wallet-transactions';

const day = (t: string) => t.slice(0, 10);
const body = (s: string) => Readable.from([Buffer.from(s, 'utf8')]);
const { map } = columnMap();

function bet(over: Partial<LedgerBet> = {}): LedgerBet {
  return { betId: 'b1', roundId: 'r1', tableId: 'T1', accountId: 'acc-1', currency: 'EUR', gamingDay: '2026-01-05', stake: 1000n, placedAt: '2026-01-05T10:00:00.000Z', history: [], ...over };
}
const rev = (kind: 'SETTLED' | 'RESETTLED' | 'REFUNDED', revision: number, payout: bigint | null) => ({ kind, revision, payout, occurredAt: '2026-01-05T10:01:00.000Z', eventId: `e-${kind}-${revision}` });

describe('wallet transactions (docs/reports.md §4)', () => {
  it('Given a won bet, Then the ledger expects the stake debited and the payout credited', () => {
    const t = expectedTransactions(bet({ history: [rev('SETTLED', 1, 1950n)] }));
    expect(t.map((x) => [x.transactionId, x.type, x.amount])).toEqual([
      ['b1:bet', 'bet', 1000n],
      ['b1:win:1', 'win', 1950n],
    ]);
  });

  it('Given a resettlement, Then its win is the payout change (negative when it takes back)', () => {
    const a = walletAmounts('b1', 1000n, [rev('SETTLED', 1, 2000n), rev('RESETTLED', 2, 0n), rev('RESETTLED', 3, 1000n)]);
    expect(a.map((x) => [x.transactionId, x.amount])).toEqual([
      ['b1:win:1', 2000n],
      ['b1:win:2', -2000n],
      ['b1:win:3', 1000n],
    ]);
  });

  it('Given a refund of a settled bet, Then it returns the player to where they were before the bet (the movements sum to 0)', () => {
    for (const payout of [0n, 1000n, 2000n]) {
      const t = expectedTransactions(bet({ history: [rev('SETTLED', 1, payout), rev('REFUNDED', 1, null)] }));
      expect(t[2]).toMatchObject({ transactionId: 'b1:refund:1', type: 'refund', amount: 1000n - payout });
      expect(-t[0].amount + t[1].amount + t[2].amount).toBe(0n);
    }
    const open = expectedTransactions(bet({ history: [rev('REFUNDED', 0, null)] }));
    expect(open.map((x) => [x.transactionId, x.amount])).toEqual([
      ['b1:bet', 1000n],
      ['b1:refund:0', 1000n],
    ]);
  });

  it('Given transaction ids, Then the bet id is read back from the suffix (bet ids may hold a colon)', () => {
    expect(betIdOfTransactionId('a:b:win:12')).toBe('a:b');
    expect(betIdOfTransactionId('x:bet')).toBe('x');
    expect(betIdOfTransactionId('x:refund:0')).toBe('x');
    expect(betIdOfTransactionId('wallet-123')).toBeNull();
  });
});

describe('wallet file reading', () => {
  it('Given the Content-Types, Then only CSV and JSONL in UTF-8 are read', () => {
    expect(walletFileFormat('text/csv')).toBe('csv');
    expect(walletFileFormat('text/csv; charset=UTF-8')).toBe('csv');
    expect(walletFileFormat('application/x-ndjson')).toBe('jsonl');
    expect(walletFileFormat('text/csv; charset=latin1')).toBeNull();
    expect(walletFileFormat('application/json')).toBeNull();
    expect(walletFileFormat(undefined)).toBeNull();
  });

  it('Given a CSV with renamed columns, a BOM and CRLF, Then every row is read with its line number', async () => {
    const m = columnMap({ transactionId: 'txn_id', amount: 'amt' });
    expect(m.problems).toEqual([]);
    const csv = '\uFEFFtxn_id,type,amt,currency,time,betId\r\nb1:bet,bet,1000,EUR,2026-01-05T10:00:00Z,b1\r\n\r\n"b1:win:1",WIN,1950,EUR,2026-01-05T10:01:00+01:00,b1\r\n';
    const f = await readWalletFile(body(csv), { format: 'csv', map: m.map, limitBytes: 1 << 20, limitRows: 1000 });
    expect(f.problems).toEqual([]);
    expect(f.rows).toEqual([
      { line: 2, transactionId: 'b1:bet', roundId: null, betId: 'b1', accountId: null, type: 'bet', amount: 1000n, currency: 'EUR', time: '2026-01-05T10:00:00.000Z' },
      { line: 4, transactionId: 'b1:win:1', roundId: null, betId: 'b1', accountId: null, type: 'win', amount: 1950n, currency: 'EUR', time: '2026-01-05T09:01:00.000Z' },
    ]);
  });

  it('Given bad rows (a float, an exponent, a decimal, a bad type, a time without offset, a short record), Then each is reported with its line, none dropped', async () => {
    const csv = [
      'transactionId,type,amount,currency,time',
      'a:bet,bet,1e3,EUR,2026-01-05T10:00:00Z',
      'b:bet,bet,10.50,EUR,2026-01-05T10:00:00Z',
      'c:bet,deposit,100,EUR,2026-01-05T10:00:00Z',
      'd:bet,bet,100,eur,2026-01-05T10:00:00',
      'e:bet,bet,100,EUR,2026-01-05T10:00:00Z',
      'f:bet,bet',
    ].join('\n');
    const f = await readWalletFile(body(csv), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 1000 });
    expect(f.problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 5, 7]);
    expect(f.problems[0].problem).toMatch(/integer minor units/);
  });

  it('Given a header without a required column, Then line 1 says which', async () => {
    const f = await readWalletFile(body('transactionId,type,currency,time\nx,bet,EUR,2026-01-05T10:00:00Z\n'), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 1000 });
    expect(f.problems[0]).toEqual({ line: 1, problem: 'the header has no column amount (amount)' });
  });

  it('Given JSONL, Then amounts must be strings (a JSON number is refused) and every line an object', async () => {
    const jsonl = [
      JSON.stringify({ transactionId: 'a:bet', type: 'bet', amount: '1000', currency: 'EUR', time: '2026-01-05T10:00:00Z' }),
      '',
      JSON.stringify({ transactionId: 'b:bet', type: 'bet', amount: 1000, currency: 'EUR', time: '2026-01-05T10:00:00Z' }),
      '[1,2]',
      '{not json',
    ].join('\n');
    const f = await readWalletFile(body(jsonl), { format: 'jsonl', map, limitBytes: 1 << 20, limitRows: 1000 });
    expect(f.rows.map((r) => r.transactionId)).toEqual(['a:bet']);
    expect(f.problems.map((p) => p.line)).toEqual([3, 4, 5]);
  });

  it('Given a file over the limit, Then the read fails with FileTooLargeError', async () => {
    const big = 'transactionId,type,amount,currency,time\n' + 'x:bet,bet,1,EUR,2026-01-05T10:00:00Z\n'.repeat(200);
    await expect(readWalletFile(Readable.from([Buffer.from(big)]), { format: 'csv', map, limitBytes: 1024, limitRows: 1000 })).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(readWalletFile(Readable.from([Buffer.from(big)]), { format: 'jsonl', map, limitBytes: 1024, limitRows: 1000 })).rejects.toBeInstanceOf(FileTooLargeError);
  });

  it('Given a mapping naming one column twice or a bad name, Then it is refused', () => {
    expect(columnMap({ amount: 'type' }).problems).toEqual(['map.amount: column type is already mapped to type']);
    expect(columnMap({ amount: 'a;drop' }).problems).toEqual([expect.stringMatching(/^map\.amount: a column name/)]);
  });
});

describe('matching (docs/reports.md §4)', () => {
  const row = (line: number, transactionId: string, type: WalletRow['type'], amount: bigint, over: Partial<WalletRow> = {}): WalletRow => ({
    line,
    transactionId,
    roundId: null,
    betId: null,
    accountId: null,
    type,
    amount,
    currency: 'EUR',
    time: '2026-01-05T10:00:00.000Z',
    ...over,
  });
  const ledger = [
    ...expectedTransactions(bet({ betId: 'won', history: [rev('SETTLED', 1, 2000n)] })),
    ...expectedTransactions(bet({ betId: 'lost', history: [rev('SETTLED', 1, 0n)] })),
    ...expectedTransactions(bet({ betId: 'void', history: [rev('SETTLED', 1, 2000n), rev('REFUNDED', 1, null)] })),
    ...expectedTransactions(bet({ betId: 'other-day', gamingDay: '2026-01-04', history: [rev('SETTLED', 1, 2000n)] })),
  ];
  const scope = { kind: 'days' as const, fromDay: '2026-01-05', toDay: '2026-01-05' };

  it('Given the four faults, Then exactly they are found and the rest matched', () => {
    const rows = [
      row(2, 'won:bet', 'bet', 1000n),
      // won:win:1 missing in the wallet
      row(3, 'lost:bet', 'bet', 1000n),
      row(4, 'void:bet', 'bet', 1000n),
      row(5, 'void:win:1', 'win', 2001n), // off by one minor unit
      row(6, 'void:refund:1', 'refund', -1000n),
      row(7, 'void:refund:1', 'refund', -1000n), // doubled
      row(8, 'ghost:bet', 'bet', 500n), // unknown bet
      row(9, 'other-day:win:1', 'win', 2000n), // outside the scope's days, but the ledger has it
    ];
    const r = matchWallet(rows, ledger, scope, day);
    const found = r.items.filter((i) => i.status !== 'MATCHED').map((i) => [i.status, i.transactionId, i.ledgerAmount, i.walletAmount]);
    // items in order of gaming day, currency, transaction id
    expect(found).toEqual(
      [
        ['MISSING_IN_LEDGER', 'ghost:bet', null, 500n],
        ['AMOUNT_DIFFERS', 'void:win:1', 2000n, 2001n],
        ['DUPLICATED', 'void:refund:1', -1000n, -1000n],
        ['MISSING_IN_WALLET', 'won:win:1', 2000n, null],
      ].sort((x, y) => (String(x[1]) < String(y[1]) ? -1 : 1)),
    );
    expect(found).toHaveLength(4);
    expect(r.totals).toEqual({ MATCHED: 5, MISSING_IN_WALLET: 1, MISSING_IN_LEDGER: 1, AMOUNT_DIFFERS: 1, FIELDS_DIFFER: 0, DUPLICATED: 1 });
    // lost:win:1 (0) is not expected from the wallet
    expect(r.zeroNotInFile).toBe(1);
    expect(r.items.find((i) => i.transactionId === 'other-day:win:1')).toMatchObject({ status: 'MATCHED', gamingDay: '2026-01-04' });
    expect(r.summary.map((s) => [s.currency, s.gamingDay])).toEqual([
      ['EUR', '2026-01-04'],
      ['EUR', '2026-01-05'],
    ]);
  });

  it('Given a zero win in the wallet, Then it matches the lost bet; given another account or type, Then FIELDS_DIFFER; another currency, AMOUNT_DIFFERS', () => {
    const r = matchWallet(
      [row(2, 'lost:win:1', 'win', 0n), row(3, 'won:bet', 'bet', 1000n, { accountId: 'acc-2' }), row(4, 'won:win:1', 'win', 2000n, { currency: 'USD' })],
      ledger.filter((t) => t.betId !== 'void' && t.betId !== 'other-day'),
      scope,
      day,
    );
    const by = new Map(r.items.map((i) => [i.transactionId, i]));
    expect(by.get('lost:win:1')?.status).toBe('MATCHED');
    expect(by.get('won:bet')).toMatchObject({ status: 'FIELDS_DIFFER', differences: ['accountId'], walletValues: { accountId: 'acc-2' } });
    expect(by.get('won:win:1')).toMatchObject({ status: 'AMOUNT_DIFFERS', differences: ['currency'], walletValues: { currency: 'USD' } });
    expect(by.get('lost:bet')).toMatchObject({ status: 'MISSING_IN_WALLET', walletValues: {} });
    expect(by.get('lost:win:1')?.walletValues).toEqual({});
  });

  it("Given a row that differs in type, round and amount, Then the wallet's value of each field but the amount is kept, in the order of the differences", () => {
    const r = matchWallet(
      [row(2, 'won:bet', 'win', 999n, { roundId: 'r-9', currency: 'EUR' })],
      ledger.filter((t) => t.betId === 'won'),
      scope,
      day,
    );
    const item = r.items.find((i) => i.transactionId === 'won:bet');
    expect(item).toMatchObject({ status: 'AMOUNT_DIFFERS', differences: ['amount', 'type', 'roundId'], walletAmount: 999n, walletValues: { type: 'win', roundId: 'r-9' } });
    expect(Object.keys(item?.walletValues ?? {})).toEqual(['type', 'roundId']);
  });

  it('Given a time period, Then a ledger transaction is in it by its occurredAt, from inclusive, to exclusive', () => {
    const r = matchWallet([], ledger, { kind: 'period', from: '2026-01-05T10:00:00.000Z', to: '2026-01-05T10:01:00.000Z' }, day);
    // the bets (placed 10:00:00) are in; the settlements and refunds (10:01:00) are not
    expect(r.items.map((i) => i.transactionId).sort()).toEqual(['lost:bet', 'other-day:bet', 'void:bet', 'won:bet']);
  });

  it('Given rows, Then the scope is the gaming days of their times', () => {
    expect(scopeOfRows([row(2, 'a', 'bet', 1n, { time: '2026-01-07T00:00:00.000Z' }), row(3, 'b', 'bet', 1n, { time: '2026-01-03T00:00:00.000Z' })], day)).toEqual({ kind: 'days', fromDay: '2026-01-03', toDay: '2026-01-07' });
    expect(scopeOfRows([], day)).toBeNull();
  });
});
