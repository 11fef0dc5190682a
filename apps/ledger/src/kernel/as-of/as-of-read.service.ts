import { Inject, Injectable } from '@nestjs/common';
import type { ReadModel, SettlementPageFilters } from '@ledger/read-model';
import { ApiError } from '../api-error';
import { camel } from '../camel';
import { READ_MODEL } from '../tokens';
import { decodeIdCursor, encodeCursor, type Page } from '../pagination';
import type { AsOf } from './as-of';
import { AsOfPositionService } from './as-of-position.service';
import { toFigures, type ReconciliationFigures, type ReconciliationScope } from './reconciliation-sql';
import { withBetTransaction, withWalletTransactions } from './wallet-transactions';

/** Filters of `GET /settlements?asOf=` (those of the live list; `status` is the status then). */
export type SettlementAsOfFilters = Omit<SettlementPageFilters, 'afterBetId' | 'take'> & { limit: number; cursor?: string | null };

/**
 * The reads "as the ledger knew it at time T" (docs/reports.md §3): the reconciliation report (the
 * position-stamped entries at or below the position), the settlement list and one settlement (the
 * projections' revision rows at the global position of `asOf`), never from a second copy; all through
 * the read model (`READ_MODEL`). Recall is cut by `recallAsOf`.
 * Every method first resolves and checks the position ({@link AsOfPositionService.resolve}).
 */
@Injectable()
export class AsOfReadService {
  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    private readonly positions: AsOfPositionService,
  ) {}

  /**
   * The reconciliation report at `position` (null: live): the sum of the `ledger_entries` at or below it.
   * @returns rows as `GET /reports/reconciliation` answers them
   */
  async reconciliationAt(scope: ReconciliationScope, position: bigint | null): Promise<ReconciliationFigures[]> {
    const r = this.readModel.reconciliation;
    return (position === null ? await r.live(scope) : await r.asOf(position, scope)).map(toFigures);
  }

  /** The reconciliation report as of `asOf`, with the position it was computed at. @throws ApiError 409 `ASOF.NOT_PROJECTED` */
  async reconciliation(scope: ReconciliationScope, asOf: AsOf): Promise<{ position: bigint; rows: ReconciliationFigures[] }> {
    const position = await this.positions.resolve(asOf);
    return { position, rows: await this.reconciliationAt(scope, position) };
  }

  /**
   * `GET /settlements?asOf=`: bets placed by then, each in the state it had then; keyset pages by bet id.
   * @throws ApiError 409 `ASOF.NOT_PROJECTED`; 400 `VALIDATION.FAILED` for a foreign cursor
   */
  async settlements(f: SettlementAsOfFilters, asOf: AsOf): Promise<Page<Record<string, unknown>>> {
    const position = await this.positions.resolve(asOf);
    const { limit, cursor, ...filters } = f;
    const rows = await this.readModel.settlements.pageAsOf(position, { ...filters, afterBetId: decodeIdCursor(cursor), take: limit + 1 });
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return { items: items.map((r) => withBetTransaction(camel(r))), nextCursor: more ? encodeCursor(items[items.length - 1].bet_id) : null };
  }

  /**
   * `GET /settlements/{betId}?asOf=`: the bet as it stood then, with its history up to then.
   * @throws ApiError 404 `BET.NOT_FOUND` (not placed by then, or never), 409 `ASOF.NOT_PROJECTED`
   */
  async settlement(betId: string, asOf: AsOf) {
    const position = await this.positions.resolve(asOf);
    const found = await this.readModel.settlements.oneAsOf(position, betId);
    if (!found) throw new ApiError('BET.NOT_FOUND', `no bet ${betId} at global position ${position}`, { betId });
    const bet = camel(found.bet);
    // the wallet transactions as the live read gives them (docs/reports.md §4): derived from the history known then
    return { ...withBetTransaction(bet), history: withWalletTransactions(betId, String(bet.stake), found.history.map(camel) as { kind: string; revision: number; payout: string | null }[]) };
  }
}
