import fc from 'fast-check';
import { beadPlate, bigRoad, computeRoads, derivedRoad, RoadRound, RoadWinner } from './roads';

/** Rounds from a compact string: P/B/T per hand, hand numbers 1.. in order. */
function rounds(seq: string): RoadRound[] {
  const w: Record<string, RoadWinner> = { P: 'PLAYER', B: 'BANKER', T: 'TIE' };
  return [...seq].map((ch, i) => ({
    roundId: `r${i + 1}`,
    handNumber: i + 1,
    winner: w[ch],
    playerPair: false,
    bankerPair: false,
    natural: false,
  }));
}

const shape = (seq: string) => bigRoad(rounds(seq)).columns.map((c) => c.map((x) => x.result + (x.ties ? `+${x.ties}T` : '')).join(''));
const colours = (seq: string, n: 1 | 2 | 3) =>
  derivedRoad(bigRoad(rounds(seq)), n)
    .entries.map((e) => (e.colour === 'RED' ? 'R' : 'b'))
    .join('');

describe('big road', () => {
  it('a Tie after a Player win leaves one column; the next Banker win starts a second', () => {
    const road = bigRoad(rounds('PTB'));
    expect(road.leadingTies).toBe(0);
    expect(road.columns).toHaveLength(2);
    expect(road.columns[0]).toHaveLength(1);
    expect(road.columns[0][0]).toMatchObject({ result: 'P', roundId: 'r1', ties: 1 });
    expect(road.columns[1]).toEqual([{ result: 'B', roundId: 'r3', handNumber: 3, playerPair: false, bankerPair: false, ties: 0 }]);
  });

  it('ties before any Player/Banker win are a leading tie count, not cells', () => {
    const road = bigRoad(rounds('TTPTTB'));
    expect(road.leadingTies).toBe(2);
    expect(shape('TTPTTB')).toEqual(['P+2T', 'B']);
  });

  it('streaks of one winner stack in one column; a Tie never breaks a streak', () => {
    expect(shape('BBPPPBTPBBBBPP')).toEqual(['BB', 'PPP', 'B+1T', 'P', 'BBBB', 'PP']);
  });

  it('orders rounds by hand number whatever order they are given in', () => {
    const rs = rounds('PPB').reverse();
    expect(bigRoad(rs).columns.map((c) => c.map((x) => x.roundId))).toEqual([['r1', 'r2'], ['r3']]);
  });
});

describe('bead plate', () => {
  it('holds every round, ties included, top to bottom in columns of 6', () => {
    const plate = beadPlate(rounds('PBTPBTP'));
    expect(plate.map((b) => b.result).join('')).toBe('PBTPBTP');
    expect(plate[5]).toMatchObject({ column: 0, row: 5 });
    expect(plate[6]).toMatchObject({ column: 1, row: 0, handNumber: 7 });
  });

  it('carries the pair flags of each round', () => {
    const rs = rounds('PB').map((r, i) => ({ ...r, playerPair: i === 0, bankerPair: i === 1 }));
    expect(beadPlate(rs).map((b) => [b.playerPair, b.bankerPair])).toEqual([
      [true, false],
      [false, true],
    ]);
  });
});

