import { Card, card, Rank, RANKS, Suit } from './cards';
import { RulesError } from './errors';
import { payoffFor, Paytable } from './paytables';
import { Payoff } from './settlement';
import { MAX_DECKS } from './shoe';
import { nextPosition, resultRound, RoundOutcome, Winner } from './tableau';
import { BET_CODES, BetCode, matchingRows, ROW_KEYS, Variant } from './variants';

/**
 * The PAR sheet: exact probability and house edge of every bet of a paytable for a fresh shoe of
 * N decks (docs/domain-rules.md §1–§3), computed the way published game analyses do it: one round dealt
 * off the top of a full shoe, cards removed as dealt, every ordered deal equally likely. No Monte
 * Carlo.
 *
 * Method (exact):
 * - The first four cards (P1 B1 P2 B2) are enumerated over the 13 ranks (13^4 prefixes, each rank
 *   4N cards, removed as dealt). Their suits are split exactly by enumerating the 4^4 suit
 *   assignments of each of the 15 rank-equality patterns at card level (52 distinct cards, N copies
 *   each), which yields the joint weight of "Player's first two suited" × "Banker's first two
 *   suited" for the prefix; third cards never matter to a suit-dependent bet.
 * - Third cards are enumerated by point value (10/J/Q/K together), weighted by what remains.
 * - The drawing rules are not re-implemented: the table "two-card totals (+ Player's third card
 *   value) → who draws → final totals" is read off the engine's own `nextPosition`/`resultRound`,
 *   and every bet of every outcome class is settled by the engine's `matchingRows`/`payoffFor` on a
 *   real card sequence of that class (checked, at run time, to reproduce the class's totals, card
 *   counts, pairs and suits). So the PAR sheet and the settlement engine cannot disagree. (The
 *   one assumption, that the tableau sees point values only, is §2's rule; the unit spec checks
 *   the whole sheet against an independent every-deal enumeration and the engine deal by deal.)
 * - Arithmetic: every weight is an integer numerator over the common denominator
 *   (52N)(52N−1)(52N−2)(52N−3)(52N−4)(52N−5) — a 4- or 5-card deal's weight is scaled up by the
 *   cards it did not take. Partial sums stay below 2^53 and are flushed into `bigint`
 *   accumulators, so probabilities and expected values are exact rationals; each is converted to
 *   a float64 only at the end (relative error ≤ 2^-52).
 */

/** One paytable row of a bet in a {@link ParSheet}. */
export type { ParSheet, ParSheetBet, ParSheetOutcomes, ParSheetRow } from './par-sheet-types';
import type { ParSheet, ParSheetBet, ParSheetOutcomes, ParSheetRow } from './par-sheet-types';

// The joint distribution of outcome classes, independent of any paytable (cached per deck count).

/** A class of rounds the engine cannot tell apart, with its exact probability numerator. */
interface OutcomeClass {
  /** numerator over {@link Joint.denominator} */
  readonly weight: bigint;
  /** the engine's result of a real round of this class */
  readonly outcome: RoundOutcome;
}

interface Joint {
  readonly decks: number;
  /** (52N)(52N−1)…(52N−5) */
  readonly denominator: bigint;
  readonly classes: readonly OutcomeClass[];
}

/** Rank used to stand for a point value in third cards and in the tableau probes. */
const RANK_OF_VALUE: readonly Rank[] = ['K', 'A', '2', '3', '4', '5', '6', '7', '8', '9'];
/** Point value of each rank index of `RANKS` (A..9, T, J, Q, K). */
const VALUE_OF_RANK: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0];
/** No such card dealt (a 4- or 5-card round). */
const NO_CARD = -1;
/** A class with no representative round yet. */
const UNSET = -2;

/** A final tableau class: what a round's totals and card counts are, read off the engine. */
interface TableauClass {
  readonly key: string;
}

/**
 * What the engine's tableau does for given two-card totals: `classOf[(v5 + 1) * 11 + (v6 + 1)]`,
 * with `v5`/`v6` the point values of the 5th/6th cards or −1 when no such card is dealt, gives the
 * final tableau class index.
 */
