/**
 * Attacks on the cost of wallet matching (docs/reports.md §4.5), through HTTP against the real
 * PostgreSQL, with small limits:
 * - (a) a file over the row cap (`WALLET_FILE_MAX_ROWS` = 50), as CSV and as JSONL, is refused with
 *   413 `WALLET.TOO_MANY_ROWS` (`details.limit`) and nothing is stored — a file of 20,000 rows
 *   while it is still being sent (only its first 64 KiB ever are: the read stops at row 51, the rest
 *   is never needed); exactly the cap is matched;
 * - (b) one pit manager's repeated uploads past the runs budget (`WALLET_BUDGET_RUNS_PER_DAY` = 3)
 *   and another's past the items budget (`WALLET_BUDGET_ITEMS_PER_DAY` = 100) get 429
 *   `WALLET.BUDGET_EXHAUSTED` with `Retry-After`, and store nothing more; a third caller is not held
 *   by their budgets;
 * - (c) the retention (`WALLET_RETENTION_DAYS` = 30): a run older than it loses its items (the run,
 *   its totals and summary stay, with `itemsPrunedAt`; reading its items: 404 `WALLET.ITEMS_PRUNED`),
 *   a younger one keeps them; the API's role can neither delete items itself nor prune under a
 *   day's retention, and the owner cannot delete a run's items by hand.
 *
 * Each failed on the code before these bounds: (a) the file was matched and stored whatever its
 * rows (201), and the partly sent one got no answer; (b) every upload was stored (201); (c) nothing ever deleted a run's items (and the
 * sweeper did not exist).
 * The hang timer below only detects the old code's behaviour (no answer); no assertion depends on speed.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { WalletRetentionSweeper } from '../../apps/ledger/src/wallet/wallet-retention';
import { LedgerHarness, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(180_000);

/** How long the partly sent upload may go unanswered before the test calls it a hang (the old code's failure), in ms. */
const HANG_MS = 30_000;

const HEADER = 'transactionId,type,amount,currency,time';
/** A CSV of `n` rows of made-up bets (each MISSING_IN_LEDGER: one item a row). */
const csvOf = (n: number, tag: string) => [HEADER, ...Array.from({ length: n }, (_, i) => `${tag}-${i}:bet,bet,1000,EUR,2026-01-05T10:00:00Z`)].join('\n') + '\n';
const jsonlOf = (n: number, tag: string) => Array.from({ length: n }, (_, i) => JSON.stringify({ transactionId: `${tag}-${i}:bet`, type: 'bet', amount: '1000', currency: 'EUR', time: '2026-01-05T10:00:00Z' })).join('\n') + '\n';

