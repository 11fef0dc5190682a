/**
 * Laying out the roads (scoreboards) of a shoe on the 6-row grid of a casino display.
 *
 * The API sends roads as LOGICAL columns (libs/read-model/src/roads/roads.ts, docs/architecture.md
 * §7): a big-road column holds the whole streak, however long. Drawing them is left to the console:
 *
 * - **Bead plate**: one cell per counted round, top to bottom, 6 rows per column (column-major).
 * - **Big road and derived roads** (big eye boy, small road, cockroach pig): each logical column
 *   starts at row 0 of the grid column right of where the previous logical column started (or the
 *   first free one after it); its cells go down; when a cell would fall below the 6th row, or on a
 *   grid cell already taken (by an earlier column's tail), the column turns right and continues along
 *   that row: the "dragon tail".
 *
 * Pure functions (no DOM, no React): unit-tested in test/console/roads-layout.unit.spec.ts.
 */

/** Rows of every road's grid (the casino scoreboard's height). */
export const ROAD_ROWS = 6;

/** One item placed on the grid: `col`, `row` are 0-based grid coordinates (row 0 at the top). */
export interface PlacedCell<T> {
  readonly col: number;
  readonly row: number;
  readonly item: T;
  /** Index of the logical column the item belongs to (0-based). */
  readonly logicalColumn: number;
  /** Index of the item in its logical column (0-based). */
  readonly indexInColumn: number;
  /** True when the cell is part of a dragon tail (placed to the right instead of below). */
  readonly tail: boolean;
}

/** A laid-out road: the placed cells and the grid's size (`columns` = rightmost used column + 1). */
export interface GridLayout<T> {
  readonly cells: readonly PlacedCell<T>[];
  readonly columns: number;
  readonly rows: number;
}

/**
 * Lays out logical columns (big road, derived roads) on a grid of `rows` rows with the dragon tail.
 * @param columns logical columns in order; each holds the streak's items top to bottom
 * @param rows grid height, {@link ROAD_ROWS} unless given
 * @returns every item with its grid place, in the order given (column by column)
 * @throws RangeError when `rows` is not a positive integer
 */
export function layoutColumns<T>(columns: readonly (readonly T[])[], rows: number = ROAD_ROWS): GridLayout<T> {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`rows must be a positive integer, got ${rows}`);
  const taken = new Set<string>();
  const key = (c: number, r: number) => `${c},${r}`;
  const cells: PlacedCell<T>[] = [];
  let start = -1;
  let width = 0;
  columns.forEach((column, logicalColumn) => {
    if (column.length === 0) return;
    let col = start + 1;
    while (taken.has(key(col, 0))) col++;
    start = col;
    let row = 0;
    let turned = false;
    column.forEach((item, indexInColumn) => {
      if (indexInColumn > 0) {
        if (!turned && row + 1 < rows && !taken.has(key(col, row + 1))) row++;
        else {
          turned = true;
          col++;
          while (taken.has(key(col, row))) col++;
        }
      }
      taken.add(key(col, row));
      cells.push({ col, row, item, logicalColumn, indexInColumn, tail: turned });
      width = Math.max(width, col + 1);
    });
  });
  return { cells, columns: width, rows };
}

/**
 * Lays out a bead plate: item i at column ⌊i / rows⌋, row i mod rows (column-major, no tail).
 * @param items the counted rounds in hand order
 */
export function layoutBeads<T>(items: readonly T[], rows: number = ROAD_ROWS): GridLayout<T> {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`rows must be a positive integer, got ${rows}`);
  const cells = items.map((item, i) => ({
    col: Math.floor(i / rows),
    row: i % rows,
    item,
    logicalColumn: Math.floor(i / rows),
    indexInColumn: i % rows,
    tail: false,
  }));
  return { cells, columns: items.length === 0 ? 0 : Math.floor((items.length - 1) / rows) + 1, rows };
}

/**
 * The last `visible` grid columns of a layout (a miniature shows the recent end of the shoe, as a
 * table's display scrolls): cells moved left so the window starts at column 0.
 * @param visible how many grid columns to keep; a layout narrower than that is returned unchanged
 */
export function lastColumns<T>(layout: GridLayout<T>, visible: number): GridLayout<T> {
  if (layout.columns <= visible) return layout;
  const shift = layout.columns - visible;
  return {
    rows: layout.rows,
    columns: visible,
    cells: layout.cells.filter((c) => c.col >= shift).map((c) => ({ ...c, col: c.col - shift })),
  };
}
