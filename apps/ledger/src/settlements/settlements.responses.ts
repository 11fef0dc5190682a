import { List, NStr } from '../kernel/openapi-props';
import { Settlement, SettlementRevision } from '../kernel/settlement.dto';

/**
 * The response schemas of the settlements (docs/openapi.json; the console's types are generated from
 * it). Classes only describe; the services answer plain objects of these shapes. Amounts: strings of
 * integer minor units. Times: ISO-8601 UTC.
 */

/** A bet's history entry as `GET /settlements/{betId}` shows it. */
export class SettlementWithHistory extends Settlement {
  @List(() => SettlementRevision) history!: SettlementRevision[];
}

/** `GET /settlements`: by bet id. */
export class SettlementsPage {
  @List(() => Settlement) items!: Settlement[];
  @NStr() nextCursor!: string | null;
}
