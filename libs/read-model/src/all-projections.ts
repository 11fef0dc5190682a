import type { Projection } from '@ledger/projections';
import { auditEventsProjection } from './audit/projection';
import { handOutcomesProjection } from './outcomes/projection';
import { reconciliationProjection } from './reconciliation/projection';
import { roadsProjection } from './roads/projection';
import { betSettlementsProjection } from './settlements/projection';
import { shoeStateProjection } from './shoe-state/projection';
import { significantEventsProjection } from './significant-events/projection';

/**
 * Every projection of the read model, handed to the projector engine (`@ledger/projections`:
 * runner, applier, rebuild, checksums). The order does not matter (each reads other projections'
 * tables only in its `prepare`, before any of them applies the event, or at commit; see the engine's
 * `projection.ts`), and the order-independence spec runs them in other orders to prove it; this one
 * is the order of the checksums report.
 */
export const ALL_PROJECTIONS: readonly Projection[] = [auditEventsProjection, shoeStateProjection, reconciliationProjection, handOutcomesProjection, betSettlementsProjection, roadsProjection, significantEventsProjection];
