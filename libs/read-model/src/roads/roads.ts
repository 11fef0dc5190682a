/**
 * Baccarat scoreboards ("roads") of a shoe, computed from its resulted rounds (docs/architecture.md §7).
 *
 * PURE: no I/O, no framework, no clock. Input is the shoe's rounds that count (resulted or
 * corrected, never voided) in hand order, with their CURRENT outcome (after any correction);
 * the read side recomputes the roads of a shoe from scratch whenever one of its rounds is
 * resulted, voided or corrected, so a correction or void rewrites history as the standard
 * scoreboards would after a result edit.
 *
 * Roads are logical: columns hold as many cells as the streak has. Wrapping a long streak to the
 * right at the 6th row ("dragon tail") is left to whoever draws them.
 *
 * - Bead plate: every counted round in order, `P`/`B`/`T` with pair flags, laid out top to bottom
 *   in columns of 6.
 * - Big road: one column per streak of the same winner (Player or Banker). A tie does not make a
 *   cell: it is counted on the most recent cell (so a Tie after a Player win leaves one column and
 *   the next Banker win starts a second). Ties before the first Player/Banker result are the
 *   `leadingTies` count.
 * - Derived roads (big eye boy n = 1, small road n = 2, cockroach pig n = 3), from the big road:
 *   for each big-road cell, where defined,
 *     - first cell of column c (row 0): compare the lengths of columns c−1 and c−1−n: equal → RED,
 *       different → BLUE (needs c ≥ n+1);
 *     - cell at row r ≥ 1 of column c: look at column c−n (needs c ≥ n): a cell at row r → RED;
 *       no cell at row r but one at row r−1 → BLUE; neither → RED.
 *   So each derived road starts at the big road's cell (column n, row 1), or, if that column has
 *   only one cell, at the first cell of column n+1. Its entries are shown in columns of
 *   consecutive same colour, like the big road.
 */

/** The winner of a round as the catalogue spells it (`RoundOutcomeData.winner`). */
export type RoadWinner = 'PLAYER' | 'BANKER' | 'TIE';

/** A counted round, in the shape the roads need. */
export interface RoadRound {
  readonly roundId: string;
  /** The round's number in its shoe (RoundOpened.handNumber); rounds are ordered by it. */
  readonly handNumber: number;
  readonly winner: RoadWinner;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  readonly natural: boolean;
}

/** Letter of a result on the bead plate. */
export type BeadResult = 'P' | 'B' | 'T';

/** One bead: one counted round. `column`, `row`: its place on a 6-row plate (0-based). */
export interface BeadCell {
  readonly roundId: string;
  readonly handNumber: number;
  readonly result: BeadResult;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  readonly natural: boolean;
  readonly column: number;
  readonly row: number;
}

/** One cell of the big road: a Player or Banker win, with the ties that followed it. */
export interface BigRoadCell {
  readonly result: 'P' | 'B';
  readonly roundId: string;
  readonly handNumber: number;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  /** Ties recorded on this cell (rounds tied after this win, before the next Player/Banker win). */
  readonly ties: number;
}

/** The big road: columns of streaks, and ties before the first Player/Banker win. */
export interface BigRoad {
  readonly leadingTies: number;
  readonly columns: readonly (readonly BigRoadCell[])[];
}

/** Colour of a derived-road entry: RED = the big road repeats its pattern, BLUE = it breaks it. */
export type DerivedColour = 'RED' | 'BLUE';

/** One derived-road entry and the big-road cell (column, row, 0-based) it was computed for. */
export interface DerivedEntry {
  readonly colour: DerivedColour;
  readonly column: number;
  readonly row: number;
}

/** A derived road: entries in order, and the same entries grouped into columns of one colour. */
export interface DerivedRoad {
  /** Column offset n: 1 big eye boy, 2 small road, 3 cockroach pig. */
  readonly offset: 1 | 2 | 3;
  readonly entries: readonly DerivedEntry[];
  readonly columns: readonly (readonly DerivedColour[])[];
}

