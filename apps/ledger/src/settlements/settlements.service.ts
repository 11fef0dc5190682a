import { Inject, Injectable } from '@nestjs/common';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { decodeIdCursor, keysetPage, type Page } from '../kernel/pagination';
import { READ_MODEL } from '../kernel/tokens';
import { withBetTransaction, withWalletTransactions } from '../kernel/as-of/wallet-transactions';

/** Filters of the settlement list. */
export interface SettlementFilters {
  tableId?: string | null;
  shoeId?: string | null;
  roundId?: string | null;
  accountId?: string | null;
  status?: string | null;
  limit: number;
  cursor?: string | null;
}

/**
 * The settlements as they stand (`bet_settlements` and their revisions, through the read model,
 * `READ_MODEL`), with the wallet transaction ids of each entry (docs/reports.md §4). Amounts are
 * strings of minor units. As known at a position: `AsOfReadService` (kernel).
 */
@Injectable()
export class SettlementsService {
  constructor(@Inject(READ_MODEL) private readonly readModel: ReadModel) {}

  /** Settlements by table, shoe, round, account or status, ordered by bet id; keyset pagination. */
  async settlements(f: SettlementFilters): Promise<Page<Record<string, unknown>>> {
    const rows = await this.readModel.settlements.page({ ...f, afterBetId: decodeIdCursor(f.cursor), take: f.limit + 1 });
    const page = keysetPage(rows, f.limit, (r) => r.bet_id);
    return { ...page, items: page.items.map(withBetTransaction) };
  }

  /** One bet with its whole settlement history. @throws ApiError 404 `BET.NOT_FOUND` */
  async settlement(betId: string) {
    const bet = await this.readModel.settlements.one(betId);
    if (!bet) throw new ApiError('BET.NOT_FOUND', `no bet ${betId} (or not projected yet)`);
    const history = await this.readModel.settlements.history(betId);
    return {
      ...withBetTransaction(camel(bet)),
      history: withWalletTransactions(
        betId,
        bet.stake,
        history.map((h) => camel<{ kind: string; revision: number; payout: string | null }>(h)),
      ),
    };
  }
}
