import { createWriteStream, existsSync, readFileSync, WriteStream } from 'node:fs';
import { once } from 'node:events';
import * as path from 'node:path';
import { BET_CODES, BetCode, builtInPaytable, Card, card, commencementBurnCount, isBetOffered, MAIN_BETS, Paytable, Position, Rank, SUITS } from '@ledger/rules';
import { fullShoe, SeededRandom, SimTable } from '@ledger/simulator';
import { formatTableLogLine, TABLE_LOG_ID, TableLogBet, TableLogLine } from '@ledger/table-log';
import { HandRecord, openHandHistoryLines, parseHandLine } from '@ledger/hand-history';
import type { ExpectedRound } from './agreement';

/**
 * Converts the third-party hand history (outside the repository, format: `libs/hand-history/src/hand-history.ts`; ranks only,
 * each hand from its own freshly shuffled 8-deck shoe) into a table log that replays through the
 * ledger as whole shoes, plus an expected file for the agreement check.
 *
 * **Grouping hands into shoes.** Consecutive hands fill a shoe of the table's deck count N
 * (8 for every configured table) in file order, never reordered or skipped. The next hand joins
 * the current shoe when, with it, (a) no rank has more than 4·N cards (32 in 8 decks: with suits
 * assigned as below, no card then exceeds N copies) and (b) the hands' cards plus the largest
 * commencement (1 card + 10 burns = {@link MAX_COMMENCEMENT_CARDS}) leave at least
 * {@link MIN_CARDS_BEHIND_CUT} cards behind the cut card (hands' cards ≤ 416 − 11 − 60 = 345 in
 * 8 decks). Otherwise the shoe is complete and the hand starts the next shoe. Shoes go to the
 * `tables` in turn (shoe 1 to the first table, shoe 2 to the second, …).
 *
 * **Suits.** The file has ranks only. Within a shoe, each rank's cards take the four suits in
 * rotation, in dealing order, from a seeded starting suit per rank and shoe: the k-th card of a
 * rank gets suit (start + k) mod 4. A rank has at most 4·N cards in the shoe, so no suit of it
 * gets more than N: no card exceeds N copies. Suits never change the tableau or a main bet; they
 * do decide suited side bets (Fabulous Pair).
 *
 * **Commencement and cut card.** The cards the hands leave over (N·52 minus the hands' cards)
 * are shuffled with the seed; the first is the commencement card and the next ones its burns,
 * face up, as many as its rank says (docs/domain-rules.md §5.1: A = 1, 2–9 face value, 10/J/Q/K = 10). At least 60
 * cards stay in the shoe behind them. The hands follow the burns. The cut card comes out between
 * rounds after the shoe's last hand (docs/domain-rules.md §5.2: no further round starts), then the shoe is closed. So
 * each shoe is: `openShoe`, `commencement`, `burn`×n, per hand `openRound`, bets, `closeBetting`,
 * `deal`×4–6, then `cutCard`, `closeShoe`.
 *
 * **Cards of a round.** Exactly the file's cards in dealing order P1 B1 P2 B2 [P3] [B3] (P3 when
 * the Player has three cards, B3 when the Banker has): the positions are the file's claim, not
 * the engine's, so the ledger's tableau check is an independent check of the file.
 *
 * **Bets.** Seeded and deterministic. Accounts `acct-1`…`acct-A` (A ≥ 3) each place one main bet
 * per round; the first three accounts cover PLAYER, BANKER and TIE in every round (rotating), the
 * others pick one at random; each account adds, with `sideBetChance`, one side bet the table
 * offers on that hand (windows of docs/domain-rules.md §3.2/§3.3 respected; Classic pair bets come after the account's
 * main bet). Stakes are multiples of the code's minimum from `config/tables.json`, up to
 * min(max, 50 × min). Every round therefore has settlements that win, lose and push.
 *
 * The class {@link HandsToTableLog} is pure (no I/O); {@link convertHandsFile} streams files.
 */

/** Commencement card plus the most burns it can call for (a ten or face: 10). */
export const MAX_COMMENCEMENT_CARDS = 11;
/** Cards that must stay in the shoe behind the cut card (about one deck; the simulator uses 52–70). */
export const MIN_CARDS_BEHIND_CUT = 60;

