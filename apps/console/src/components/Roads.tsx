import { useId, type ReactNode } from 'react';
import { lastColumns, layoutBeads, layoutColumns, ROAD_ROWS, type GridLayout } from '../lib/roads-layout';

/**
 * The five roads of a shoe drawn as a casino scoreboard (SVG, 6 rows; docs/architecture.md §7,
 * libs/read-model/src/roads/roads.ts for what they mean). Each SVG is an image with a `<title>`
 * and a text description (`aria-labelledby`), so a screen reader hears e.g. "Big road: 23 columns,
 * last Banker ×3".
 *
 * Colours: Banker red, Player blue, Tie green (white letters on them: WCAG AA contrast). Pairs are
 * dots: banker pair red at the top left, player pair blue at the bottom right.
 */

/** A bead as `GET /shoes/{id}/roads` sends it (`BeadCell`). */
export interface BeadLike {
  readonly result: string;
  readonly handNumber: number;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
}
/** A big-road cell as the API sends it (`BigRoadCell`). */
export interface BigCellLike {
  readonly result: string;
  readonly handNumber: number;
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  readonly ties: number;
}

const COLOUR: Record<string, string> = { P: '#0b57d0', B: '#b3261e', T: '#146c2e', RED: '#b3261e', BLUE: '#0b57d0' };
const WORD: Record<string, string> = { P: 'Player', B: 'Banker', T: 'Tie', RED: 'red', BLUE: 'blue' };

/** Size of a drawn road: `full` on the shoe page, `mini` on the tables page. */
export type RoadSize = 'full' | 'mini';

interface FrameProps {
  readonly title: string;
  readonly desc: string;
  readonly columns: number;
  readonly cell: number;
  readonly testId: string;
  readonly children: ReactNode;
}

/** The board: a grid of `columns` × 6 cells with a title and a description. */
function Board({ title, desc, columns, cell, testId, children }: FrameProps) {
  const id = useId();
  const w = columns * cell + 1;
  const h = ROAD_ROWS * cell + 1;
  const lines: ReactNode[] = [];
  for (let c = 0; c <= columns; c++) lines.push(<line key={`v${c}`} x1={c * cell + 0.5} y1={0} x2={c * cell + 0.5} y2={h} />);
  for (let r = 0; r <= ROAD_ROWS; r++) lines.push(<line key={`h${r}`} x1={0} y1={r * cell + 0.5} x2={w} y2={r * cell + 0.5} />);
  return (
    <svg className="road" role="img" aria-labelledby={`${id}-t ${id}-d`} width={w} height={h} viewBox={`0 0 ${w} ${h}`} data-testid={testId} data-columns={columns}>
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>{desc}</desc>
      <rect x={0} y={0} width={w} height={h} fill="#fff" />
      <g stroke="#d0d7de" strokeWidth={1}>
        {lines}
      </g>
      {children}
    </svg>
  );
}

function minColumns(size: RoadSize): number {
  return size === 'mini' ? 12 : 20;
}
function maxMini(size: RoadSize, layout: GridLayout<unknown>): number {
  return size === 'mini' ? 14 : layout.columns;
}
function cellSize(size: RoadSize, base: number): number {
  return size === 'mini' ? Math.round(base / 2) : base;
}

/** Pair dots in a cell at (x, y) of size s: banker pair top left (red), player pair bottom right (blue). */
function Pairs({ x, y, s, banker, player }: { x: number; y: number; s: number; banker: boolean; player: boolean }) {
  const r = Math.max(1.5, s / 8);
  return (
    <>
      {banker ? <circle cx={x + r + 1} cy={y + r + 1} r={r} fill={COLOUR.B} stroke="#fff" strokeWidth={0.5} data-pair="banker" /> : null}
      {player ? <circle cx={x + s - r - 1} cy={y + s - r - 1} r={r} fill={COLOUR.P} stroke="#fff" strokeWidth={0.5} data-pair="player" /> : null}
    </>
  );
}

function tally(results: readonly string[]): string {
  const n = (k: string) => results.filter((r) => r === k).length;
  return `Banker ${n('B')}, Player ${n('P')}, Tie ${n('T')}`;
}

/** The bead plate: every counted round in hand order, 6 per column, P / B / T with pairs. */
export function BeadPlate({ beads, size = 'full' }: { beads: readonly BeadLike[]; size?: RoadSize }) {
  const full = layoutBeads(beads);
  const layout = lastColumns(full, maxMini(size, full));
  const s = cellSize(size, 24);
  const columns = Math.max(layout.columns, minColumns(size));
  const title = `Bead plate: ${beads.length} rounds`;
  const desc = beads.length ? `${tally(beads.map((b) => b.result))}. Last: ${WORD[beads[beads.length - 1].result] ?? beads[beads.length - 1].result} (hand ${beads[beads.length - 1].handNumber}).` : 'No counted round yet.';
  return (
    <Board title={title} desc={desc} columns={columns} cell={s} testId="road-bead-plate">
      {layout.cells.map(({ col, row, item }) => {
        const x = col * s;
        const y = row * s;
        return (
          <g key={item.handNumber} data-result={item.result}>
            <circle cx={x + s / 2 + 0.5} cy={y + s / 2 + 0.5} r={s / 2 - 1.5} fill={COLOUR[item.result] ?? '#57606a'} />
            {size === 'full' ? (
              <text x={x + s / 2 + 0.5} y={y + s / 2 + 5} textAnchor="middle" fontSize={13} fontWeight={700} fill="#fff">
                {item.result}
              </text>
            ) : null}
            <Pairs x={x} y={y} s={s} banker={item.bankerPair} player={item.playerPair} />
          </g>
        );
      })}
    </Board>
  );
}

