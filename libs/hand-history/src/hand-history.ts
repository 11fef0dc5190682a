import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { Card, card, dealRound, Rank, RANKS, RoundOutcome, RulesError, Suit, Winner } from '@ledger/rules';

/**
 * Replay of the third-party hand history `one-million-hands.txt.tar.xz`
 * (outside the repository; its format is below) through the rules engine (`dealRound`,
 * docs/domain-rules.md §2).
 *
 * File format: a header line `PHand - BHand - Outcome` before every hand, then the hand as
 * `K,6 - 3,2,3 - BANKER`: the Player's ranks, the Banker's ranks, each in the order received, and
 * the winner. Ranks only, `10` is a ten.
 *
 * How a hand becomes a shoe sequence ({@link shoeSequenceOf}):
 * - the cards are put in deal order P1 B1 P2 B2 [P3] [B3] (§2);
 * - suits are assigned arbitrarily but deterministically: the card at deal position i (0-based)
 *   gets suit S, H, D for i mod 3 = 0, 1, 2. Suits never matter to the tableau; clubs are never
 *   used for the hand's own cards;
 * - {@link EXTRA_CARDS} more cards follow, all clubs and all of ranks with a non-zero point value
 *   that do not occur in the hand. The engine is never told where the round ends: if it draws one
 *   card too many, a club that is in no expected hand shows up on one side; if it stops too early,
 *   a side is a card short; if it gives the fifth card to the wrong side, both sides differ.
 *
 * Parsing and comparison are pure functions; only {@link openHandHistoryLines} and
 * {@link replayHandHistoryFile} do I/O (this module belongs to the CLI, not to the rules library).
 */

/** The header line repeated before every hand. */
export const HAND_HISTORY_HEADER = 'PHand - BHand - Outcome';

/** Outcome totals the README publishes for `one-million-hands.txt.tar.xz` (1,000,000 hands). */
export const PUBLISHED_MILLION_TOTALS: Readonly<Record<Winner, number>> = Object.freeze({
  BANKER: 459_157,
  PLAYER: 444_936,
  TIE: 95_907,
});

/** Number of hands in the published file. */
export const PUBLISHED_MILLION_HANDS = 1_000_000;

/** How many cards are appended after each hand's own cards (a round takes at most 6). */
export const EXTRA_CARDS = 3;

/** One hand of the history, as the file states it. */
export interface HandRecord {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The line as read (without the line break). */
  readonly text: string;
  /** Player's ranks in the order received (2 or 3). */
  readonly player: readonly Rank[];
  /** Banker's ranks in the order received (2 or 3). */
  readonly banker: readonly Rank[];
  /** Winner the file states. */
  readonly outcome: Winner;
}

/** Result of parsing one line: a hand, a line to skip (header, blank) or a malformed line. */
export type ParsedHandLine = { readonly kind: 'hand'; readonly hand: HandRecord } | { readonly kind: 'skip' } | { readonly kind: 'malformed'; readonly line: number; readonly text: string; readonly message: string };

const OUTCOMES: readonly Winner[] = ['PLAYER', 'BANKER', 'TIE'];

/** Parses one rank of the file (`A`, `2`–`9`, `10`, `J`, `Q`, `K`; `T` also accepted), or null. */
function parseRank(text: string): Rank | null {
  const t = text.trim().toUpperCase();
  if (t === '10') return 'T';
  return (RANKS as readonly string[]).includes(t) ? (t as Rank) : null;
}

function parseSide(text: string): Rank[] | null {
  const parts = text.split(',');
  if (parts.length < 2 || parts.length > 3) return null;
  const ranks: Rank[] = [];
  for (const p of parts) {
    const r = parseRank(p);
    if (r === null) return null;
    ranks.push(r);
  }
  return ranks;
}

/**
 * Parses one line of the hand history.
 * @param text the line without its line break (a trailing `\r` is tolerated)
 * @param line 1-based line number, carried into the record and error
 * @returns `skip` for the header line and blank lines, `hand` for `K,6 - 3,2,3 - BANKER`,
 *   `malformed` with a message for anything else (wrong field count, unknown rank, a side with
 *   other than 2 or 3 cards, unknown outcome). Never throws.
 */
