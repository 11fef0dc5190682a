import { Bool, Columns, Enum, Int, Str } from './openapi-props';

/**
 * The schemas of a shoe's bead plate and big road, shared by the roads of a shoe (`shoe-views/`) and
 * the console's tables page (`console-reads/`) (docs/openapi.json; the console's types are generated
 * from it). Classes only describe; the services answer plain objects of these shapes.
 */

/** One bead of the bead plate: a counted round; `column`, `row` its place on a 6-row plate (0-based). */
export class BeadCell {
  @Str() roundId!: string;
  @Int() handNumber!: number;
  @Enum(['P', 'B', 'T']) result!: string;
  @Bool() playerPair!: boolean;
  @Bool() bankerPair!: boolean;
  @Bool() natural!: boolean;
  @Int() column!: number;
  @Int() row!: number;
}

/** A big-road cell: a Player or Banker win, with the ties that followed it. */
export class BigRoadCell {
  @Enum(['P', 'B']) result!: string;
  @Str() roundId!: string;
  @Int() handNumber!: number;
  @Bool() playerPair!: boolean;
  @Bool() bankerPair!: boolean;
  @Int('ties recorded on this cell') ties!: number;
}

/** The big road: columns of streaks (logical; the drawing wraps at 6 rows), ties before the first win. */
export class BigRoad {
  @Int() leadingTies!: number;
  @Columns(BigRoadCell) columns!: BigRoadCell[][];
}