describe('wallet matching is bounded', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger({ env: { WALLET_FILE_MAX_ROWS: '50', WALLET_BUDGET_RUNS_PER_DAY: '3', WALLET_BUDGET_ITEMS_PER_DAY: '100', WALLET_RETENTION_DAYS: '30' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an answer the contract check validates
  const json = async (r: Response): Promise<any> => r.json();
  const bearer = (sub: string) => ({ authorization: `Bearer ${h.client.token('pit-manager', sub)}` });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an answer the contract check validates
  async function upload(sub: string, body: string, contentType = 'text/csv'): Promise<{ status: number; body: any; retryAfter: string | null }> {
    const res = await fetch(`${h.baseUrl}/reconciliation/wallet-files`, { method: 'POST', headers: { ...bearer(sub), 'content-type': contentType }, body });
    return { status: res.status, body: await json(res), retryAfter: res.headers.get('retry-after') };
  }
  /** POSTs the first `sentBytes` of `body` (declaring its whole length) and never the rest: only a server that answers before reading it all answers at all. */
  function partialUpload(sub: string, body: string, sentBytes: number): Promise<{ status: number; body: any } | 'hang'> {
    const url = new URL('/reconciliation/wallet-files', h.baseUrl);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        req.destroy();
        resolve('hang');
      }, HANG_MS);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...bearer(sub), 'content-type': 'text/csv', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      });
      req.on('error', (e) => (/ECONNRESET|EPIPE/.test(String((e as NodeJS.ErrnoException).code)) ? undefined : reject(e)));
      req.write(body.slice(0, sentBytes));
    });
  }
  const stored = async (sub: string) => (await h.ds.query(`SELECT count(*)::int AS runs, coalesce(sum(item_count), 0)::int AS items FROM wallet_match_runs WHERE actor_id = $1`, [sub]))[0] as { runs: number; items: number };

  it('(a) a file over the row cap is refused with WALLET.TOO_MANY_ROWS and stores nothing; exactly the cap is matched', async () => {
    const sub = `pm-cap-${randomUUID().slice(0, 8)}`;
    for (const [body, type] of [
      [csvOf(51, 'cap'), 'text/csv'],
      [jsonlOf(51, 'cap'), 'application/x-ndjson'],
    ] as const) {
      const r = await upload(sub, body, type);
      expect([r.status, r.body.error?.code, r.body.error?.details?.limit]).toEqual([413, 'WALLET.TOO_MANY_ROWS', 50]);
    }
    const big = csvOf(20_000, 'cap-big');
    expect(Buffer.byteLength(big)).toBeGreaterThan(15 * 65_536);
    const partly = await partialUpload(sub, big, 65_536);
    expect(partly).toMatchObject({ status: 413, body: { error: { code: 'WALLET.TOO_MANY_ROWS', details: { limit: 50 } } } });
    expect(await stored(sub)).toEqual({ runs: 0, items: 0 });
    const ok = await upload(sub, csvOf(50, 'cap'));
    expect([ok.status, ok.body.file?.rows, ok.body.itemCount]).toEqual([201, 50, 50]);
    expect(await stored(sub)).toEqual({ runs: 1, items: 50 });
  });

  it('(b) uploads past the runs or the items budget of a caller get 429 WALLET.BUDGET_EXHAUSTED with Retry-After and store nothing', async () => {
    const many = `pm-runs-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 3; i++) expect((await upload(many, csvOf(1, `runs-${i}`))).status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const r = await upload(many, csvOf(1, 'runs-over'));
      expect([r.status, r.body.error?.code, r.body.error?.details?.budget, r.body.error?.details?.limit, r.body.error?.details?.used]).toEqual([429, 'WALLET.BUDGET_EXHAUSTED', 'runs', 3, 3]);
      // the window is 24 h from the oldest run, which was just stored
      expect(r.body.error.details.retryAfterSeconds).toBeGreaterThan(23 * 3600);
      expect(r.retryAfter).toBe(String(r.body.error.details.retryAfterSeconds));
    }
    expect(await stored(many)).toEqual({ runs: 3, items: 3 });

    const big = `pm-items-${randomUUID().slice(0, 8)}`;
    expect((await upload(big, csvOf(40, 'items-1'))).status).toBe(201);
    expect((await upload(big, csvOf(40, 'items-2'))).status).toBe(201);
    const over = await upload(big, csvOf(40, 'items-3'));
    expect([over.status, over.body.error?.code, over.body.error?.details?.budget, over.body.error?.details?.used]).toEqual([429, 'WALLET.BUDGET_EXHAUSTED', 'items', 80]);
    expect(Number(over.retryAfter)).toBeGreaterThan(0);
    expect(await stored(big)).toEqual({ runs: 2, items: 80 });
    // what still fits is stored
    expect((await upload(big, csvOf(20, 'items-4'))).status).toBe(201);

    // the budget is the caller's: another pit manager uploads
    expect((await upload(`pm-other-${randomUUID().slice(0, 8)}`, csvOf(1, 'other'))).status).toBe(201);
  });

  it('(c) the items of a run older than the retention are pruned, the run and its summary kept; a younger run keeps its items', async () => {
    const sub = `pm-old-${randomUUID().slice(0, 8)}`;
    const oldRun = randomUUID();
    const youngRun = randomUUID();
    for (const [runId, days, items] of [
      [oldRun, 31, 3],
      [youngRun, 29, 2],
    ] as const) {
      await h.ds.query(
        `INSERT INTO wallet_match_runs (run_id, created_at, actor_id, actor_role, format, file_sha256, file_bytes, file_rows, column_map, from_day, to_day, scope_source, totals, summary, zero_not_in_file, item_count)
         VALUES ($1, now() - make_interval(days => $2), $3, 'pit-manager', 'csv', $4, 100, $5, '{}', '2026-01-05', '2026-01-05', 'file',
                 $6, '[]', 0, $5)`,
        [runId, days, sub, 'a'.repeat(64), items, JSON.stringify({ MATCHED: 0, MISSING_IN_WALLET: 0, MISSING_IN_LEDGER: items, AMOUNT_DIFFERS: 0, FIELDS_DIFFER: 0, DUPLICATED: 0 })],
      );
      for (let seq = 1; seq <= items; seq++) {
        await h.ds.query(
          `INSERT INTO wallet_match_items (run_id, seq, status, transaction_id, type, currency, gaming_day, wallet_amount, wallet_line, differences) VALUES ($1, $2, 'MISSING_IN_LEDGER', $3, 'bet', 'EUR', '2026-01-05', 1000, $2 + 1, '{}')`,
          [runId, seq, `old-${seq}:bet`],
        );
      }
    }

    // the API's own role cannot delete items, nor prune what the retention keeps; the owner cannot delete them by hand
    const app = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app });
    await app.connect();
    try {
      await expect(app.query(`DELETE FROM wallet_match_items WHERE run_id = $1`, [youngRun])).rejects.toMatchObject({ code: '42501' });
      await expect(app.query(`SELECT * FROM wallet_match_prune(0, 10)`)).rejects.toMatchObject({ code: '22023' });
    } finally {
      await app.end();
    }
    await expect(h.ds.query(`DELETE FROM wallet_match_items WHERE run_id = $1`, [youngRun])).rejects.toMatchObject({ driverError: { code: 'LA001' } });

    const pruned = await h.app.get(WalletRetentionSweeper).pruneOnce();
    expect(pruned?.runs).toBeGreaterThanOrEqual(1);
    const itemsOf = async (runId: string) => Number((await h.ds.query(`SELECT count(*)::int AS n FROM wallet_match_items WHERE run_id = $1`, [runId]))[0].n);
    expect([await itemsOf(oldRun), await itemsOf(youngRun)]).toEqual([0, 2]);

    const auditor = { authorization: `Bearer ${h.client.token('auditor', 'aud-bounds')}` };
    const run = await json(await fetch(`${h.baseUrl}/reconciliation/wallet-files/${oldRun}`, { headers: auditor }));
    expect(run).toMatchObject({ runId: oldRun, itemCount: 3, totals: { MISSING_IN_LEDGER: 3 }, file: { sha256: 'a'.repeat(64) } });
    expect(typeof run.itemsPrunedAt).toBe('string');
    for (const format of ['json', 'csv']) {
      const res = await fetch(`${h.baseUrl}/reconciliation/wallet-files/${oldRun}/items?format=${format}`, { headers: auditor });
      const body = await json(res);
      expect([res.status, body.error?.code, body.error?.details?.runId]).toEqual([404, 'WALLET.ITEMS_PRUNED', oldRun]);
    }
    const young = await fetch(`${h.baseUrl}/reconciliation/wallet-files/${youngRun}/items`, { headers: auditor });
    expect([young.status, (await json(young)).items.length]).toEqual([200, 2]);
    expect(
      (await h.ds.query(`SELECT items_deleted, retention_days FROM wallet_match_prunes WHERE run_id = $1`, [oldRun])).map((r: { items_deleted: number; retention_days: number }) => [r.items_deleted, r.retention_days]),
    ).toEqual([[3, 30]]);

    // a second prune has nothing left of these runs
    await h.app.get(WalletRetentionSweeper).pruneOnce();
    expect([await itemsOf(oldRun), await itemsOf(youngRun)]).toEqual([0, 2]);
  });
});
