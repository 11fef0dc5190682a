import { first, rows, tablesIn, type Queryable } from '../sql';
import { ROADS_TABLE, type RoadsRow } from './tables';

/**
 * The roads read model's queries (docs/architecture.md §7): a shoe's scoreboards (bead plate, big
 * road and the derived roads, `libs/projections/src/roads/roads.ts`), whole or for the tables page.
 */

/** The roads read model's tables (their names are declared in `tables.ts`). */
export const ROAD_TABLES = { roads: ROADS_TABLE } as const;

/** What the tables page shows of a shoe's roads. */
export type RoadsSummaryRow = Pick<RoadsRow, 'shoe_id' | 'leading_ties' | 'bead_plate' | 'big_road'>;

/** The reads of the roads read model on one connection (or pool). */
export class RoadReads {
  private readonly t: { readonly roads: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, ROAD_TABLES);
  }

  /** A shoe's roads; `undefined` before its first projected round. */
  ofShoe(shoeId: string): Promise<RoadsRow | undefined> {
    return first<RoadsRow>(this.q, `SELECT * FROM ${this.t.roads} WHERE shoe_id = $1`, [shoeId]);
  }

  /** The bead plate and big road of each shoe given that has roads (on the roads' key). */
  summaries(shoeIds: readonly string[]): Promise<RoadsSummaryRow[]> {
    return rows<RoadsSummaryRow>(this.q, `SELECT shoe_id, leading_ties, bead_plate, big_road FROM ${this.t.roads} WHERE shoe_id = ANY($1::text[])`, [[...shoeIds]]);
  }
}
