import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BET_CODES, BetCode, builtInPaytable, commencementBurnCount, dealRound, isBetOffered, MAIN_BETS, nextPosition, PAIR_BETS, parseCard, Rank, RANKS } from '@ledger/rules';
import { fullShoe, SeededRandom, SimTable } from '@ledger/simulator';
import { parseTableLog, TableLogLine, TableLogLineOf } from '@ledger/table-log';
import { PureLedger } from '../../../libs/table-log/src/pure-ledger.spec';
import type { HandRecord } from '@ledger/hand-history';
import type { ExpectedRound } from './agreement';
import { convertHandsFile, dealOrderOf, expectedPathOf, HandsToTableLog, handsOf, loadTables, MAX_COMMENCEMENT_CARDS, MIN_CARDS_BEHIND_CUT, NumberedHand } from './convert-hands';

jest.setTimeout(60_000);

const ARCHIVE = process.env.HAND_HISTORY_ARCHIVE ?? resolve(__dirname, '../../../../shared/data/hand-histories/one-million-hands.txt.tar.xz');
const ALL_TABLES: SimTable[] = JSON.parse(readFileSync(resolve(__dirname, '../../../config/tables.json'), 'utf8')).tables;

/** Hands dealt from seeded 8-deck shuffles, in the file's shape (when the archive is absent). */
function syntheticHands(n: number): NumberedHand[] {
  const rng = new SeededRandom('synthetic-hands');
  const out: NumberedHand[] = [];
  for (let i = 1; i <= n; i++) {
    const o = dealRound(rng.shuffle(fullShoe(8)).slice(0, 6));
    const hand: HandRecord = { line: 2 * i, text: '', player: o.player.map((c) => c.rank), banker: o.banker.map((c) => c.rank), outcome: o.winner };
    out.push({ hand, number: i });
  }
  return out;
}

async function firstHands(n: number): Promise<NumberedHand[]> {
  if (!existsSync(ARCHIVE)) return syntheticHands(n);
  const out: NumberedHand[] = [];
  for await (const h of handsOf(ARCHIVE, { hands: n })) out.push(h);
  return out;
}

function convert(hands: readonly NumberedHand[], options: Partial<ConstructorParameters<typeof HandsToTableLog>[0]> = {}) {
  const lines: TableLogLine[] = [];
  const expected: ExpectedRound[] = [];
  const conv = new HandsToTableLog({ tables: [ALL_TABLES[0]], ...options }, { line: (l) => lines.push(l), expected: (e) => expected.push(e) });
  for (const h of hands) conv.add(h.hand, h.number);
  return { lines, expected, stats: conv.finish() };
}

/** Lines grouped by shoe, in order. */
function shoesOf(lines: readonly TableLogLine[]): Map<string, TableLogLine[]> {
  const m = new Map<string, TableLogLine[]>();
  for (const l of lines) {
    if (!m.has(l.shoeId)) m.set(l.shoeId, []);
    m.get(l.shoeId)!.push(l);
  }
  return m;
}