/** Options of the conversion. */
export interface ConvertHandsOptions {
  /** Tables the shoes go to, in turn (from `config/tables.json`). */
  readonly tables: readonly SimTable[];
  /** Seed of suits, commencement, burns and bets. @default "convert-hands" */
  readonly seed?: string;
  /** Shoe ids are `<shoePrefix>-h<first hand number, 7 digits>`; 1–24 id characters. @default "MH" */
  readonly shoePrefix?: string;
  /** Dealer of every shoe. @default "dealer-1" */
  readonly dealerId?: string;
  /** Betting accounts, at least 3. @default 4 */
  readonly accounts?: number;
  /** Chance that an account adds a side bet in a round. @default 0.3 */
  readonly sideBetChance?: number;
  /** `batch` (default): one `bets` line per round; `single`: one `bet` line per bet. */
  readonly betLines?: 'batch' | 'single';
}

/** Where converted lines go. */
export interface ConvertSink {
  line(l: TableLogLine): void;
  expected(e: ExpectedRound): void;
}

/** Counts of a conversion. */
export interface ConvertStats {
  hands: number;
  shoes: number;
  lines: number;
  bets: number;
  /** Fewest and most hands in a shoe (the last shoe may be short). */
  handsPerShoe: { min: number; max: number };
  /** Fewest and most cards left behind the cut card. */
  cardsBehindCut: { min: number; max: number };
}

interface OpenShoe {
  table: SimTable;
  firstHand: number;
  hands: Array<{ hand: HandRecord; number: number }>;
  rankCounts: Map<Rank, number>;
  cards: number;
}

const PREFIX = /^[A-Za-z0-9_.:-]{1,24}$/;

/** A hand's cards in dealing order with their positions (the file's claim, docs/domain-rules.md §2 order). */
export function dealOrderOf(hand: Pick<HandRecord, 'player' | 'banker'>): Array<{ rank: Rank; position: Position }> {
  const out: Array<{ rank: Rank; position: Position }> = [
    { rank: hand.player[0], position: 'P1' },
    { rank: hand.banker[0], position: 'B1' },
    { rank: hand.player[1], position: 'P2' },
    { rank: hand.banker[1], position: 'B2' },
  ];
  if (hand.player.length > 2) out.push({ rank: hand.player[2], position: 'P3' });
  if (hand.banker.length > 2) out.push({ rank: hand.banker[2], position: 'B3' });
  return out;
}

/**
 * Turns hands, fed in file order, into table-log lines shoe by shoe (see the module comment for
 * the rules). Pure and deterministic for given options: lines of a shoe are emitted when the
 * shoe is complete (the next hand does not fit, or {@link finish}).
 */
export class HandsToTableLog {
  private shoe: OpenShoe | null = null;
  private readonly stats: ConvertStats = { hands: 0, shoes: 0, lines: 0, bets: 0, handsPerShoe: { min: Infinity, max: 0 }, cardsBehindCut: { min: Infinity, max: 0 } };
  private readonly seed: string;
  private readonly prefix: string;
  private readonly dealerId: string;
  private readonly accounts: number;
  private readonly sideBetChance: number;

  /** @throws Error for invalid options (no table, fewer than 3 accounts, bad prefix or dealer id) */
  constructor(
    private readonly options: ConvertHandsOptions,
    private readonly sink: ConvertSink,
  ) {
    if (!options.tables.length) throw new Error('at least one table is needed');
    this.seed = options.seed ?? 'convert-hands';
    this.prefix = options.shoePrefix ?? 'MH';
    this.dealerId = options.dealerId ?? 'dealer-1';
    this.accounts = options.accounts ?? 4;
    this.sideBetChance = options.sideBetChance ?? 0.3;
    if (!PREFIX.test(this.prefix)) throw new Error(`shoe prefix must be 1–24 characters A–Z a–z 0–9 _ . : -, got ${JSON.stringify(this.prefix)}`);
    if (!TABLE_LOG_ID.test(this.dealerId)) throw new Error(`dealer id must be 1–64 id characters, got ${JSON.stringify(this.dealerId)}`);
    if (!Number.isInteger(this.accounts) || this.accounts < 3 || this.accounts > 1000) throw new Error('accounts must be an integer 3..1000 (three cover PLAYER, BANKER and TIE)');
    for (const t of options.tables) {
      for (const code of MAIN_BETS) if (!t.limits[code]) throw new Error(`table ${t.tableId} has no limits for ${code}`);
    }
  }

