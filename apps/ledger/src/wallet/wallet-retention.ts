import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { rows } from '../kernel/sql';
import { DATA_SOURCE } from '../kernel/tokens';

/** How often the items past the retention are deleted, in milliseconds (1 h). */
export const WALLET_PRUNE_INTERVAL_MS = 3_600_000;
/** Runs whose items one statement deletes at most (each run's in one DELETE). */
export const WALLET_PRUNE_RUNS_PER_STATEMENT = 20;
/** Statements one prune runs at most (a longer backlog is caught up at the next ones). */
const MAX_STATEMENTS = 50;

/** What one prune deleted. */
export interface WalletPruneResult {
  /** Runs whose items were deleted. */
  readonly runs: number;
  /** Items deleted. */
  readonly items: number;
}

/**
 * The retention of wallet matching (docs/reports.md §4.5): once when the API starts, then every
 * {@link WALLET_PRUNE_INTERVAL_MS}, deletes the items of the runs older than `WALLET_RETENTION_DAYS`
 * through the database's `wallet_match_prune` (the API's role has no DELETE right of its own; the
 * function keeps each run's row and records the prune in `wallet_match_prunes`). A failed prune is
 * logged at `error` and tried again at the next tick, never fatal. Several API instances may prune
 * at once (the function skips the runs another one holds).
 */
@Injectable()
export class WalletRetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WalletRetentionSweeper');
  private readonly retentionDays: number;
  private timer: NodeJS.Timeout | null = null;
  private last: Promise<WalletPruneResult | null> = Promise.resolve(null);

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.retentionDays = config.get('WALLET_RETENTION_DAYS', { infer: true });
  }

  onApplicationBootstrap(): void {
    void this.pruneOnce();
    this.timer = setInterval(() => void this.pruneOnce(), WALLET_PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.last;
  }

  /** One prune, after any still running; never throws (null when it failed). */
  pruneOnce(): Promise<WalletPruneResult | null> {
    this.last = this.last.then(() => this.prune());
    return this.last;
  }

  private async prune(): Promise<WalletPruneResult | null> {
    let runs = 0;
    let items = 0;
    try {
      for (let i = 0; i < MAX_STATEMENTS; i++) {
        const pruned = await rows<{ pruned_run_id: string; pruned_items: number }>(this.ds, `SELECT pruned_run_id, pruned_items FROM wallet_match_prune($1, $2)`, [this.retentionDays, WALLET_PRUNE_RUNS_PER_STATEMENT]);
        runs += pruned.length;
        items += pruned.reduce((n, r) => n + Number(r.pruned_items), 0);
        if (pruned.length < WALLET_PRUNE_RUNS_PER_STATEMENT) break;
      }
      if (runs > 0) this.logger.log({ runs, items, retentionDays: this.retentionDays }, 'wallet match items past their retention deleted');
      return { runs, items };
    } catch (err) {
      this.logger.error({ err, runs, items }, 'could not delete the wallet match items past their retention');
      return null;
    }
  }
}
