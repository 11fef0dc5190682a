import { Readable } from 'node:stream';
import { columnMap, readWalletFile, TooManyRowsError, WalletFileReader, type WalletFileFormat } from './wallet-file';
import { budgetVerdict, WALLET_BUDGET_WINDOW_HOURS } from './wallet-budget';

/**
 * The bounds of wallet matching (docs/reports.md §4.5) that need no database: the reader hands rows
 * over in bounded chunks and reads the body only as fast as they are taken (so what it holds does
 * not grow with the file), stops at the first row over the cap, and the per-caller budget's verdict.
 */

const { map } = columnMap();
const HEADER = 'transactionId,type,amount,currency,time\n';
const csvLine = (i: number) => `t${String(i).padStart(7, '0')}:bet,bet,1000,EUR,2026-01-05T10:00:00Z\n`;
const jsonLine = (i: number) => JSON.stringify({ transactionId: `t${String(i).padStart(7, '0')}:bet`, type: 'bet', amount: '1000', currency: 'EUR', time: '2026-01-05T10:00:00Z' }) + '\n';

/** A lazy body of `rows` rows, 100 a buffer, counting the buffers the reader pulled. */
function lazyBody(format: WalletFileFormat, rows: number): { body: Readable; pulled: () => number; lineBytes: number } {
  let pulled = 0;
  const line = format === 'csv' ? csvLine : jsonLine;
  function* gen() {
    if (format === 'csv') yield Buffer.from(HEADER);
    for (let i = 0; i < rows; i += 100) {
      pulled++;
      let s = '';
      for (let k = i; k < Math.min(rows, i + 100); k++) s += line(k);
      yield Buffer.from(s);
    }
  }
  return { body: Readable.from(gen(), { objectMode: false }), pulled: () => pulled, lineBytes: Buffer.byteLength(line(0)) };
}

describe('wallet file reading in bounded chunks', () => {
  it.each(['csv', 'jsonl'] as const)('Given a %s file of 50,000 rows, Then no chunk holds more than chunkRows rows and the body is read only a bounded way ahead of the rows taken', async (format) => {
    const { body, lineBytes } = lazyBody(format, 50_000);
    const reader = new WalletFileReader(body, { format, map, limitBytes: 64 << 20, limitRows: 100_000, chunkRows: 500 });
    let taken = 0;
    let largestChunk = 0;
    let mostAhead = 0;
    let lastId = '';
    for await (const chunk of reader.chunks()) {
      largestChunk = Math.max(largestChunk, chunk.length);
      taken += chunk.length;
      expect(chunk[0].transactionId > lastId).toBe(true);
      lastId = chunk[chunk.length - 1].transactionId;
      mostAhead = Math.max(mostAhead, reader.bytes - HEADER.length - taken * lineBytes);
    }
    expect({ taken, largestChunk, problems: reader.problems }).toEqual({ taken: 50_000, largestChunk: 500, problems: [] });
    // the whole file is ~4 MB; what was read but not yet handed over stays within the streams' buffers
    expect(reader.bytes).toBeGreaterThanOrEqual(50_000 * lineBytes);
    expect(mostAhead).toBeLessThan(512 * 1024);
  });

  it.each(['csv', 'jsonl'] as const)('Given a %s file of 50,000 rows and a cap of 1,000, Then the read stops at row 1,001 with TooManyRowsError, most of the body unread', async (format) => {
    const { body, pulled } = lazyBody(format, 50_000);
    const reader = new WalletFileReader(body, { format, map, limitBytes: 64 << 20, limitRows: 1000 });
    const read = (async () => {
      for await (const chunk of reader.chunks()) expect(chunk.length).toBeLessThanOrEqual(1000);
    })();
    await expect(read).rejects.toEqual(new TooManyRowsError(1000));
    expect(reader.records).toBe(1001);
    expect(pulled()).toBeLessThan(100); // of 500 buffers
  });

  it('Given exactly the cap, Then every row is read; one more (a bad one too) and the file is refused', async () => {
    const rows = (n: number, extra = '') => Readable.from([Buffer.from(HEADER + Array.from({ length: n }, (_, i) => csvLine(i)).join('') + extra)]);
    expect((await readWalletFile(rows(10), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 10 })).rows).toHaveLength(10);
    await expect(readWalletFile(rows(11), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 10 })).rejects.toBeInstanceOf(TooManyRowsError);
    await expect(readWalletFile(rows(10, 'bad,row\n'), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 10 })).rejects.toBeInstanceOf(TooManyRowsError);
  });

  it.each([
    ['csv', '', 'the file is empty'],
    ['jsonl', '', 'the file is empty'],
    ['csv', '\n\n', 'the file has no header line'],
  ] as const)('Given a %s body %j, Then it is a problem of line 1 (a run of it would find every ledger transaction missing)', async (format, text, problem) => {
    const file = await readWalletFile(Readable.from([Buffer.from(text)]), { format, map, limitBytes: 1 << 20, limitRows: 10 });
    expect(file.rows).toEqual([]);
    expect(file.problems).toEqual([{ line: 1, problem: expect.stringContaining(problem) }]);
  });

  it('Given a CSV of a header line alone, Then it is a file of no transactions, not a problem', async () => {
    const file = await readWalletFile(Readable.from([Buffer.from(HEADER)]), { format: 'csv', map, limitBytes: 1 << 20, limitRows: 10 });
    expect(file).toMatchObject({ rows: [], problems: [] });
  });
});

describe('the per-caller budget of wallet matching', () => {
  const H = 3_600_000;
  const now = Date.UTC(2026, 0, 5, 12);
  const limits = { runs: 3, items: 1000 };

  it('Given runs within both budgets, Then one more fits; runs older than the window are not counted', () => {
    const runs = [
      { at: now - 25 * H, items: 5000 },
      { at: now - 2 * H, items: 400 },
    ];
    expect(budgetVerdict({ runs, now, limits, adding: { runs: 1, items: 600 } })).toBeNull();
  });

  it('Given the runs budget used up, Then a refusal names it and the time until the oldest run leaves the window', () => {
    const runs = [
      { at: now - 3 * H, items: 1 },
      { at: now - 1 * H, items: 1 },
      { at: now - 5 * H, items: 1 },
    ];
    expect(budgetVerdict({ runs, now, limits, adding: { runs: 1, items: 1 } })).toEqual({ budget: 'runs', limit: 3, used: 3, windowHours: WALLET_BUDGET_WINDOW_HOURS, retryAfterSeconds: 19 * 3600 });
  });

  it('Given items over the budget, Then the retry is when enough of the oldest runs have left for this one to fit', () => {
    const runs = [
      { at: now - 10 * H, items: 300 },
      { at: now - 8 * H, items: 300 },
      { at: now - 1 * H, items: 300 },
    ];
    const limitsMoreRuns = { runs: 10, items: 1000 };
    // 900 used + 500 → two oldest must leave (the first frees 300: 1100 > 1000; the second: 800)
    expect(budgetVerdict({ runs, now, limits: limitsMoreRuns, adding: { runs: 1, items: 500 } })).toMatchObject({ budget: 'items', used: 900, limit: 1000, retryAfterSeconds: 16 * 3600 });
    expect(budgetVerdict({ runs, now, limits: limitsMoreRuns, adding: { runs: 1, items: 100 } })).toBeNull();
    // a run alone over the budget never fits: the retry is the whole window (when every run has left)
    expect(budgetVerdict({ runs: [], now, limits: limitsMoreRuns, adding: { runs: 1, items: 1001 } })).toMatchObject({ budget: 'items', used: 0, retryAfterSeconds: 24 * 3600 });
  });
});
