import type { BeadCell, BigRoadCell, DerivedRoad } from './roads';

/** The table of the roads read model (`roads/projection.ts`): one row per shoe (migration 1733000000000). */
export const ROADS_TABLE = 'roads';

/**
 * A row of `roads` as PostgreSQL returns it through `pg`: integer as a number, bigint as a decimal
 * string, jsonb parsed (the roads of `roads.ts`, as the projection writes them).
 */
export interface RoadsRow {
  readonly shoe_id: string;
  readonly table_id: string;
  /** Rounds RESULTED or CORRECTED. */
  readonly rounds_counted: number;
  /** Ties before the big road's first column. */
  readonly leading_ties: number;
  readonly bead_plate: BeadCell[];
  /** The big road's columns (`BigRoad.columns`). */
  readonly big_road: BigRoadCell[][];
  readonly big_eye_boy: DerivedRoad;
  readonly small_road: DerivedRoad;
  readonly cockroach_pig: DerivedRoad;
  /** The last event that changed the shoe's rounds. */
  readonly last_event_id: string;
  readonly last_global_position: string;
}
