import { layoutBeads, layoutColumns, lastColumns, ROAD_ROWS } from '../../apps/console/src/lib/roads-layout';

/** "col,row" of each placed cell, in order: compact to compare. */
function places<T>(l: { cells: readonly { col: number; row: number }[] }): string[] {
  return l.cells.map((c) => `${c.col},${c.row}`);
}
const streak = (n: number, tag = 'x') => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe('roads layout (apps/console/src/lib/roads-layout.ts)', () => {
  it('puts each logical column in the next grid column, top to bottom', () => {
    const l = layoutColumns([streak(2, 'P'), streak(1, 'B'), streak(3, 'P')]);
    expect(places(l)).toEqual(['0,0', '0,1', '1,0', '2,0', '2,1', '2,2']);
    expect(l.columns).toBe(3);
    expect(l.rows).toBe(ROAD_ROWS);
    expect(l.cells.every((c) => !c.tail)).toBe(true);
  });

  it('turns a streak longer than 6 right along the bottom row (dragon tail)', () => {
    const l = layoutColumns([streak(8, 'B')]);
    expect(places(l)).toEqual(['0,0', '0,1', '0,2', '0,3', '0,4', '0,5', '1,5', '2,5']);
    expect(l.cells.map((c) => c.tail)).toEqual([false, false, false, false, false, false, true, true]);
    expect(l.columns).toBe(3);
  });

  it('turns the next column early when its next cell is taken by an earlier tail', () => {
    const l = layoutColumns([streak(8, 'B'), streak(7, 'P'), streak(1, 'B')]);
    expect(places(l)).toEqual([
      '0,0',
      '0,1',
      '0,2',
      '0,3',
      '0,4',
      '0,5',
      '1,5',
      '2,5', // B tail along row 5
      '1,0',
      '1,1',
      '1,2',
      '1,3',
      '1,4',
      '2,4',
      '3,4', // P blocked at (1,5): turns at row 4
      '2,0', // the next column starts right of the previous column's start
    ]);
    expect(new Set(places(l)).size).toBe(l.cells.length); // no two cells on one place
    expect(l.cells[15]).toMatchObject({ item: 'B0', logicalColumn: 2, indexInColumn: 0 });
  });

  it('starts a column at the first free top cell when a tail runs along row 0', () => {
    const l = layoutColumns([streak(3, 'P'), streak(1, 'B')], 1);
    expect(places(l)).toEqual(['0,0', '1,0', '2,0', '3,0']);
  });

  it('lays out a derived road (colours) the same way', () => {
    const l = layoutColumns([['RED', 'RED'], ['BLUE'], ['RED', 'RED', 'RED', 'RED', 'RED', 'RED', 'RED']]);
    expect(places(l)).toEqual(['0,0', '0,1', '1,0', '2,0', '2,1', '2,2', '2,3', '2,4', '2,5', '3,5']);
    expect(l.cells.map((c) => c.item).join(' ')).toBe('RED RED BLUE RED RED RED RED RED RED RED');
  });

  it('skips empty logical columns and lays out nothing for an empty road', () => {
    expect(layoutColumns([])).toEqual({ cells: [], columns: 0, rows: 6 });
    expect(places(layoutColumns([[], ['a']]))).toEqual(['0,0']);
  });

  it('refuses a grid without rows', () => {
    expect(() => layoutColumns([['a']], 0)).toThrow(RangeError);
    expect(() => layoutBeads(['a'], 1.5)).toThrow(RangeError);
  });

  it('lays out the bead plate column-major, 6 rows per column', () => {
    const l = layoutBeads(streak(13));
    expect(l.columns).toBe(3);
    expect(places(l).slice(0, 7)).toEqual(['0,0', '0,1', '0,2', '0,3', '0,4', '0,5', '1,0']);
    expect(l.cells[12]).toMatchObject({ col: 2, row: 0, item: 'x12' });
    expect(layoutBeads([]).columns).toBe(0);
  });

  it('keeps the last columns of a wide road for a miniature', () => {
    const l = layoutColumns([streak(8, 'B'), streak(1, 'P'), streak(2, 'B')]);
    expect(places(l)).toEqual(['0,0', '0,1', '0,2', '0,3', '0,4', '0,5', '1,5', '2,5', '1,0', '2,0', '2,1']);
    const w = lastColumns(l, 2);
    expect(w.columns).toBe(2);
    expect(places(w)).toEqual(['0,5', '1,5', '0,0', '1,0', '1,1']);
    expect(lastColumns(l, 10)).toBe(l);
  });
});