  /**
   * Adds the next hand of the file.
   * @param handNumber 1-based number of the hand in the file (names the shoe it starts)
   */
  add(hand: HandRecord, handNumber: number): void {
    if (this.shoe && !this.fits(this.shoe, hand)) this.flush();
    if (!this.shoe) {
      const table = this.options.tables[this.stats.shoes % this.options.tables.length];
      this.shoe = { table, firstHand: handNumber, hands: [], rankCounts: new Map(), cards: 0 };
    }
    const s = this.shoe;
    for (const { rank } of dealOrderOf(hand)) s.rankCounts.set(rank, (s.rankCounts.get(rank) ?? 0) + 1);
    s.cards += hand.player.length + hand.banker.length;
    s.hands.push({ hand, number: handNumber });
    this.stats.hands++;
  }

  /** Emits the last shoe. @returns the counts of the whole conversion */
  finish(): ConvertStats {
    if (this.shoe) this.flush();
    const st = this.stats;
    return {
      ...st,
      handsPerShoe: { min: st.shoes ? st.handsPerShoe.min : 0, max: st.handsPerShoe.max },
      cardsBehindCut: { min: st.shoes ? st.cardsBehindCut.min : 0, max: st.cardsBehindCut.max },
    };
  }

  private fits(s: OpenShoe, hand: HandRecord): boolean {
    const decks = s.table.decks;
    const n = hand.player.length + hand.banker.length;
    if (s.cards + n + MAX_COMMENCEMENT_CARDS + MIN_CARDS_BEHIND_CUT > decks * 52) return false;
    const add = new Map<Rank, number>();
    for (const { rank } of dealOrderOf(hand)) add.set(rank, (add.get(rank) ?? 0) + 1);
    for (const [rank, k] of add) if ((s.rankCounts.get(rank) ?? 0) + k > 4 * decks) return false;
    return true;
  }

  private emit(l: TableLogLine): void {
    this.stats.lines++;
    this.sink.line(l);
  }

  private flush(): void {
    const s = this.shoe!;
    this.shoe = null;
    const { table } = s;
    const shoeId = `${this.prefix}-h${String(s.firstHand).padStart(7, '0')}`;
    // seeded by the shoe's first hand, not its id: another --shoe-prefix gives the same cards and bets
    const rng = new SeededRandom(`${this.seed}|h${s.firstHand}|cards`);
    const betRng = new SeededRandom(`${this.seed}|h${s.firstHand}|bets`);

    // suits: per rank, rotate over the four suits from a seeded start
    const start = new Map<Rank, number>();
    const seen = new Map<Rank, number>();
    const used = new Map<string, number>();
    const suited = (rank: Rank): Card => {
      if (!start.has(rank)) start.set(rank, rng.int(SUITS.length));
      const k = seen.get(rank) ?? 0;
      seen.set(rank, k + 1);
      const c = card(rank, SUITS[(start.get(rank)! + k) % SUITS.length]);
      used.set(c.code, (used.get(c.code) ?? 0) + 1);
      return c;
    };
    const rounds = s.hands.map(({ hand, number }) => ({ hand, number, cards: dealOrderOf(hand).map(({ rank, position }) => ({ card: suited(rank), position })) }));

    // commencement and burns from the cards left over, shuffled with the seed
    const skip = new Map(used);
    const leftovers: Card[] = [];
    for (const c of fullShoe(table.decks)) {
      const k = skip.get(c.code) ?? 0;
      if (k > 0) skip.set(c.code, k - 1);
      else leftovers.push(c);
    }
    const shuffled = rng.shuffle(leftovers);
    const commencement = shuffled[0];
    const burns = shuffled.slice(1, 1 + commencementBurnCount(commencement.rank));
    const behindCut = leftovers.length - 1 - burns.length;

    this.emit({ kind: 'openShoe', shoeId, tableId: table.tableId, dealerId: this.dealerId });
    this.emit({ kind: 'commencement', shoeId, card: commencement.code });
    for (const b of burns) this.emit({ kind: 'burn', shoeId, card: b.code });
    const paytable = builtInPaytable(table.paytableRef);
    rounds.forEach((r, i) => {
      const handInShoe = i + 1;
      const roundId = `${shoeId}-r${String(handInShoe).padStart(3, '0')}`;
      this.emit({ kind: 'openRound', shoeId, roundId });
      const bets = this.roundBets(betRng, table, paytable, handInShoe, roundId);
      this.stats.bets += bets.length;
      if (this.options.betLines === 'single') for (const b of bets) this.emit({ kind: 'bet', shoeId, roundId, ...b });
      else this.emit({ kind: 'bets', shoeId, roundId, bets });
      this.emit({ kind: 'closeBetting', shoeId, roundId });
      for (const c of r.cards) this.emit({ kind: 'deal', shoeId, roundId, position: c.position, card: c.card.code });
      this.sink.expected({
        shoeId,
        roundId,
        winner: r.hand.outcome,
        player: r.cards.filter((c) => c.position[0] === 'P').map((c) => c.card.code),
        banker: r.cards.filter((c) => c.position[0] === 'B').map((c) => c.card.code),
        hand: r.number,
        sourceLine: r.hand.line,
      });
    });
    this.emit({ kind: 'cutCard', shoeId });
    this.emit({ kind: 'closeShoe', shoeId });

    const st = this.stats;
    st.shoes++;
    st.handsPerShoe = { min: Math.min(st.handsPerShoe.min, rounds.length), max: Math.max(st.handsPerShoe.max, rounds.length) };
    st.cardsBehindCut = { min: Math.min(st.cardsBehindCut.min, behindCut), max: Math.max(st.cardsBehindCut.max, behindCut) };
  }

