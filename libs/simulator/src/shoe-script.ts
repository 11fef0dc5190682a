import { BET_CODES, BetCode, Card, builtInPaytable, commencementBurnCount, dealRound, isBetOffered, MAIN_BETS, nextPosition, PAIR_BETS, Position, Variant } from '@ledger/rules';
import type { SimBet, TableAction } from './actions';
import { CUT_CARD_FROM_BACK, rigBankerNatural, ShoeBias, shuffledShoe } from './biased-shoe';
import { SeededRandom } from './seeded-random';

/**
 * A whole shoe of a live table as the sequence of actions a table device, a betting platform and
 * pit managers would send (the API's commands, see `actions.ts`), generated from a seeded shuffle.
 * Pure data: `shoe-runner.ts` sends it (a management action as a request and a second pit
 * manager's approval). The same seed and options always give the same shoe.
 */

/** Table settings the script needs (a subset of `config/tables.json`). */
export interface SimTable {
  tableId: string;
  variant: Variant;
  decks: number;
  virtualTable: boolean;
  paytableRef: string;
  pairBetsRequireMainBet: boolean;
  currency: string;
  limits: Record<string, { min: string; max: string }>;
}

/** Knobs of a simulated shoe. Probabilities are per round. */
export interface ShoeScriptOptions {
  shoeId: string;
  dealerId: string;
  /** Accounts betting (ids `acct-1`…); each places 0–3 bets a round. @default 20 */
  accounts?: number;
  /** Chance an account bets in a round. @default 0.5 */
  betChance?: number;
  /** A card exposed while bets are open (voids the round, docs/domain-rules.md §5.3). @default 0 */
  exposedCardChance?: number;
  /** A card dropped during dealing, not exposed first (voids the round, docs/domain-rules.md §5.5). @default 0 */
  droppedCardChance?: number;
  /** An unneeded card drawn after the round completes (docs/domain-rules.md §5.3). @default 0 */
  unneededCardChance?: number;
  /**
   * Management voids a resulted round (docs/domain-rules.md §5.4): a `voidRound` action, which the
   * runner sends as a request of one pit manager and an approval by another (docs/domain-rules.md §6). @default 0
   */
  managementVoidChance?: number;
  /** Management corrects a resulted round's result (docs/domain-rules.md §5.4), requested and approved as a void is. @default 0 */
  correctionChance?: number;
  /** Stop after this many rounds even before the cut card. @default Infinity */
  maxRounds?: number;
  /** Deal from a biased shoe (docs/fairness.md §5): cards missing, or a dealer who finds Banker naturals. @default honest */
  bias?: ShoeBias;
}

/** Generated shoe: the actions, plus what a checker needs. */
export interface ShoeScript {
  seed: string;
  table: SimTable;
  shoeId: string;
  /** Index in the shuffled shoe before which the cut card lies. */
  cutCardIndex: number;
  actions: TableAction[];
  rounds: number;
}

/**
 * Deals a whole shoe: commencement card and its burns (docs/domain-rules.md §5.1), rounds of bets
 * within the table's limits and side-bet windows (docs/domain-rules.md §3, §4) over every bet code,
 * cards through the tableau (docs/domain-rules.md §2), the cut card per {@link CUT_CARD_FROM_BACK}
 * (docs/domain-rules.md §5.2: during dealing the round is the last; between rounds no further
 * round starts), and, as configured, exposed/dropped/unneeded cards, voids and corrections.
 * Deterministic for a given seed.
 */