/** Every road of a shoe. */
export interface Roads {
  readonly beadPlate: readonly BeadCell[];
  readonly bigRoad: BigRoad;
  readonly bigEyeBoy: DerivedRoad;
  readonly smallRoad: DerivedRoad;
  readonly cockroachPig: DerivedRoad;
}

/** Rows of a bead plate column. */
export const BEAD_PLATE_ROWS = 6;

const LETTER: Record<RoadWinner, BeadResult> = { PLAYER: 'P', BANKER: 'B', TIE: 'T' };

function inHandOrder(rounds: readonly RoadRound[]): RoadRound[] {
  return [...rounds].sort((a, b) => a.handNumber - b.handNumber || (a.roundId < b.roundId ? -1 : a.roundId > b.roundId ? 1 : 0));
}

/** The bead plate: every round given, in hand order, 6 per column. */
export function beadPlate(rounds: readonly RoadRound[]): BeadCell[] {
  return inHandOrder(rounds).map((r, i) => ({
    roundId: r.roundId,
    handNumber: r.handNumber,
    result: LETTER[r.winner],
    playerPair: r.playerPair,
    bankerPair: r.bankerPair,
    natural: r.natural,
    column: Math.floor(i / BEAD_PLATE_ROWS),
    row: i % BEAD_PLATE_ROWS,
  }));
}

/** The big road of the rounds given (in hand order). */
export function bigRoad(rounds: readonly RoadRound[]): BigRoad {
  let leadingTies = 0;
  const columns: BigRoadCell[][] = [];
  for (const r of inHandOrder(rounds)) {
    if (r.winner === 'TIE') {
      const col = columns[columns.length - 1];
      if (!col) leadingTies++;
      else {
        const last = col[col.length - 1];
        col[col.length - 1] = { ...last, ties: last.ties + 1 };
      }
      continue;
    }
    const cell: BigRoadCell = {
      result: LETTER[r.winner] as 'P' | 'B',
      roundId: r.roundId,
      handNumber: r.handNumber,
      playerPair: r.playerPair,
      bankerPair: r.bankerPair,
      ties: 0,
    };
    const col = columns[columns.length - 1];
    if (col && col[0].result === cell.result) col.push(cell);
    else columns.push([cell]);
  }
  return { leadingTies, columns };
}

/**
 * The colour for the big-road cell at (`column`, `row`) on the derived road of offset `n`, or
 * `null` where that road has no entry for the cell (too early in the shoe). Rules in the module doc.
 */
export function derivedColour(lengths: readonly number[], column: number, row: number, n: number): DerivedColour | null {
  if (row === 0) {
    if (column < n + 1) return null;
    return lengths[column - 1] === lengths[column - 1 - n] ? 'RED' : 'BLUE';
  }
  if (column < n) return null;
  const other = lengths[column - n];
  if (other > row) return 'RED'; // a cell at the same row
  if (other === row) return 'BLUE'; // none at this row, one just above
  return 'RED'; // none at this row nor above
}

/** A derived road (n = 1 big eye boy, 2 small road, 3 cockroach pig) of a big road. */
export function derivedRoad(road: BigRoad, n: 1 | 2 | 3): DerivedRoad {
  const lengths = road.columns.map((c) => c.length);
  const entries: DerivedEntry[] = [];
  road.columns.forEach((col, c) => {
    for (let r = 0; r < col.length; r++) {
      const colour = derivedColour(lengths, c, r, n);
      if (colour) entries.push({ colour, column: c, row: r });
    }
  });
  const columns: DerivedColour[][] = [];
  for (const e of entries) {
    const last = columns[columns.length - 1];
    if (last && last[0] === e.colour) last.push(e.colour);
    else columns.push([e.colour]);
  }
  return { offset: n, entries, columns };
}

/** Every road of a shoe from its counted rounds (any order; sorted by hand number here). */
export function computeRoads(rounds: readonly RoadRound[]): Roads {
  const big = bigRoad(rounds);
  return {
    beadPlate: beadPlate(rounds),
    bigRoad: big,
    bigEyeBoy: derivedRoad(big, 1),
    smallRoad: derivedRoad(big, 2),
    cockroachPig: derivedRoad(big, 3),
  };
}
