import { Inject, Injectable } from '@nestjs/common';
import { isReconciliationDimension, RECONCILIATION_DIMENSIONS, type ReadModel, type ReconciliationDimension } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { READ_MODEL } from '../kernel/tokens';
import { toFigures, type ReconciliationFigures } from '../kernel/as-of/reconciliation-sql';

// the dimensions of the reconciliation report are the read model's (the only identifiers its SQL takes from a request)
export { isReconciliationDimension, RECONCILIATION_DIMENSIONS, type ReconciliationDimension };

/** Filters of the reconciliation report. Days are gaming days `YYYY-MM-DD`, inclusive. */
export interface ReconciliationFilters {
  groupBy: ReconciliationDimension[];
  tableId?: string | null;
  shoeId?: string | null;
  dealerId?: string | null;
  currency?: string | null;
  fromDay?: string | null;
  toDay?: string | null;
}

/** A reconciliation row (the shape the live read and the as-of core share: {@link ReconciliationFigures}). */
export type ReconciliationRow = ReconciliationFigures;

/**
 * The live reconciliation report, read through the read model (`READ_MODEL`): the sum of every
 * position-stamped entry (`ledger_entries`). As known at a position: `AsOfReadService` (kernel), the
 * same query bounded (docs/reports.md §3). Amounts are strings of minor units.
 */
@Injectable()
export class ReconciliationService {
  constructor(@Inject(READ_MODEL) private readonly readModel: ReadModel) {}

  /**
   * The reconciliation report grouped by any of table, shoe, dealer, day, currency (docs/domain-rules.md §4): turnover,
   * payouts, GGR = turnover − payouts, hold, with voided stakes and correction deltas apart.
   * @throws ApiError 400 `VALIDATION.FAILED` for a dimension the read model does not know
   */
  async reconciliation(f: ReconciliationFilters): Promise<ReconciliationRow[]> {
    for (const d of f.groupBy) {
      if (!RECONCILIATION_DIMENSIONS.has(d)) throw new ApiError('VALIDATION.FAILED', 'groupBy: unknown dimension', { groupBy: String(d).slice(0, 64) });
    }
    return (await this.readModel.reconciliation.live(f)).map(toFigures);
  }
}
