import { auditEventsProjection } from './audit-events.projection';
import { betSettlementsProjection } from './bet-settlements.projection';
import { handOutcomesProjection } from './hand-outcomes.projection';
import type { Projection } from './projection';
import { reconciliationProjection } from './reconciliation.projection';
import { roadsProjection } from './roads.projection';
import { shoeStateProjection } from './shoe-state.projection';

export * from './projection';
export { auditEventsProjection, betSettlementsProjection, handOutcomesProjection, reconciliationProjection, roadsProjection, shoeStateProjection };

/**
 * Every projection, in the order each event is applied to them. The order matters:
 * - shoe_state before hand_outcomes: a round takes the shoe's dealer, currency, paytable;
 * - reconciliation before hand_outcomes and bet_settlements: it reads their rows as they were
 *   before the event (the payout a resettlement replaces, whether a voided round was resulted);
 * - roads last: it reads hand_outcomes (and runs at commit anyway).
 */
export const ALL_PROJECTIONS: readonly Projection[] = [
  auditEventsProjection,
  shoeStateProjection,
  reconciliationProjection,
  handOutcomesProjection,
  betSettlementsProjection,
  roadsProjection,
];