export function generateShoeScript(table: SimTable, seed: string, opts: ShoeScriptOptions): ShoeScript {
  const rng = new SeededRandom(seed);
  const cards = shuffledShoe(table.decks, rng, opts.bias);
  const cutCardIndex = cards.length - (CUT_CARD_FROM_BACK.min + rng.int(CUT_CARD_FROM_BACK.max - CUT_CARD_FROM_BACK.min + 1));
  const paytable = builtInPaytable(table.paytableRef);
  const accounts = opts.accounts ?? 20;
  const betChance = opts.betChance ?? 0.5;
  const actions: TableAction[] = [];
  let idx = 0;
  let betSeq = 0;
  const draw = () => cards[idx++];
  actions.push({ kind: 'openShoe', shoeId: opts.shoeId, tableId: table.tableId, dealerId: opts.dealerId });
  const first = draw();
  actions.push({ kind: 'commencement', card: first.code });
  for (let i = 0; i < commencementBurnCount(first.rank); i++) actions.push({ kind: 'burn', card: draw().code });

  let cutDrawn = false;
  let hand = 0;
  while (hand < (opts.maxRounds ?? Infinity)) {
    if (idx >= cutCardIndex && !cutDrawn) {
      actions.push({ kind: 'cutCard' });
      cutDrawn = true;
      break;
    }
    if (cutDrawn) break;
    hand++;
    const roundId = `${opts.shoeId}-R${String(hand).padStart(3, '0')}`;
    actions.push({ kind: 'openRound', roundId });
    const bets = roundBets(rng, table, paytable, hand, accounts, betChance, () => `${opts.shoeId}-B${++betSeq}`);
    if (bets.length) actions.push({ kind: 'bets', roundId, bets });
    if (rng.chance(opts.exposedCardChance ?? 0)) {
      actions.push({ kind: 'expose', card: draw().code }); // voids the round; the card is out of the shoe
      continue;
    }
    actions.push({ kind: 'closeBetting', roundId });
    if (opts.bias) rigBankerNatural(cards, idx, rng, opts.bias);
    const dealt: Card[] = [];
    let dropped = false;
    for (let pos = nextPosition(dealt); pos; pos = nextPosition(dealt)) {
      if (idx >= cutCardIndex && !cutDrawn) {
        actions.push({ kind: 'cutCard' });
        cutDrawn = true;
      }
      if (dealt.length === 2 && rng.chance(opts.droppedCardChance ?? 0)) {
        actions.push({ kind: 'drop', card: draw().code, exposedBeforeLeavingView: false });
        dropped = true;
        break;
      }
      const c = draw();
      dealt.push(c);
      actions.push({ kind: 'deal', roundId, position: pos, card: c.code });
    }
    if (dropped) continue;
    if (idx < cards.length - 1 && rng.chance(opts.unneededCardChance ?? 0)) actions.push({ kind: 'unneeded', roundId, card: draw().code });
    if (rng.chance(opts.correctionChance ?? 0)) {
      const corrected = correctedCards(dealt);
      if (corrected) actions.push({ kind: 'correctResult', roundId, cards: corrected, reason: 'wrong dealing seen on review: P1/B1 were swapped' });
    } else if (rng.chance(opts.managementVoidChance ?? 0)) {
      actions.push({ kind: 'voidRound', roundId, reason: 'dealing procedure breach seen on camera review' });
    }
  }
  actions.push({ kind: 'closeShoe' });
  return { seed, table, shoeId: opts.shoeId, cutCardIndex, actions, rounds: hand };
}

/** A different tableau-valid order of the same cards (P1↔B1 or P2↔B2 swapped), or null. */
function correctedCards(dealt: Card[]): string[] | null {
  for (const [a, b] of [
    [0, 1],
    [2, 3],
  ]) {
    const alt = [...dealt];
    [alt[a], alt[b]] = [alt[b], alt[a]];
    if (alt[a].code === alt[b].code) continue;
    try {
      if (dealRound(alt).cardsConsumed === alt.length) return alt.map((c) => c.code);
    } catch {
      /* not a complete round with these cards: try the next swap */
    }
  }
  return null;
}

function roundBets(rng: SeededRandom, table: SimTable, paytable: ReturnType<typeof builtInPaytable>, hand: number, accounts: number, betChance: number, nextId: () => string): SimBet[] {
  const codes = (BET_CODES[table.variant] as readonly BetCode[]).filter((c) => isBetOffered(paytable, c, hand, table.virtualTable));
  const sides = codes.filter((c) => !MAIN_BETS.includes(c));
  const bets: SimBet[] = [];
  for (let a = 1; a <= accounts; a++) {
    if (!rng.chance(betChance)) continue;
    const accountId = `acct-${a}`;
    const chosen = new Set<BetCode>([rng.pick(MAIN_BETS)]);
    if (sides.length && rng.chance(0.5)) chosen.add(rng.pick(sides));
    if (rng.chance(0.1)) chosen.add('TIE');
    for (const code of chosen) {
      if (table.variant === 'classic' && table.pairBetsRequireMainBet && PAIR_BETS.includes(code) && ![...chosen].some((c) => MAIN_BETS.includes(c))) continue;
      const { min, max } = table.limits[code];
      const lo = BigInt(min);
      const hi = BigInt(max) < lo * 50n ? BigInt(max) : lo * 50n;
      const steps = Number((hi - lo) / lo);
      const stake = lo + BigInt(rng.int(steps + 1)) * lo;
      bets.push({ betId: nextId(), accountId, betCode: code, stake: stake.toString(), currency: table.currency });
    }
  }
  // main bets first, so "a main wager accepted before the pair wager" holds within a batch (docs/domain-rules.md §3.1)
  return bets.sort((x, y) => Number(!MAIN_BETS.includes(x.betCode)) - Number(!MAIN_BETS.includes(y.betCode)));
}
