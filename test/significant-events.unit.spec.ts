import { ERROR_CODES } from '@ledger/errors';
import { EVENT_TYPES } from '@ledger/events';
import { SIGNIFICANT_EVENTS, SIGNIFICANT_EVENT_CODES, catalogueProblems, type CatalogueReferences, type SignificantEventSpec } from '@ledger/significant-events';
import type { OccurredAtRefusal } from '../apps/ledger/src/shoe/occurred-at';
import { collectVarDocs } from '../scripts/gen-config-docs';

/**
 * The significant-event catalogue (`@ledger/significant-events`, docs/significant-events.md) against
 * the rest of the product: every event type it names is in the event catalogue (`@ledger/events`),
 * every error code in the error table (`@ledger/errors`), and every threshold variable is a variable
 * of the configuration schemas (`@ledger/config`, docs/configuration.md) whose default there is the
 * default the catalogue states. The library's own spec checks the rest, and that each check bites.
 */
describe('the significant-event catalogue against the product', () => {
  const vars = collectVarDocs();
  const refs: CatalogueReferences = { eventTypes: EVENT_TYPES, errorCodes: ERROR_CODES, settings: new Map(vars.map((v) => [v.name, v.actualDefault])) };

  it('names only event types, error codes and configuration variables that exist, with their defaults', () => {
    expect(catalogueProblems(Object.entries(SIGNIFICANT_EVENTS), refs)).toEqual([]);
  });

  it('reads every threshold from a variable of the API, documented in docs/configuration.md', () => {
    const settings = SIGNIFICANT_EVENT_CODES.flatMap((c) => (SIGNIFICANT_EVENTS[c].threshold ?? []).map((t) => t.setting));
    expect(new Set(settings)).toEqual(new Set(['SIGNIFICANT_WIN_MULTIPLE', 'SIGNIFICANT_WIN_AMOUNT_MINOR', 'OCCURRED_AT_MAX_SKEW_MS', 'RATE_LIMIT_STORM_PER_MINUTE', 'FAIRNESS_ALERT_CONFIDENCE']));
    for (const s of settings) expect(vars.find((v) => v.name === s)?.usedBy).toContain('API');
  });

  it("names only reasons the API gives for a refused occurredAt (the compiler checks the list against the API's type)", () => {
    const skewReasons = ['IN_THE_FUTURE', 'BEFORE_SHOE_OPENED'] as const satisfies readonly OccurredAtRefusal[];
    const [refused] = SIGNIFICANT_EVENTS['DEVICE.CLOCK_SKEW'].raisedBy;
    expect(refused).toEqual({ kind: 'refusal', errorCode: 'TIME.OCCURRED_AT_OUT_OF_RANGE', reasons: skewReasons });
  });

  it('bites on a threshold whose default drifts from the schema, and on a variable the schemas do not have (deliberately broken fixtures)', () => {
    const skew = SIGNIFICANT_EVENTS['DEVICE.CLOCK_SKEW'];
    const drifted: SignificantEventSpec = { ...skew, threshold: [{ ...skew.threshold[0], default: 2000 }] };
    expect(catalogueProblems([['DEVICE.CLOCK_SKEW', drifted]], refs)).toEqual(['DEVICE.CLOCK_SKEW: OCCURRED_AT_MAX_SKEW_MS defaults to 5000 in the configuration, the catalogue says 2000']);
    const unknown = { ...skew, threshold: [{ ...skew.threshold[0], setting: 'DEVICE_CLOCK_SKEW_BOUND_MS' }] } as unknown as SignificantEventSpec;
    expect(catalogueProblems([['DEVICE.CLOCK_SKEW', unknown]], refs)).toEqual(['DEVICE.CLOCK_SKEW: threshold variable DEVICE_CLOCK_SKEW_BOUND_MS is not a configuration variable']);
  });
});
