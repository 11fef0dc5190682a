import { RECONCILIATION_DIMENSION_NAMES } from '../kernel/query.dto';
import { isReconciliationDimension, RECONCILIATION_DIMENSIONS } from './reconciliation.service';

// (was in kernel/query.dto.unit.spec.ts; the map is the reconciliation read's, in this feature)
describe('reconciliation dimensions (docs/guarantees.md §11)', () => {
  it('dimensions are Set / Map lookups: no prototype name is a dimension', () => {
    for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect([k, RECONCILIATION_DIMENSION_NAMES.has(k), isReconciliationDimension(k), RECONCILIATION_DIMENSIONS.get(k as never)]).toEqual([k, false, false, undefined]);
    }
    expect(isReconciliationDimension('day')).toBe(true);
  });
});