  private roundBets(rng: SeededRandom, table: SimTable, paytable: Paytable, handInShoe: number, roundId: string): TableLogBet[] {
    const sides = (BET_CODES[table.variant] as readonly BetCode[]).filter((c) => !MAIN_BETS.includes(c) && table.limits[c] !== undefined && isBetOffered(paytable, c, handInShoe, table.virtualTable));
    const mains: Array<[string, BetCode]> = [];
    const extras: Array<[string, BetCode]> = [];
    for (let a = 0; a < this.accounts; a++) {
      const accountId = `acct-${a + 1}`;
      mains.push([accountId, a < 3 ? MAIN_BETS[(a + handInShoe) % 3] : rng.pick(MAIN_BETS)]);
      if (sides.length && rng.chance(this.sideBetChance)) extras.push([accountId, rng.pick(sides)]);
    }
    // main bets first: a Classic pair bet needs the account's main bet accepted before it (docs/domain-rules.md §3.1)
    return [...mains, ...extras].map(([accountId, betCode], i) => ({
      betId: `${roundId}-b${i + 1}`,
      accountId,
      betCode,
      stake: stakeWithin(rng, table.limits[betCode]),
      currency: table.currency,
    }));
  }
}

/** A multiple of the minimum, from min to min(max, 50 × min), as a minor-units string (docs/domain-rules.md §4). */
export function stakeWithin(rng: SeededRandom, limits: { min: string; max: string }): string {
  const lo = BigInt(limits.min);
  const max = BigInt(limits.max);
  const hi = max < lo * 50n ? max : lo * 50n;
  const steps = Number((hi - lo) / lo);
  return (lo + BigInt(rng.int(steps + 1)) * lo).toString();
}