describe('convert-hands (third-party hands → table log)', () => {
  let hands: NumberedHand[];
  let run: ReturnType<typeof convert>;
  let shoes: Map<string, TableLogLine[]>;

  beforeAll(async () => {
    hands = await firstHands(1000);
    run = convert(hands);
    shoes = shoesOf(run.lines);
  });

  it('Given 1,000 hands, Then they become rounds of whole shoes, in file order, none skipped', () => {
    expect(hands).toHaveLength(1000);
    expect(run.stats.hands).toBe(1000);
    expect(run.expected.map((e) => e.hand)).toEqual(hands.map((h) => h.number));
    expect(run.expected.map((e) => e.sourceLine)).toEqual(hands.map((h) => h.hand.line));
    expect(shoes.size).toBe(run.stats.shoes);
    expect(run.stats.shoes).toBeGreaterThan(10);
  });

  it('Then every line is valid table log', () => {
    const parsed = parseTableLog(run.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines).toHaveLength(run.lines.length);
  });

  it('Then no shoe holds more than 8 copies of a card (commencement, burns and dealt cards together)', () => {
    for (const [, ls] of shoes) {
      const count = new Map<string, number>();
      for (const l of ls) {
        if (l.kind === 'commencement' || l.kind === 'burn' || l.kind === 'deal') {
          const code = parseCard(l.card).code;
          count.set(code, (count.get(code) ?? 0) + 1);
        }
      }
      expect(Math.max(...count.values())).toBeLessThanOrEqual(8);
    }
  });

  it('Then each shoe opens, has one commencement card followed by exactly its burn count, and ends with the cut card between rounds and the close', () => {
    for (const [shoeId, ls] of shoes) {
      expect(ls[0]).toMatchObject({ kind: 'openShoe', shoeId, tableId: 'T-CLASSIC-01' });
      expect(ls[1].kind).toBe('commencement');
      const c = ls[1] as TableLogLineOf<'commencement'>;
      const burns = commencementBurnCount(parseCard(c.card).rank);
      expect(ls.slice(2, 2 + burns).every((l) => l.kind === 'burn' && l.card !== null)).toBe(true);
      expect(ls[2 + burns].kind).toBe('openRound');
      expect(ls.filter((l) => l.kind === 'commencement')).toHaveLength(1);
      expect(ls.filter((l) => l.kind === 'burn')).toHaveLength(burns);
      expect(ls.slice(-3).map((l) => l.kind)).toEqual(['deal', 'cutCard', 'closeShoe']);
      const used = ls.filter((l) => l.kind === 'commencement' || l.kind === 'burn' || l.kind === 'deal').length;
      expect(8 * 52 - used).toBeGreaterThanOrEqual(MIN_CARDS_BEHIND_CUT);
    }
  });

  it("Then every round's dealt cards are the file's cards in deal order, at the tableau's positions, and deal to the file's winner", () => {
    const byRound = new Map<string, TableLogLineOf<'deal'>[]>();
    for (const l of run.lines) {
      if (l.kind !== 'deal') continue;
      if (!byRound.has(l.roundId)) byRound.set(l.roundId, []);
      byRound.get(l.roundId)!.push(l);
    }
    expect(byRound.size).toBe(1000);
    run.expected.forEach((e, i) => {
      const h = hands[i].hand;
      const deals = byRound.get(e.roundId)!;
      const cards = deals.map((d) => parseCard(d.card));
      expect(cards.map((c) => c.rank)).toEqual(dealOrderOf(h).map((d) => d.rank));
      deals.forEach((d, k) => expect(d.position).toBe(nextPosition(cards.slice(0, k))));
      const o = dealRound(cards);
      expect(o.cardsConsumed).toBe(cards.length);
      expect(o.winner).toBe(h.outcome);
      expect(o.player.map((c) => c.rank)).toEqual(h.player);
      expect(o.banker.map((c) => c.rank)).toEqual(h.banker);
      expect({ winner: e.winner, player: e.player, banker: e.banker }).toEqual({ winner: o.winner, player: o.player.map((c) => c.code), banker: o.banker.map((c) => c.code) });
    });
  });

  it('Then a shoe ends only when the next hand would break the rule (8 copies, or fewer than 60 cards behind the cut card)', () => {
    const ids = [...shoes.keys()];
    for (let s = 0; s < ids.length - 1; s++) {
      const dealt = shoes
        .get(ids[s])!
        .filter((l): l is TableLogLineOf<'deal'> => l.kind === 'deal')
        .map((l) => parseCard(l.card).rank);
      const next = shoes.get(ids[s + 1])!.find((l): l is TableLogLineOf<'openRound'> => l.kind === 'openRound')!;
      const e = run.expected.find((x) => x.roundId === next.roundId)!;
      const nextRanks = [...e.player, ...e.banker].map((c) => parseCard(c).rank);
      const byRank = (rs: Rank[]) => RANKS.map((r) => rs.filter((x) => x === r).length);
      const tooMany = byRank([...dealt, ...nextRanks]).some((n) => n > 32);
      const tooLong = dealt.length + nextRanks.length + MAX_COMMENCEMENT_CARDS + MIN_CARDS_BEHIND_CUT > 416;
      expect(tooMany || tooLong).toBe(true);
    }
  });

  it('Then every round has bets on PLAYER, BANKER and TIE, within the table limits, with side bets only where offered and pair bets after a main bet', () => {
    const t = ALL_TABLES[0];
    const paytable = builtInPaytable(t.paytableRef);
    const sides = new Set<string>();
    let hand = 0;
    for (const l of run.lines) {
      if (l.kind === 'openShoe') hand = 0;
      if (l.kind === 'openRound') hand++;
      if (l.kind !== 'bets') continue;
      expect(new Set(l.bets.filter((b) => MAIN_BETS.includes(b.betCode as BetCode)).map((b) => b.betCode))).toEqual(new Set(MAIN_BETS));
      const withMain = new Set<string>();
      for (const b of l.bets) {
        const { min, max } = t.limits[b.betCode];
        const stake = BigInt(b.stake);
        expect(stake >= BigInt(min) && stake <= BigInt(max) && stake % BigInt(min) === 0n).toBe(true);
        expect(b.currency).toBe(t.currency);
        expect(isBetOffered(paytable, b.betCode as BetCode, hand, t.virtualTable)).toBe(true);
        if (PAIR_BETS.includes(b.betCode as BetCode)) expect(withMain.has(b.accountId)).toBe(true);
        if (MAIN_BETS.includes(b.betCode as BetCode)) withMain.add(b.accountId);
        else sides.add(b.betCode);
      }
    }
    expect(sides).toEqual(new Set(BET_CODES.classic.filter((c) => !MAIN_BETS.includes(c))));
  });

  it('Given the same hands and seed, Then the output is identical; given another shoe prefix, Then only the ids change', () => {
    const slice = hands.slice(0, 200);
    const a = convert(slice);
    expect(convert(slice)).toEqual(a);
    const b = convert(slice, { shoePrefix: 'OTHER' });
    expect(JSON.stringify(b.lines).replace(/OTHER-/g, 'MH-')).toBe(JSON.stringify(a.lines));
    const c = convert(slice, { seed: 'another seed' });
    expect(JSON.stringify(c.lines)).not.toBe(JSON.stringify(a.lines));
    expect(c.expected.map((e) => e.winner)).toEqual(a.expected.map((e) => e.winner));
  });

  it.each(ALL_TABLES.map((t) => [t.tableId]))('Given shoes for %s, When the log is decided line by line by the ledger state machine, Then every line is accepted and each round results as the file says', (tableId) => {
    const tables = ALL_TABLES.filter((t) => t.tableId === tableId);
    const slice = hands.slice(0, 300);
    const { lines, expected } = convert(slice, { tables, betLines: tableId === 'T-FAB4-01' ? 'single' : 'batch', accounts: 5 });
    const ledger = new PureLedger(ALL_TABLES);
    for (const l of lines) ledger.apply(l);
    const resulted = new Map<string, { winner: string; player: readonly string[]; banker: readonly string[] }>();
    for (const evs of ledger.events.values()) {
      for (const e of evs) if (e.type === 'RoundResulted') resulted.set(e.data.roundId, e.data.outcome);
      expect(evs.filter((e) => e.type === 'BetSettled').length).toBeGreaterThan(0);
      expect(evs[evs.length - 1].type).toBe('ShoeClosed');
    }
    for (const e of expected) expect(resulted.get(e.roundId)).toMatchObject({ winner: e.winner, player: e.player, banker: e.banker });
  });

  it('Given several tables, Then shoes go to them in turn', () => {
    const { lines } = convert(hands.slice(0, 400), { tables: ALL_TABLES.slice(0, 3) });
    const opened = lines.filter((l): l is TableLogLineOf<'openShoe'> => l.kind === 'openShoe').map((l) => l.tableId);
    expect(opened.slice(0, 6)).toEqual(['T-CLASSIC-01', 'T-TIGER-01', 'T-FAB4-01', 'T-CLASSIC-01', 'T-TIGER-01', 'T-FAB4-01']);
  });

  it('Given invalid options, Then the converter refuses them', () => {
    const sink = { line: () => undefined, expected: () => undefined };
    expect(() => new HandsToTableLog({ tables: [] }, sink)).toThrow(/at least one table/);
    expect(() => new HandsToTableLog({ tables: ALL_TABLES, accounts: 2 }, sink)).toThrow(/accounts/);
    expect(() => new HandsToTableLog({ tables: ALL_TABLES, shoePrefix: 'no spaces please' }, sink)).toThrow(/prefix/);
    expect(() => loadTables(['T-NOPE'])).toThrow(/no table T-NOPE/);
  });

  (existsSync(ARCHIVE) ? it : it.skip)('Given the archive, When a slice is converted to files, Then the log and the expected file hold the same rounds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'convert-hands-'));
    try {
      const out = join(dir, 'slice.jsonl');
      const report = await convertHandsFile({ file: ARCHIVE, out, hands: 120, skip: 1000, tables: loadTables(['T-TIGER-01']) });
      expect(report).toMatchObject({ hands: 120, malformed: 0, expectedOut: expectedPathOf(out) });
      expect(expectedPathOf(out)).toBe(join(dir, 'slice.expected.jsonl'));
      const parsed = parseTableLog(readFileSync(out, 'utf8'));
      expect(parsed.errors).toEqual([]);
      const expected: ExpectedRound[] = readFileSync(report.expectedOut, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(expected.map((e) => e.hand)).toEqual(Array.from({ length: 120 }, (_, i) => 1001 + i));
      expect(parsed.lines.filter((l) => l.value.kind === 'openRound').map((l) => (l.value as TableLogLineOf<'openRound'>).roundId)).toEqual(expected.map((e) => e.roundId));
      expect(parsed.lines[0].value).toMatchObject({ kind: 'openShoe', shoeId: 'MH-h0001001' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
