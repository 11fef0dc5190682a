import { IntVar } from '../env-var';
import type { EnvClass } from './common';

/**
 * `WALLET_FILE_MAX_ROWS`, `WALLET_BUDGET_RUNS_PER_DAY`, `WALLET_BUDGET_ITEMS_PER_DAY`,
 * `WALLET_RETENTION_DAYS`: the bounds of wallet matching (docs/reports.md §4.5) — the rows of one
 * upload, what one caller may store per rolling 24 hours, and how long a run's items are kept.
 * (The file's size is `WALLET_FILE_MAX_BYTES`, among the edge limits.)
 */
export function WithWalletLimits<B extends EnvClass>(Base: B) {
  class WalletLimitsEnv extends Base {
    /**
     * Most rows (records) one wallet file of `POST /reconciliation/wallet-files` may hold: the
     * parser stops at the first row over it and the upload is refused as a whole (413
     * `WALLET.TOO_MANY_ROWS`, nothing stored). The API holds at most 1,000 of them at a time (staged in the database, docs/reports.md §4.5).
     * @default 200000
     */
    @IntVar(1, 5_000_000, 'rows')
    WALLET_FILE_MAX_ROWS: number = 200_000;

    /**
     * Wallet match runs one caller (token subject) may store per rolling 24 hours; one more: 429
     * `WALLET.BUDGET_EXHAUSTED` (budget `runs`) with `Retry-After`, before the file is read.
     * @default 100
     */
    @IntVar(1, 1_000_000, 'runs')
    WALLET_BUDGET_RUNS_PER_DAY: number = 100;

    /**
     * Items (rows of `wallet_match_items`: the file's rows plus the ledger's transactions missing in
     * the wallet) one caller's runs may store per rolling 24 hours; a run that would pass it is not
     * stored: 429 `WALLET.BUDGET_EXHAUSTED` (budget `items`) with `Retry-After`.
     * @default 1000000
     */
    @IntVar(1, 1_000_000_000, 'items')
    WALLET_BUDGET_ITEMS_PER_DAY: number = 1_000_000;

    /**
     * Days a wallet match run's items are kept; then the API deletes them (at start, then hourly)
     * and keeps the run itself (who, when, the file's SHA-256, scope, totals and summary) for good.
     * Reading a pruned run's items: 404 `WALLET.ITEMS_PRUNED`.
     * @default 90
     */
    @IntVar(1, 36_500, 'days')
    WALLET_RETENTION_DAYS: number = 90;
  }
  return WalletLimitsEnv;
}