interface TableauPlan {
  /** 'none': round complete after 4 cards; 'banker': only the Banker draws (5th card is B3);
   *  'player': the Player draws P3 (5th card), then the Banker per `bankerDrawsAfter[v5]`. */
  readonly kind: 'none' | 'banker' | 'player';
  readonly bankerDrawsAfter: readonly boolean[];
  readonly classOf: Int32Array;
}

function tableauKey(o: RoundOutcome): string {
  return `${o.playerTotal}/${o.bankerTotal}/${o.player.length}/${o.banker.length}/${o.playerNatural ? 1 : 0}${o.bankerNatural ? 1 : 0}`;
}

/** Reads the drawing rules off the engine: for each pair of two-card totals, who draws and the final class. */
function tableauPlans(classes: TableauClass[], index: Map<string, number>): TableauPlan[] {
  const intern = (o: RoundOutcome): number => {
    const key = tableauKey(o);
    let i = index.get(key);
    if (i === undefined) {
      i = classes.length;
      classes.push({ key });
      index.set(key, i);
    }
    return i;
  };
  const c = (v: number, s: Suit): Card => card(RANK_OF_VALUE[v], s);
  const plans: TableauPlan[] = [];
  for (let pt = 0; pt < 10; pt++) {
    for (let bt = 0; bt < 10; bt++) {
      // two-card totals pt, bt: P1 = pt, B1 = bt, P2 = B2 = a ten-value card
      const prefix = [c(pt, 'S'), c(bt, 'H'), card('K', 'D'), card('Q', 'C')];
      const classOf = new Int32Array(11 * 11).fill(-1);
      const bankerDrawsAfter: boolean[] = new Array<boolean>(10).fill(false);
      const next = nextPosition(prefix);
      let kind: TableauPlan['kind'];
      if (next === null) {
        kind = 'none';
        classOf[0] = intern(resultRound(prefix));
      } else if (next === 'B3') {
        kind = 'banker';
        for (let v5 = 0; v5 < 10; v5++) {
          const dealt = [...prefix, c(v5, 'S')];
          if (nextPosition(dealt) !== null) throw new Error(`PAR sheet: tableau probe ${pt}/${bt}: Banker's third card not last`);
          classOf[(v5 + 1) * 11] = intern(resultRound(dealt));
        }
      } else if (next === 'P3') {
        kind = 'player';
        for (let v5 = 0; v5 < 10; v5++) {
          const five = [...prefix, c(v5, 'S')];
          const after = nextPosition(five);
          if (after === null) {
            classOf[(v5 + 1) * 11] = intern(resultRound(five));
          } else if (after === 'B3') {
            bankerDrawsAfter[v5] = true;
            for (let v6 = 0; v6 < 10; v6++) classOf[(v5 + 1) * 11 + v6 + 1] = intern(resultRound([...five, c(v6, 'H')]));
          } else {
            throw new Error(`PAR sheet: tableau probe ${pt}/${bt}/${v5}: unexpected ${after}`);
          }
        }
      } else {
        throw new Error(`PAR sheet: tableau probe ${pt}/${bt}: unexpected ${next}`);
      }
      plans.push({ kind, bankerDrawsAfter, classOf });
    }
  }
  return plans;
}

/** Attribute bits of the first four cards that bets can see beyond totals. */
const A_PLAYER_PAIR = 1;
const A_BANKER_PAIR = 2;
const A_TWIN = 4; // both pairs, of the same rank
const A_PLAYER_SUITED = 8; // Player's first two cards the same suit
const A_BANKER_SUITED = 16;
const ATTRS = 32;

/**
 * For each of the 15 rank-equality patterns of (P1, B1, P2, B2) — pattern = canonical labels,
 * e.g. [0,1,0,2] — the exact card-level weight of each (Player suited, Banker suited) combination,
 * summed over the 4^4 suit assignments: Π (N − earlier cards of the same rank and suit). The four
 * weights add up to the rank-level weight Π (4N − earlier cards of the same rank).
 */