export function parseHandLine(text: string, line: number): ParsedHandLine {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  const trimmed = t.trim();
  if (trimmed === '' || trimmed === HAND_HISTORY_HEADER) return { kind: 'skip' };
  const fields = trimmed.split(' - ');
  if (fields.length !== 3) {
    return { kind: 'malformed', line, text: t, message: 'expected "PHand - BHand - Outcome"' };
  }
  const player = parseSide(fields[0]);
  const banker = parseSide(fields[1]);
  const outcome = fields[2].trim().toUpperCase() as Winner;
  if (!player) return { kind: 'malformed', line, text: t, message: `bad Player hand ${JSON.stringify(fields[0])}` };
  if (!banker) return { kind: 'malformed', line, text: t, message: `bad Banker hand ${JSON.stringify(fields[1])}` };
  if (!OUTCOMES.includes(outcome)) {
    return { kind: 'malformed', line, text: t, message: `bad outcome ${JSON.stringify(fields[2])}` };
  }
  return { kind: 'hand', hand: { line, text: t, player, banker, outcome } };
}

/** The suits given to the hand's own cards by deal position (i mod 3); clubs are kept for extras. */
const HAND_SUITS: readonly Suit[] = ['S', 'H', 'D'];
/** Ranks the extra cards are chosen from, in order: all have a non-zero point value. */
const EXTRA_RANKS: readonly Rank[] = ['9', '8', '7', '6', '5', '4', '3', '2', 'A'];

/** A hand turned into the next cards off a shoe, with the cards each side should end up with. */
export interface ShoeSequence {
  /** The hand's cards in deal order P1 B1 P2 B2 [P3] [B3], then {@link EXTRA_CARDS} extras. */
  readonly shoe: readonly Card[];
  /** How many of `shoe` belong to the hand (4–6); the rest are extras. */
  readonly handCards: number;
  /** Cards the Player should hold, in order received. */
  readonly expectedPlayer: readonly Card[];
  /** Cards the Banker should hold, in order received. */
  readonly expectedBanker: readonly Card[];
}

/**
 * Rebuilds the shoe sequence of a hand (deal order §2, suits and extras as described in the
 * module comment).
 * @throws never for a {@link HandRecord} produced by {@link parseHandLine}
 */
export function shoeSequenceOf(hand: Pick<HandRecord, 'player' | 'banker'>): ShoeSequence {
  const order: Array<{ rank: Rank; side: 'P' | 'B' }> = [
    { rank: hand.player[0], side: 'P' },
    { rank: hand.banker[0], side: 'B' },
    { rank: hand.player[1], side: 'P' },
    { rank: hand.banker[1], side: 'B' },
  ];
  if (hand.player.length > 2) order.push({ rank: hand.player[2], side: 'P' });
  if (hand.banker.length > 2) order.push({ rank: hand.banker[2], side: 'B' });
  const shoe: Card[] = [];
  const expectedPlayer: Card[] = [];
  const expectedBanker: Card[] = [];
  order.forEach(({ rank, side }, i) => {
    const c = card(rank, HAND_SUITS[i % HAND_SUITS.length]);
    shoe.push(c);
    (side === 'P' ? expectedPlayer : expectedBanker).push(c);
  });
  const used = new Set<Rank>(order.map((o) => o.rank));
  const extras = EXTRA_RANKS.filter((r) => !used.has(r)).slice(0, EXTRA_CARDS);
  for (const r of extras) shoe.push(card(r, 'C'));
  return { shoe, handCards: order.length, expectedPlayer, expectedBanker };
}

/** Why the engine and the file disagree on a hand. */
export type DisagreementReason = 'PLAYER_CARDS' | 'BANKER_CARDS' | 'WINNER' | 'ENGINE_ERROR';

/** The comparison of one hand. */
export interface HandReplay {
  readonly hand: HandRecord;
  /** True when both sides got exactly the expected cards and the winner is the file's. */
  readonly agree: boolean;
  /** Empty when `agree`. */
  readonly reasons: readonly DisagreementReason[];
  /** The engine's outcome; absent when the engine threw (`ENGINE_ERROR`). */
  readonly outcome?: RoundOutcome;
  /** The shoe sequence that was dealt. */
  readonly sequence: ShoeSequence;
  /** The engine's error message on `ENGINE_ERROR`. */
  readonly error?: string;
}

