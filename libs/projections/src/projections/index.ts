import { auditEventsProjection } from './audit-events.projection';
import { betSettlementsProjection } from './bet-settlements.projection';
import { handOutcomesProjection } from './hand-outcomes.projection';
import type { Projection } from './projection';
import { reconciliationProjection } from './reconciliation.projection';
import { roadsProjection } from './roads.projection';
import { shoeStateProjection } from './shoe-state.projection';

export * from './projection';
export * from './projection-set';
export { addReconciliation, entryRow, LEDGER_ENTRIES_TABLE, RECONCILIATION_TABLE, type ReconciliationDelta, type ReconciliationKey } from './reconciliation.projection';
export { auditEventsProjection, betSettlementsProjection, handOutcomesProjection, reconciliationProjection, roadsProjection, shoeStateProjection };

/**
 * Every projection. The order does not matter (each reads other projections' tables only in its
 * `prepare`, before any of them applies the event, or at commit; see `projection.ts`), and the
 * order-independence spec runs them in other orders to prove it; this one is the order of the
 * checksums report.
 */
export const ALL_PROJECTIONS: readonly Projection[] = [
  auditEventsProjection,
  shoeStateProjection,
  reconciliationProjection,
  handOutcomesProjection,
  betSettlementsProjection,
  roadsProjection,
];