function suitSplit(labels: readonly number[], decks: number): number[] {
  const out = [0, 0, 0, 0];
  const suits = [0, 0, 0, 0];
  for (let code = 0; code < 256; code++) {
    for (let i = 0; i < 4; i++) suits[i] = (code >> (2 * i)) & 3;
    let w = 1;
    for (let i = 0; i < 4 && w > 0; i++) {
      let same = 0;
      for (let j = 0; j < i; j++) if (labels[j] === labels[i] && suits[j] === suits[i]) same++;
      w *= decks - same;
    }
    if (w > 0) out[(suits[0] === suits[2] ? 1 : 0) + (suits[1] === suits[3] ? 2 : 0)] += w;
  }
  let rankWeight = 1;
  for (let i = 0; i < 4; i++) {
    let same = 0;
    for (let j = 0; j < i; j++) if (labels[j] === labels[i]) same++;
    rankWeight *= 4 * decks - same;
  }
  if (out[0] + out[1] + out[2] + out[3] !== rankWeight) throw new Error('PAR sheet: suit split does not add up');
  return out;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Exact joint distribution of outcome classes for an N-deck shoe. */
function computeJoint(decks: number): Joint {
  const tClasses: TableauClass[] = [];
  const plans = tableauPlans(tClasses, new Map());
  const total = 52 * decks;

  // 1. First four cards, by rank: weights per (value prefix, attributes), with a representative rank prefix.
  const attrWeight = new Float64Array(10000 * ATTRS);
  const attrRep = new Int32Array(10000 * ATTRS).fill(-1);
  const patternSplit = new Map<string, number[]>();
  const labels = [0, 0, 0, 0];
  for (let r1 = 0; r1 < 13; r1++)
    for (let r2 = 0; r2 < 13; r2++)
      for (let r3 = 0; r3 < 13; r3++)
        for (let r4 = 0; r4 < 13; r4++) {
          const rs = [r1, r2, r3, r4];
          for (let i = 0; i < 4; i++) {
            const prev = rs.indexOf(rs[i]);
            labels[i] = prev === i ? Math.max(-1, ...labels.slice(0, i)) + 1 : labels[prev];
          }
          const pkey = labels.join('');
          let split = patternSplit.get(pkey);
          if (!split) patternSplit.set(pkey, (split = suitSplit(labels, decks)));
          const vp = ((VALUE_OF_RANK[r1] * 10 + VALUE_OF_RANK[r2]) * 10 + VALUE_OF_RANK[r3]) * 10 + VALUE_OF_RANK[r4];
          const pairs = (r1 === r3 ? A_PLAYER_PAIR : 0) | (r2 === r4 ? A_BANKER_PAIR : 0) | (r1 === r3 && r2 === r4 && r1 === r2 ? A_TWIN : 0);
          for (let s = 0; s < 4; s++) {
            if (split[s] === 0) continue;
            const a = pairs | (s & 1 ? A_PLAYER_SUITED : 0) | (s & 2 ? A_BANKER_SUITED : 0);
            attrWeight[vp * ATTRS + a] += split[s];
            if (attrRep[vp * ATTRS + a] < 0) attrRep[vp * ATTRS + a] = ((r1 * 13 + r2) * 13 + r3) * 13 + r4;
          }
        }

  // 2. Third cards by value, for each value prefix, combined with the attributes.
  const nKeys = tClasses.length * ATTRS;
  const acc = new Float64Array(nKeys);
  const big: bigint[] = new Array<bigint>(nKeys).fill(0n);
  const rep = new Int32Array(nKeys * 3).fill(UNSET); // representative: rank prefix, v5, v6
  const r4 = total - 4;
  const r5 = total - 5;
  const counts = new Array<number>(10);
  const entryClass: number[] = [];
  const entryWeight: number[] = [];
  const entryV5: number[] = [];
  const entryV6: number[] = [];
  for (let vp = 0; vp < 10000; vp++) {
    const v1 = Math.floor(vp / 1000);
    const v2 = Math.floor(vp / 100) % 10;
    const v3 = Math.floor(vp / 10) % 10;
    const v4 = vp % 10;
    for (let v = 0; v < 10; v++) counts[v] = v === 0 ? 16 * decks : 4 * decks;
    counts[v1]--;
    counts[v2]--;
    counts[v3]--;
    counts[v4]--;
    if (counts[v1] < 0 || counts[v2] < 0 || counts[v3] < 0 || counts[v4] < 0) continue;
    const plan = plans[((v1 + v3) % 10) * 10 + ((v2 + v4) % 10)];
    entryClass.length = entryWeight.length = entryV5.length = entryV6.length = 0;
    const push = (cls: number, w: number, v5: number, v6: number) => {
      if (w <= 0) return;
      entryClass.push(cls);
      entryWeight.push(w);
      entryV5.push(v5);
      entryV6.push(v6);
    };
    if (plan.kind === 'none') push(plan.classOf[0], r4 * r5, NO_CARD, NO_CARD);
    else if (plan.kind === 'banker') {
      for (let v5 = 0; v5 < 10; v5++) push(plan.classOf[(v5 + 1) * 11], counts[v5] * r5, v5, NO_CARD);
    } else {
      for (let v5 = 0; v5 < 10; v5++) {
        const c5 = counts[v5];
        if (c5 <= 0) continue;
        if (!plan.bankerDrawsAfter[v5]) push(plan.classOf[(v5 + 1) * 11], c5 * r5, v5, NO_CARD);
        else for (let v6 = 0; v6 < 10; v6++) push(plan.classOf[(v5 + 1) * 11 + v6 + 1], c5 * (counts[v6] - (v6 === v5 ? 1 : 0)), v5, v6);
      }
    }
    for (let a = 0; a < ATTRS; a++) {
      const aw = attrWeight[vp * ATTRS + a];
      if (aw === 0) continue;
      for (let e = 0; e < entryClass.length; e++) {
        const x = aw * entryWeight[e];
        if (!Number.isSafeInteger(x)) throw new Error('PAR sheet: weight beyond 2^53');
        const k = entryClass[e] * ATTRS + a;
        if (acc[k] > MAX_SAFE - x) {
          big[k] += BigInt(acc[k]);
          acc[k] = 0;
        }
        acc[k] += x;
        if (rep[k * 3] === UNSET) {
          rep[k * 3] = attrRep[vp * ATTRS + a];
          rep[k * 3 + 1] = entryV5[e];
          rep[k * 3 + 2] = entryV6[e];
        }
      }
    }
  }

  let denominator = 1n;
  for (let i = 0; i < 6; i++) denominator *= BigInt(total - i);

  // 3. A real round of every class with weight, resulted by the engine and checked against the class.
  const classes: OutcomeClass[] = [];
  let sum = 0n;
  for (let k = 0; k < nKeys; k++) {
    const weight = big[k] + BigInt(acc[k]);
    if (weight === 0n) continue;
    sum += weight;
    const a = k % ATTRS;
    const prefix = rep[k * 3];
    const rk = (i: number): Rank => RANKS[Math.floor(prefix / 13 ** (3 - i)) % 13];
    const dealt: Card[] = [card(rk(0), 'S'), card(rk(1), 'D'), card(rk(2), a & A_PLAYER_SUITED ? 'S' : 'H'), card(rk(3), a & A_BANKER_SUITED ? 'D' : 'C')];
    if (rep[k * 3 + 1] !== NO_CARD) dealt.push(card(RANK_OF_VALUE[rep[k * 3 + 1]], 'H'));
    if (rep[k * 3 + 2] !== NO_CARD) dealt.push(card(RANK_OF_VALUE[rep[k * 3 + 2]], 'C'));
    const outcome = resultRound(dealt);
    const seen =
      (outcome.playerPair ? A_PLAYER_PAIR : 0) |
      (outcome.bankerPair ? A_BANKER_PAIR : 0) |
      (outcome.playerPair && outcome.bankerPair && outcome.player[0].rank === outcome.banker[0].rank ? A_TWIN : 0) |
      (outcome.player[0].suit === outcome.player[1].suit ? A_PLAYER_SUITED : 0) |
      (outcome.banker[0].suit === outcome.banker[1].suit ? A_BANKER_SUITED : 0);
    if (seen !== a || tableauKey(outcome) !== tClasses[Math.floor(k / ATTRS)].key) {
      throw new Error(`PAR sheet: representative round ${dealt.map((c) => c.code).join(' ')} does not match its class`);
    }
    classes.push({ weight, outcome });
  }
  if (sum !== denominator) throw new Error(`PAR sheet: probabilities add up to ${sum}/${denominator}`);
  return { decks, denominator, classes };
}

const JOINT_CACHE = new Map<number, Joint>();

function joint(decks: number): Joint {
  let j = JOINT_CACHE.get(decks);
  if (!j) JOINT_CACHE.set(decks, (j = computeJoint(decks)));
  return j;
}

// ---------------------------------------------------------------------------------------------

/** `num/den` as the nearest-ish float64 (both roundings ≤ 2^-53 relative). */
function toNumber(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const neg = num < 0n;
  const n = neg ? -num : num;
  // scale so the integer quotient carries ≥ 64 significant bits, then divide by the power of two exactly
  const shift = BigInt(Math.max(0, 64 + den.toString(2).length - n.toString(2).length));
  const q = (n << shift) / den;
  const value = Number(q) / 2 ** Number(shift);
  return neg ? -value : value;
}

/**
 * Computes the exact PAR sheet of `paytable` for one round off the top of a fresh shoe of
 * `decks` decks (docs/domain-rules.md §1 cards and shoe, §2 tableau, §3 paytables; the method is in
 * this module's comment).
 *
 * @param paytable a compiled paytable (`defaultPaytable('tiger')`, `builtInPaytable('classic-standard@1')`…)
 * @param decks decks in the shoe, integer 1..16 (8 is the norm, 6 also occurs)
 * @returns `{ variant, decks, paytableRef, combinations, outcomes: { bankerWins, playerWins, tie },
 *   bets: [{ bet, houseEdge, expectedValue, rows: [{ row, payoff, probability, combinations,
 *   contribution }], probabilityWin, probabilityPush, probabilityLose }] }`, bets in
 *   `BET_CODES[variant]` order; `combinations` are exact integer strings. All numbers are
 *   exact rationals rounded once to float64. E.g. 8 decks, classic: Banker wins 0.458597, Banker
 *   house edge 0.010579.
 * @throws RulesError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ 16, integer
 */
export function computeParSheet(paytable: Paytable, decks: number): ParSheet {
  if (!Number.isInteger(decks) || decks < 1 || decks > MAX_DECKS) {
    throw new RulesError('SHOE.INVALID_DECK_COUNT', `a shoe holds 1 to ${MAX_DECKS} decks, got ${decks}`, { decks });
  }
  const { denominator: D, classes } = joint(decks);
  const bets = BET_CODES[paytable.variant] as readonly BetCode[];

  const winners: Record<Winner, bigint> = { PLAYER: 0n, BANKER: 0n, TIE: 0n };
  // per bet: row key → weight
  const rowWeights = bets.map(() => new Map<string, bigint>());
  for (const cls of classes) {
    winners[cls.outcome.winner] += cls.weight;
    bets.forEach((bet, i) => {
      const payoff = payoffFor(paytable, bet, cls.outcome);
      const defined = paytable.payoffs.get(bet)!;
      const row = matchingRows(bet, cls.outcome).find((k) => defined.has(k)) ?? 'LOSE';
      if (row === 'LOSE' ? payoff.kind !== 'LOSE' : defined.get(row) !== payoff) {
        throw new Error(`PAR sheet: row ${row} of ${bet} disagrees with payoffFor`);
      }
      const m = rowWeights[i];
      m.set(row, (m.get(row) ?? 0n) + cls.weight);
    });
  }

  const parBets = bets.map((bet, i) => parBet(paytable, bet, rowWeights[i], D));

  return {
    variant: paytable.variant,
    decks,
    paytableRef: paytable.ref,
    combinations: D.toString(),
    outcomes: {
      bankerWins: toNumber(winners.BANKER, D),
      playerWins: toNumber(winners.PLAYER, D),
      tie: toNumber(winners.TIE, D),
    },
    bets: parBets,
  };
}

/**
 * One bet of the PAR sheet: its rows (the paytable's defined rows, then LOSE) with their exact
 * probabilities and contributions, its expected value and house edge.
 * @param weights row key → combinations of the outcome classes that land on it
 * @param D every combination of the first round (the denominator)
 */
function parBet(paytable: Paytable, bet: BetCode, weights: ReadonlyMap<string, bigint>, D: bigint): ParSheetBet {
  const defined = paytable.payoffs.get(bet)!;
  const texts = paytable.definition.rows[bet] ?? {};
  const keys = [...ROW_KEYS[bet].filter((k) => defined.has(k)), 'LOSE'];
  // exact EV = Σ weight × net / D, net = odds.num/odds.den, 0 or −1; over a common denominator
  let lcm = 1n;
  for (const k of keys) {
    const p = defined.get(k);
    if (p?.kind === 'WIN') lcm = (lcm * p.odds.den) / gcd(lcm, p.odds.den);
  }
  let evNum = 0n;
  let win = 0n;
  let push = 0n;
  let lose = 0n;
  const rows: ParSheetRow[] = keys.map((k) => {
    const w = weights.get(k) ?? 0n;
    const p: Payoff = defined.get(k) ?? { kind: 'LOSE' };
    let netNum: bigint; // net × lcm
    if (p.kind === 'WIN') {
      netNum = (p.odds.num * lcm) / p.odds.den;
      win += w;
    } else if (p.kind === 'PUSH') {
      netNum = 0n;
      push += w;
    } else {
      netNum = -lcm;
      lose += w;
    }
    evNum += w * netNum;
    return {
      row: k,
      payoff: p.kind === 'LOSE' ? 'lose' : p.kind === 'PUSH' ? 'push' : texts[k],
      probability: toNumber(w, D),
      combinations: w.toString(),
      contribution: toNumber(w * netNum, D * lcm),
    };
  });
  const expectedValue = toNumber(evNum, D * lcm);
  return {
    bet,
    houseEdge: -expectedValue,
    expectedValue,
    rows,
    probabilityWin: toNumber(win, D),
    probabilityPush: toNumber(push, D),
    probabilityLose: toNumber(lose, D),
  };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** An exact distribution over named classes of the first round: `weights[k] / denominator`. */
export interface RoundDistribution {
  /** (52N)(52N−1)…(52N−5), the PAR sheet's `combinations` (exact). */
  readonly denominator: bigint;
  /** class name → exact numerator over `denominator`; only classes with a weight; they add up to `denominator`. */
  readonly weights: ReadonlyMap<string, bigint>;
}

/**
 * The exact distribution of `classify(outcome)` for one round off the top of a fresh shoe of
 * `decks` decks, from the same enumeration as {@link computeParSheet} (no Monte Carlo): each outcome
 * class of the PAR sheet's joint distribution adds its exact weight to the name `classify` gives
 * its representative round.
 *
 * `classify` must depend only on what the enumeration tells apart: the winner, both totals, both
 * card counts, the naturals, the pairs (and whether both pairs are of one rank) and whether each
 * side's first two cards are suited: every bet's row is such a function (`matchingRows`). A
 * classifier reading card ranks or suits beyond that (e.g. "the Player's first card is a 9") gets
 * the representative's answer for the whole class, which is wrong.
 *
 * @param decks decks in the shoe, integer 1..16
 * @returns `{ denominator, weights }`, both exact bigints (fabulous4, 8 decks: weights of the
 *   `PLAYER_FABULOUS_PAIR` rows equal the PAR sheet's row `combinations`)
 * @throws RulesError `SHOE.INVALID_DECK_COUNT` unless 1 ≤ decks ≤ 16, integer
 */
export function roundDistribution(decks: number, classify: (outcome: RoundOutcome) => string): RoundDistribution {
  if (!Number.isInteger(decks) || decks < 1 || decks > MAX_DECKS) {
    throw new RulesError('SHOE.INVALID_DECK_COUNT', `a shoe holds 1 to ${MAX_DECKS} decks, got ${decks}`, { decks });
  }
  const { denominator, classes } = joint(decks);
  const weights = new Map<string, bigint>();
  for (const cls of classes) {
    const name = classify(cls.outcome);
    weights.set(name, (weights.get(name) ?? 0n) + cls.weight);
  }
  return { denominator, weights };
}