describe('derived roads on a worked example', () => {
  /*
   * Hands: B B P P P B T P B B B P P   (13 hands)
   *
   * Big road (column: cells), lengths L:
   *   c0: B B        L0 = 2
   *   c1: P P P      L1 = 3
   *   c2: B(+1 tie)  L2 = 1
   *   c3: P          L3 = 1
   *   c4: B B B      L4 = 3
   *   c5: P P        L5 = 2
   *
   * Rules (offset n): first cell of column c → L[c-1] == L[c-1-n] ? RED : BLUE;
   * cell at row r ≥ 1 of column c → look at L[c-n]: > r RED, == r BLUE, < r RED.
   *
   * Big eye boy (n = 1), starts at (c1, r1):
   *   (c1,r1) L0=2 > 1 → R   (c1,r2) L0=2 == 2 → B
   *   (c2,r0) L1=3 vs L0=2 → B
   *   (c3,r0) L2=1 vs L1=3 → B
   *   (c4,r0) L3=1 vs L2=1 → R   (c4,r1) L3=1 == 1 → B   (c4,r2) L3=1 < 2 → R
   *   (c5,r0) L4=3 vs L3=1 → B   (c5,r1) L4=3 > 1 → R
   *   => R B B B R B R B R ; columns [R] [B B B] [R] [B] [R] [B] [R]
   *
   * Small road (n = 2), (c2,r1) does not exist, so it starts at (c3, r0):
   *   (c3,r0) L2=1 vs L0=2 → B
   *   (c4,r0) L3=1 vs L1=3 → B   (c4,r1) L2=1 == 1 → B   (c4,r2) L2=1 < 2 → R
   *   (c5,r0) L4=3 vs L2=1 → B   (c5,r1) L3=1 == 1 → B
   *   => B B B R B B ; columns [B B B] [R] [B B]
   *
   * Cockroach pig (n = 3), (c3,r1) does not exist, so it starts at (c4, r0):
   *   (c4,r0) L3=1 vs L0=2 → B   (c4,r1) L1=3 > 1 → R   (c4,r2) L1=3 > 2 → R
   *   (c5,r0) L4=3 vs L1=3 → R   (c5,r1) L2=1 == 1 → B
   *   => B R R R B ; columns [B] [R R R] [B]
   */
  const seq = 'BBPPPBTPBBBPP';

  it('big road', () => {
    expect(shape(seq)).toEqual(['BB', 'PPP', 'B+1T', 'P', 'BBB', 'PP']);
  });

  it('big eye boy', () => {
    expect(colours(seq, 1)).toBe('RbbbRbRbR');
    const road = derivedRoad(bigRoad(rounds(seq)), 1);
    expect(road.entries[0]).toEqual({ colour: 'RED', column: 1, row: 1 });
    expect(road.columns.map((c) => c.length)).toEqual([1, 3, 1, 1, 1, 1, 1]);
  });

  it('small road', () => {
    expect(colours(seq, 2)).toBe('bbbRbb');
    const road = derivedRoad(bigRoad(rounds(seq)), 2);
    expect(road.entries[0]).toEqual({ colour: 'BLUE', column: 3, row: 0 });
    expect(road.columns).toEqual([['BLUE', 'BLUE', 'BLUE'], ['RED'], ['BLUE', 'BLUE']]);
  });

  it('cockroach pig', () => {
    expect(colours(seq, 3)).toBe('bRRRb');
    expect(derivedRoad(bigRoad(rounds(seq)), 3).columns).toEqual([['BLUE'], ['RED', 'RED', 'RED'], ['BLUE']]);
  });

  it('computeRoads bundles the same roads', () => {
    const r = computeRoads(rounds(seq));
    expect(r.beadPlate).toHaveLength(13);
    expect(r.bigEyeBoy.entries).toHaveLength(9);
    expect(r.smallRoad.entries).toHaveLength(6);
    expect(r.cockroachPig.entries).toHaveLength(5);
  });

  it('a road starts at (column n, row 1) when that cell exists', () => {
    // B B P: c0 = BB, c1 = P → big eye boy needs (c1,r1) or (c2,r0): neither exists yet
    expect(colours('BBP', 1)).toBe('');
    // B B P P: (c1,r1) exists, L0 = 2 > 1 → RED
    expect(colours('BBPP', 1)).toBe('R');
  });

  it('an empty or all-tie shoe has empty roads', () => {
    const r = computeRoads(rounds('TT'));
    expect(r.bigRoad).toEqual({ leadingTies: 2, columns: [] });
    expect(r.bigEyeBoy.entries).toEqual([]);
    expect(r.beadPlate).toHaveLength(2);
  });
});

describe('road invariants (property)', () => {
  const seqArb = fc.array(fc.constantFrom('P', 'B', 'T'), { maxLength: 90 }).map((a) => a.join(''));

  it('big road: one cell per P/B, ties all accounted, columns alternate winners', () => {
    fc.assert(
      fc.property(seqArb, (seq) => {
        const road = bigRoad(rounds(seq));
        const cells = road.columns.flat();
        expect(cells.length).toBe(seq.replace(/T/g, '').length);
        expect(road.leadingTies + cells.reduce((n, c) => n + c.ties, 0)).toBe(seq.split('T').length - 1);
        road.columns.forEach((col, i) => {
          expect(new Set(col.map((c) => c.result)).size).toBe(1);
          if (i > 0) expect(col[0].result).not.toBe(road.columns[i - 1][0].result);
        });
      }),
    );
  });

  it('derived roads: one entry per big-road cell from the start cell on; columns regroup the entries', () => {
    fc.assert(
      fc.property(seqArb, fc.constantFrom<1 | 2 | 3>(1, 2, 3), (seq, n) => {
        const big = bigRoad(rounds(seq));
        const road = derivedRoad(big, n);
        const eligible = big.columns.reduce((k, col, c) => k + col.filter((_, r) => (r === 0 ? c >= n + 1 : c >= n)).length, 0);
        expect(road.entries).toHaveLength(eligible);
        expect(road.columns.flat()).toEqual(road.entries.map((e) => e.colour));
      }),
    );
  });
});