/**
 * The big road: one column per streak (rings, with the dragon tail), a tie as a green slash across
 * the cell it follows (with the count when more than one), pairs as dots; ties before the first
 * Player/Banker result are marked on the first cell (or an empty first cell) and said in the description.
 */
export function BigRoad({ columns, leadingTies, size = 'full' }: { columns: readonly (readonly BigCellLike[])[]; leadingTies: number; size?: RoadSize }) {
  const full = layoutColumns(columns);
  const layout = lastColumns(full, maxMini(size, full));
  const s = cellSize(size, 24);
  const width = Math.max(layout.columns, minColumns(size));
  const cells = columns.flat();
  const last = columns[columns.length - 1];
  const ties = cells.reduce((n, c) => n + c.ties, leadingTies);
  const desc = last
    ? `${columns.length} columns; Banker ${cells.filter((c) => c.result === 'B').length}, Player ${cells.filter((c) => c.result === 'P').length}, ties ${ties}. Current streak: ${WORD[last[0].result] ?? last[0].result} ×${last.length}.`
    : leadingTies
      ? `${leadingTies} tie(s), no Player or Banker win yet.`
      : 'No counted round yet.';
  return (
    <Board title={`Big road: ${columns.length} columns`} desc={desc} columns={width} cell={s} testId="road-big-road">
      {leadingTies > 0 && cells.length === 0 ? <TieMark x={0} y={0} s={s} n={leadingTies} size={size} /> : null}
      {layout.cells.map(({ col, row, item, logicalColumn, indexInColumn }) => {
        const x = col * s;
        const y = row * s;
        // ties before the first win are marked on the first cell, as a casino board does
        const shownTies = item.ties + (logicalColumn === 0 && indexInColumn === 0 ? leadingTies : 0);
        return (
          <g key={item.handNumber} data-result={item.result} data-ties={item.ties}>
            <circle cx={x + s / 2 + 0.5} cy={y + s / 2 + 0.5} r={s / 2 - (size === 'mini' ? 2 : 3)} fill="none" stroke={COLOUR[item.result] ?? '#57606a'} strokeWidth={size === 'mini' ? 2 : 3} />
            {shownTies > 0 ? <TieMark x={x} y={y} s={s} n={shownTies} size={size} /> : null}
            <Pairs x={x} y={y} s={s} banker={item.bankerPair} player={item.playerPair} />
          </g>
        );
      })}
    </Board>
  );
}

/** A tie on a big-road cell: a green slash, with the number of ties when more than one. */
function TieMark({ x, y, s, n, size }: { x: number; y: number; s: number; n: number; size: RoadSize }) {
  return (
    <g data-tie={n}>
      <line x1={x + s - 3} y1={y + 3} x2={x + 3} y2={y + s - 3} stroke={COLOUR.T} strokeWidth={size === 'mini' ? 1.5 : 2.5} strokeLinecap="round" />
      {n > 1 && size === 'full' ? (
        <text x={x + s / 2 + 0.5} y={y + s / 2 + 4.5} textAnchor="middle" fontSize={11} fontWeight={700} fill={COLOUR.T}>
          {n}
        </text>
      ) : null}
    </g>
  );
}

/** The three derived roads and how each draws an entry. */
export const DERIVED = {
  bigEyeBoy: { name: 'Big eye boy', mark: 'ring' },
  smallRoad: { name: 'Small road', mark: 'dot' },
  cockroachPig: { name: 'Cockroach pig', mark: 'slash' },
} as const;

/** Which derived road: big eye boy (rings), small road (dots), cockroach pig (slashes). */
export type DerivedKind = keyof typeof DERIVED;

/**
 * A derived road: its columns of one colour (red = the big road repeats its pattern, blue = it
 * breaks it) on a 6-row grid with the dragon tail, half the big road's cell size.
 */
export function DerivedRoadView({ kind, columns, size = 'full' }: { kind: DerivedKind; columns: readonly (readonly string[])[]; size?: RoadSize }) {
  const full = layoutColumns(columns);
  const layout = lastColumns(full, maxMini(size, full));
  const s = size === 'mini' ? 8 : 14;
  const width = Math.max(layout.columns, minColumns(size));
  const { name, mark } = DERIVED[kind];
  const entries = columns.flat();
  const red = entries.filter((e) => e === 'RED').length;
  const last = columns[columns.length - 1];
  const desc = last ? `${entries.length} entries: red ${red}, blue ${entries.length - red}. Current: ${WORD[last[0]] ?? last[0]} ×${last.length}.` : 'No entry yet (too early in the shoe).';
  return (
    <Board title={`${name}: ${columns.length} columns`} desc={desc} columns={width} cell={s} testId={`road-${kind}`}>
      {layout.cells.map(({ col, row, item, logicalColumn, indexInColumn }) => {
        const x = col * s;
        const y = row * s;
        const c = COLOUR[item] ?? '#57606a';
        const key = `${logicalColumn}-${indexInColumn}`;
        if (mark === 'ring') return <circle key={key} data-colour={item} cx={x + s / 2 + 0.5} cy={y + s / 2 + 0.5} r={s / 2 - 2.5} fill="none" stroke={c} strokeWidth={2} />;
        if (mark === 'dot') return <circle key={key} data-colour={item} cx={x + s / 2 + 0.5} cy={y + s / 2 + 0.5} r={s / 2 - 2} fill={c} />;
        return <line key={key} data-colour={item} x1={x + s - 2.5} y1={y + 2.5} x2={x + 2.5} y2={y + s - 2.5} stroke={c} strokeWidth={2.5} strokeLinecap="round" />;
      })}
    </Board>
  );
}