/** The default expected-file path of an output log: `x.jsonl` → `x.expected.jsonl` (else `<out>.expected.jsonl`). */
export function expectedPathOf(out: string): string {
  return out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.expected.jsonl` : `${out}.expected.jsonl`;
}

/** The repository's `config/tables.json` (next to the sources when run by tsx, else from the working directory). */
export const DEFAULT_TABLES_CONFIG = [path.resolve(__dirname, '..', '..', '..', 'config', 'tables.json'), path.resolve('config', 'tables.json')].find((f) => existsSync(f)) ?? 'config/tables.json';

/**
 * Looks up tables by id in a tables file (`config/tables.json` shape).
 * @throws Error naming an unknown table id
 */
export function loadTables(ids: readonly string[], configFile = DEFAULT_TABLES_CONFIG): SimTable[] {
  const all: SimTable[] = JSON.parse(readFileSync(configFile, 'utf8')).tables;
  return ids.map((id) => {
    const t = all.find((x) => x.tableId === id);
    if (!t) throw new Error(`no table ${id} in ${configFile} (tables: ${all.map((x) => x.tableId).join(', ')})`);
    return t;
  });
}

/** Options of {@link convertHandsFile}. */
export interface ConvertFileOptions extends ConvertHandsOptions {
  /** The hand history: the extracted text or the `.tar.xz` archive. */
  readonly file: string;
  /** Output table log (JSONL). */
  readonly out: string;
  /** Output expected file. @default {@link expectedPathOf}(out) */
  readonly expectedOut?: string;
  /** Hands to convert. @default all */
  readonly hands?: number;
  /** Hands of the file to pass over first (to convert a later slice). @default 0 */
  readonly skip?: number;
  /** Called now and then with the hands converted so far. */
  readonly onProgress?: (hands: number) => void;
}

/** What {@link convertHandsFile} did. */
export interface ConvertReport extends ConvertStats {
  readonly file: string;
  readonly out: string;
  readonly expectedOut: string;
  /** Lines of the source that were neither a hand, a header nor blank (skipped). */
  readonly malformed: number;
  readonly firstMalformed: MalformedHandLine[];
  readonly elapsedMs: number;
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (text && !stream.write(text)) await once(stream, 'drain');
}

/** A hand of the history with its 1-based number among the file's hands. */
export interface NumberedHand {
  readonly hand: HandRecord;
  readonly number: number;
}

/** A line of the history that is neither a hand, a header nor blank. */
export interface MalformedHandLine {
  readonly line: number;
  readonly text: string;
  readonly message: string;
}

/**
 * Streams the hands of a hand history (text or `.tar.xz`), in file order, after passing over
 * `skip` hands, at most `hands` of them. Stopping early (or breaking out of the loop) stops `tar`.
 * @param onMalformed called for each malformed line (those are not hands and are not counted)
 * @throws Error when the file cannot be read or `tar` fails
 */
export async function* handsOf(file: string, o: { skip?: number; hands?: number; onMalformed?: (m: MalformedHandLine) => void } = {}): AsyncGenerator<NumberedHand> {
  const source = openHandHistoryLines(file);
  const limit = o.hands ?? Infinity;
  const skip = o.skip ?? 0;
  let lineNo = 0;
  let handNo = 0;
  let given = 0;
  let complete = false;
  try {
    if (limit <= 0) return;
    for await (const text of source.lines) {
      lineNo++;
      const p = parseHandLine(text, lineNo);
      if (p.kind === 'skip') continue;
      if (p.kind === 'malformed') {
        o.onMalformed?.({ line: p.line, text: p.text, message: p.message });
        continue;
      }
      handNo++;
      if (handNo <= skip) continue;
      yield { hand: p.hand, number: handNo };
      if (++given >= limit) return;
    }
    complete = true;
  } finally {
    if (complete) await source.finished;
    else {
      // stop `tar`: it would stay blocked writing the rest of the archive into the pipe
      (source.lines as unknown as { input?: { destroy?: () => void } }).input?.destroy?.();
      await source.finished.catch(() => undefined);
    }
  }
}

/**
 * Streams a hand history (text or `.tar.xz`) into a table log and its expected file.
 * @throws Error when the input cannot be read or an output cannot be written
 */
export async function convertHandsFile(o: ConvertFileOptions): Promise<ConvertReport> {
  const started = performance.now();
  const expectedOut = o.expectedOut ?? expectedPathOf(o.out);
  const logStream = createWriteStream(o.out);
  const expStream = createWriteStream(expectedOut);
  let logBuf = '';
  let expBuf = '';
  const conv = new HandsToTableLog(o, {
    line: (l) => (logBuf += formatTableLogLine(l) + '\n'),
    expected: (e) => (expBuf += JSON.stringify(e) + '\n'),
  });
  const flush = async () => {
    const [a, b] = [logBuf, expBuf];
    logBuf = expBuf = '';
    await write(logStream, a);
    await write(expStream, b);
  };
  let malformed = 0;
  const firstMalformed: MalformedHandLine[] = [];
  let converted = 0;
  const hands = handsOf(o.file, {
    skip: o.skip,
    hands: o.hands,
    onMalformed: (m) => {
      malformed++;
      if (firstMalformed.length < 10) firstMalformed.push(m);
    },
  });
  for await (const { hand, number } of hands) {
    conv.add(hand, number);
    converted++;
    if (logBuf.length > 1 << 20) await flush();
    if (converted % 10_000 === 0) o.onProgress?.(converted);
  }
  const stats = conv.finish();
  await flush();
  o.onProgress?.(converted);
  logStream.end();
  expStream.end();
  await Promise.all([once(logStream, 'finish'), once(expStream, 'finish')]);
  return { ...stats, file: o.file, out: o.out, expectedOut, malformed, firstMalformed, elapsedMs: Math.round(performance.now() - started) };
}
