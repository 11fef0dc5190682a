/**
 * The wallet upload's memory against the file's rows (docs/reports.md §4.5): uploads made-up CSV
 * files of 10,000 and 200,000 rows (every row a bet the ledger lacks: one item a row, the ledger's
 * side empty) through `WalletService.upload` — the streamed pipeline with its staging tables, on the
 * real PostgreSQL as `ledger_app` — each in a child Node process of its own, and prints the child's
 * peak RSS (`process.resourceUsage().maxRSS`) and time. The same files are also read and matched
 * whole in memory (`readWalletFile` + `matchWallet`, what the upload did before it was streamed) as
 * the reference. Every child runs under `--max-old-space-size=96` (MiB): a pipeline whose memory
 * grows with the rows runs out of heap, one that is flat completes. No HTTP server: the figure is
 * the pipeline's, in a bare process (its baseline is the modules it loads).
 *
 * `TEST_DATABASE_URL=postgres://ledger_owner:…/<a migrated scratch database> npm run bench:wallet-memory`.
 * The runs it stores (420,000 items) stay in that database: use a scratch one, not a test database
 * the suites share (the evidence checks recompute every stored run's items).
 */
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import type { ConfigService } from '@nestjs/config';
import { databaseUrlForRole, type LedgerApiEnv } from '@ledger/config';
import { createDataSource } from '@ledger/event-store';
import type { ReadModel } from '@ledger/read-model';
import { columnMap, readWalletFile } from '../apps/ledger/src/wallet/wallet-file';
import { matchWallet } from '../apps/ledger/src/wallet/wallet-match';
import { WalletService } from '../apps/ledger/src/wallet/wallet.service';

const SIZES = [10_000, 200_000];
const HEAP_MIB = 96;

/** A CSV of `n` made-up rows, made 1,000 rows at a time (the file itself is never held whole). */
function* csv(n: number): Generator<Buffer> {
  yield Buffer.from('transactionId,betId,roundId,accountId,type,amount,currency,time\n');
  for (let i = 0; i < n; i += 1000) {
    let s = '';
    for (let k = i; k < Math.min(n, i + 1000); k++) {
      s += `wallet-transaction-${k}-abcdefghij:bet,bet-${k}-abcdefghij,round-${k % 977}-abcdef,account-${k % 313}-abcdef,bet,${1000 + (k % 5000)},EUR,2026-01-0${5 + (k % 3)}T12:${String(k % 60).padStart(2, '0')}:00Z\n`;
    }
    yield Buffer.from(s);
  }
}

/** One measurement, in this (child) process: prints `{ items }` as JSON. */
async function child(mode: string, n: number): Promise<void> {
  const settlements = { walletScopeCount: async () => 0, walletBets: async () => [], walletBetsOutside: async () => [] };
  const readModel = { settlements, on: () => ({ settlements }) } as unknown as ReadModel;
  const env: Partial<LedgerApiEnv> = {
    GAMING_DAY_TZ: 'UTC',
    GAMING_DAY_CUTOFF_HOUR: 0,
    WALLET_FILE_MAX_BYTES: 100 << 20,
    WALLET_FILE_MAX_ROWS: 300_000,
    WALLET_BUDGET_RUNS_PER_DAY: 1_000_000,
    WALLET_BUDGET_ITEMS_PER_DAY: 1_000_000_000,
  };
  const config = { get: (k: keyof LedgerApiEnv) => env[k] } as unknown as ConfigService<LedgerApiEnv, true>;
  const ds = createDataSource(databaseUrlForRole(process.env.TEST_DATABASE_URL ?? '', 'ledger_app'), { poolSize: 2, applicationName: 'bench-wallet-memory' });
  await ds.initialize();
  try {
    const svc = new WalletService(ds, readModel, config);
    const map = columnMap().map;
    let items: number;
    if (mode === 'whole-file') {
      const f = await readWalletFile(Readable.from(csv(n)), { format: 'csv', map, limitBytes: 100 << 20, limitRows: 300_000 });
      items = matchWallet(f.rows, [], { kind: 'days', fromDay: '2026-01-05', toDay: '2026-01-07' }, svc.dayOf).items.length;
    } else {
      items = (await svc.upload(Readable.from(csv(n)), { format: 'csv', map, mapGiven: {}, actor: { id: `bench-wallet-${n}-${Date.now()}`, role: 'pit-manager' } })).itemCount;
    }
    console.log(JSON.stringify({ items }));
  } finally {
    await ds.destroy();
  }
}

/** Runs each mode and size in a child and prints a table. */
function parent(): void {
  const lines = [`| pipeline | rows | completed under ${HEAP_MIB} MiB of heap | peak RSS (MiB) | seconds |`, '|---|---|---|---|---|'];
  for (const mode of ['streamed', 'whole-file']) {
    for (const n of SIZES) {
      const t0 = Date.now();
      const script = `require('${__filename}').measure(${JSON.stringify(mode)}, ${n}).then(() => console.log('maxRSS=' + process.resourceUsage().maxRSS))`;
      const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, '--import', 'tsx', '-e', script], { encoding: 'utf8', env: process.env, maxBuffer: 1 << 24 });
      const rss = /maxRSS=(\d+)/.exec(r.stdout)?.[1];
      const ok = r.status === 0 && rss !== undefined;
      lines.push(
        `| ${mode} | ${n.toLocaleString('en')} | ${ok ? 'yes' : `no (${/heap out of memory/.test(r.stderr) ? 'out of heap' : `exit ${r.status}`})`} | ${ok ? (Number(rss) / 1024).toFixed(0) : '—'} | ${((Date.now() - t0) / 1000).toFixed(1)} |`,
      );
    }
  }
  console.log(lines.join('\n'));
}

/** The child's entry point (see {@link parent}). */
export const measure = child;

if (require.main === module) parent();