function sameCards(a: readonly Card[], b: readonly Card[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Deals a hand's shoe sequence through `dealRound` and compares the engine's result with the file:
 * the same cards (rank and assigned suit, in order) to each side and the same winner.
 * Never throws: an engine error is reported as `ENGINE_ERROR`.
 */
export function replayHand(hand: HandRecord): HandReplay {
  const sequence = shoeSequenceOf(hand);
  let outcome: RoundOutcome;
  try {
    outcome = dealRound(sequence.shoe);
  } catch (e) {
    const msg = e instanceof RulesError ? `${e.code}: ${e.message}` : String(e);
    return { hand, agree: false, reasons: ['ENGINE_ERROR'], sequence, error: msg };
  }
  const reasons: DisagreementReason[] = [];
  if (!sameCards(outcome.player, sequence.expectedPlayer)) reasons.push('PLAYER_CARDS');
  if (!sameCards(outcome.banker, sequence.expectedBanker)) reasons.push('BANKER_CARDS');
  if (outcome.winner !== hand.outcome) reasons.push('WINNER');
  return { hand, agree: reasons.length === 0, reasons, outcome, sequence };
}

/** A disagreement (or malformed line) as reported: JSON-able. */
export interface DisagreementReport {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly text: string;
  /** Disagreement reasons, or `MALFORMED`. */
  readonly reasons: readonly (DisagreementReason | 'MALFORMED')[];
  /** The shoe sequence dealt, card codes (absent for a malformed line). */
  readonly shoe?: readonly string[];
  /** What the file says: each side's cards (codes with the assigned suits) and the winner. */
  readonly expected?: { readonly player: readonly string[]; readonly banker: readonly string[]; readonly winner: Winner };
  /** What the engine did (absent when it threw or the line is malformed). */
  readonly got?: { readonly player: readonly string[]; readonly banker: readonly string[]; readonly winner: Winner };
  /** Parse error or engine error message. */
  readonly message?: string;
}

/** The replay summary, JSON-able (`replay-hands --json` prints it). */
export interface ReplaySummary {
  /** Hands read (malformed lines not included). */
  readonly hands: number;
  readonly agree: number;
  readonly disagree: number;
  /** Lines that are neither a hand, a header nor blank. */
  readonly malformed: number;
  /** Winners as the engine dealt them. */
  readonly engineTotals: Record<Winner, number>;
  /** Winners as the file states them. */
  readonly fileTotals: Record<Winner, number>;
  /** The first disagreements and malformed lines, in file order (at most the tally's limit). */
  readonly firstDisagreements: readonly DisagreementReport[];
}

/**
 * Accumulates per-line results into a {@link ReplaySummary}. Pure: feed it lines with
 * {@link ReplayTally.addLine} (or parsed results with {@link ReplayTally.addParsed}).
 */
export class ReplayTally {
  private hands = 0;
  private agree = 0;
  private disagree = 0;
  private malformed = 0;
  private readonly engineTotals: Record<Winner, number> = { BANKER: 0, PLAYER: 0, TIE: 0 };
  private readonly fileTotals: Record<Winner, number> = { BANKER: 0, PLAYER: 0, TIE: 0 };
  private readonly first: DisagreementReport[] = [];

  /** @param maxReported how many disagreements/malformed lines to keep in detail (default 10) */
  constructor(private readonly maxReported = 10) {}

  /** Parses, replays and counts one line (1-based `line` number). */
  addLine(text: string, line: number): void {
    this.addParsed(parseHandLine(text, line));
  }

  /** Counts one parsed line. */
  addParsed(parsed: ParsedHandLine): void {
    if (parsed.kind === 'skip') return;
    if (parsed.kind === 'malformed') {
      this.malformed++;
      this.keep({ line: parsed.line, text: parsed.text, reasons: ['MALFORMED'], message: parsed.message });
      return;
    }
    const r = replayHand(parsed.hand);
    this.hands++;
    this.fileTotals[parsed.hand.outcome]++;
    if (r.outcome) this.engineTotals[r.outcome.winner]++;
    if (r.agree) {
      this.agree++;
      return;
    }
    this.disagree++;
    const codes = (cs: readonly Card[]) => cs.map((c) => c.code);
    this.keep({
      line: r.hand.line,
      text: r.hand.text,
      reasons: r.reasons,
      shoe: codes(r.sequence.shoe),
      expected: { player: codes(r.sequence.expectedPlayer), banker: codes(r.sequence.expectedBanker), winner: r.hand.outcome },
      got: r.outcome ? { player: codes(r.outcome.player), banker: codes(r.outcome.banker), winner: r.outcome.winner } : undefined,
      message: r.error,
    });
  }

  private keep(d: DisagreementReport): void {
    if (this.first.length < this.maxReported) this.first.push(d);
  }

  /** Hands counted so far. */
  get handCount(): number {
    return this.hands;
  }

  /** A snapshot of the counts. */
  summary(): ReplaySummary {
    return {
      hands: this.hands,
      agree: this.agree,
      disagree: this.disagree,
      malformed: this.malformed,
      engineTotals: { ...this.engineTotals },
      fileTotals: { ...this.fileTotals },
      firstDisagreements: [...this.first],
    };
  }
}

/** True when the path names a `.tar.xz` (or `.txz`) archive rather than the extracted text. */
export function isTarXz(file: string): boolean {
  return /\.(tar\.xz|txz)$/i.test(file);
}

/** An opened hand-history source. */
export interface HandHistorySource {
  /** The lines, without line breaks. */
  readonly lines: AsyncIterable<string>;
  /**
   * Resolves when the source closed cleanly; rejects when `tar` failed (non-zero exit, not found)
   * or the file could not be read. Await it after consuming `lines`.
   */
  readonly finished: Promise<void>;
  /** Expected size of the text in bytes, when known (file size, or the archive's uncompressed size). */
  readonly totalBytes?: number;
}

/** The uncompressed size an `.xz` file declares (`xz --robot --list`), or undefined. */
function xzUncompressedSize(file: string): number | undefined {
  try {
    const r = spawnSync('xz', ['--robot', '--list', file], { encoding: 'utf8' });
    if (r.status !== 0) return undefined;
    const totals = r.stdout.split('\n').find((l) => l.startsWith('totals\t'));
    const n = totals ? Number(totals.split('\t')[4]) : NaN;
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens a hand history for streaming: the extracted text file, or the `.tar.xz` archive, whose
 * first member is streamed from `tar -xJOf <file>` (never written to disk).
 * @throws Error (synchronously) when the file does not exist or is not a regular file
 */
export function openHandHistoryLines(file: string): HandHistorySource {
  const st = statSync(file);
  if (!st.isFile()) throw new Error(`${file} is not a file`);
  let input: Readable;
  let finished: Promise<void>;
  let totalBytes: number | undefined;
  if (isTarXz(file)) {
    const child = spawn('tar', ['-xJOf', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    input = child.stdout;
    finished = new Promise<void>((resolve, reject) => {
      child.on('error', (e) => reject(new Error(`cannot run tar: ${e.message}`)));
      child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`tar -xJOf ${file} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
      });
    });
    totalBytes = xzUncompressedSize(file);
  } else {
    input = createReadStream(file);
    finished = new Promise<void>((resolve, reject) => {
      input.on('error', reject);
      input.on('close', () => resolve());
    });
    totalBytes = st.size;
  }
  // keep an early rejection from being reported as unhandled before the caller awaits it
  finished.catch(() => undefined);
  const lines = createInterface({ input, crlfDelay: Infinity });
  input.on('error', (e) => lines.emit('error', e));
  return { lines, finished, totalBytes };
}

/** Options of {@link replayHandHistoryFile}. */
export interface ReplayFileOptions {
  /** Disagreements kept in detail (default 10). */
  readonly maxReported?: number;
  /** Called every `progressEvery` lines and at the end with bytes and hands read so far. */
  readonly onProgress?: (bytesRead: number, hands: number) => void;
  /** Default 20,000 lines. */
  readonly progressEvery?: number;
}

/**
 * Streams a hand history (text or `.tar.xz`), replays every hand and returns the summary.
 * `options.onOpen` is called once with the opened source (e.g. to size a progress bar from
 * `totalBytes`) before the first line is read.
 * @throws Error when the file cannot be opened or `tar` fails
 */
export async function replayHandHistoryFile(file: string, options: ReplayFileOptions & { readonly onOpen?: (source: HandHistorySource) => void } = {}): Promise<ReplaySummary> {
  const source = openHandHistoryLines(file);
  options.onOpen?.(source);
  const tally = new ReplayTally(options.maxReported ?? 10);
  const every = options.progressEvery ?? 20_000;
  let lineNo = 0;
  let bytes = 0;
  for await (const text of source.lines) {
    lineNo++;
    bytes += text.length + 1;
    tally.addLine(text, lineNo);
    if (options.onProgress && lineNo % every === 0) options.onProgress(bytes, tally.handCount);
  }
  await source.finished;
  options.onProgress?.(bytes, tally.handCount);
  return tally.summary();
}
