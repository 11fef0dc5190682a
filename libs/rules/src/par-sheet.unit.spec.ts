import { Card, RANKS, SUITS, card } from './cards';
import { RulesError } from './errors';
import { netPerUnit } from './evaluate';
import { computeParSheet, ParSheet, ParSheetBet } from './par-sheet';
import { builtInPaytable, compilePaytable, FABULOUS4_STANDARD_V1, payoffFor, Paytable } from './paytables';
import { dealRound } from './tableau';
import { BET_CODES, BetCode } from './variants';

const REFS = ['classic-standard@1', 'classic-no-commission@1', 'tiger-standard@1', 'fabulous4-standard@1'] as const;
type Ref = (typeof REFS)[number];
const pt = (ref: Ref): Paytable => builtInPaytable(ref);
const sheet = (ref: Ref, decks: number): ParSheet => computeParSheet(pt(ref), decks);
const bet = (s: ParSheet, code: BetCode): ParSheetBet => {
  const b = s.bets.find((x) => x.bet === code);
  if (!b) throw new Error(`no ${code} in ${s.paytableRef}`);
  return b;
};
/** Equal when rounded to `places` decimals (published figures are rounded, not truncated). */
const expectRounded = (actual: number, published: number, places: number) => expect(Math.abs(actual - published)).toBeLessThanOrEqual(0.5 * 10 ** -places + 1e-12);

// -----------------------------------------------------------------------------------------------
// An independent brute force, written from docs/domain-rules.md §2–§3 directly (not the engine): every
// ordered rank-level deal of a small shoe, by plain recursion, float weights.

/** Point value by index into RANKS (A, 2..9, T, J, Q, K). */
const V = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0];

/** §2 Banker table when the Player drew a third card of value v. */
function specBankerDraws(bt: number, v: number | null): boolean {
  if (v === null) return bt <= 5;
  if (bt <= 2) return true;
  if (bt === 3) return v !== 8;
  if (bt === 4) return v >= 2 && v <= 7;
  if (bt === 5) return v >= 4 && v <= 7;
  if (bt === 6) return v === 6 || v === 7;
  return false;
}

/** Number of cards the round takes, from the first cards of a deal (rank indices, ≥ 5 given). */
function specCardsTaken(seq: readonly number[]): number {
  const p = (V[seq[0]] + V[seq[2]]) % 10;
  const b = (V[seq[1]] + V[seq[3]]) % 10;
  if (p >= 8 || b >= 8) return 4;
  if (p <= 5) return specBankerDraws(b, V[seq[4]]) ? 6 : 5;
  return specBankerDraws(b, null) ? 5 : 4;
}

interface SpecRound {
  pT: number;
  bT: number;
  pLen: number;
  bLen: number;
  pPair: boolean;
  bPair: boolean;
  twin: boolean;
}

/** Results a complete round of `n` cards (rank indices in dealing order) by the spec. */
function specRound(seq: readonly number[], n: number): SpecRound {
  const player = [seq[0], seq[2]];
  const banker = [seq[1], seq[3]];
  const p2 = (V[seq[0]] + V[seq[2]]) % 10;
  if (n >= 5) (p2 <= 5 ? player : banker).push(seq[4]); // no natural when a third card is dealt
  if (n === 6) banker.push(seq[5]);
  const total = (h: number[]) => h.reduce((s, r) => s + V[r], 0) % 10;
  const pPair = seq[0] === seq[2];
  const bPair = seq[1] === seq[3];
  return {
    pT: total(player),
    bT: total(banker),
    pLen: player.length,
    bLen: banker.length,
    pPair,
    bPair,
    twin: pPair && bPair && seq[0] === seq[1],
  };
}

/** Net result per unit of each bet by §3, written out by hand (not read from the paytables). */
function specNet(ref: Ref, code: BetCode, r: SpecRound): number {
  const pWin = r.pT > r.bT;
  const bWin = r.bT > r.pT;
  const tie = r.pT === r.bT;
  switch (code) {
    case 'PLAYER':
      if (tie) return 0;
      if (!pWin) return -1;
      if (ref === 'fabulous4-standard@1') return r.pT === 4 ? 0.5 : r.pT === 1 ? 2 : 1;
      return 1;
    case 'BANKER':
      if (tie) return 0;
      if (!bWin) return -1;
      if (ref === 'classic-standard@1') return 0.95;
      if (ref === 'fabulous4-standard@1') return r.bT === 4 ? 0 : r.bT === 1 ? 2 : 1;
      return r.bT === 6 ? 0.5 : 1; // tiger, classic no-commission
    case 'TIE':
      return tie ? 8 : -1;
    case 'PLAYER_PAIR':
      return r.pPair ? 11 : -1;
    case 'BANKER_PAIR':
      return r.bPair ? 11 : -1;
    case 'EITHER_PAIR':
      return r.pPair || r.bPair ? 5 : -1;
    case 'TIGER_TIE':
      return tie && r.pT === 6 ? 35 : -1;
    case 'TIGER_PAIR':
      if (r.pPair && r.bPair) return r.twin ? 100 : 20;
      return r.pPair || r.bPair ? 4 : -1;
    case 'TIGER':
      return bWin && r.bT === 6 ? (r.bLen === 3 ? 18 : 12) : -1;
    case 'BIG_TIGER':
      return bWin && r.bT === 6 && r.bLen === 3 ? 50 : -1;
    case 'SMALL_TIGER':
      return bWin && r.bT === 6 && r.bLen === 2 ? 22 : -1;
    case 'PLAYER_FABULOUS_4':
      return pWin && r.pT === 4 ? 40 : -1;
    case 'BANKER_FABULOUS_4':
      return bWin && r.bT === 4 ? 20 : -1;
    default:
      throw new Error(`specNet: ${code} depends on suits`);
  }
}

const FAB_PAIRS: readonly BetCode[] = ['PLAYER_FABULOUS_PAIR', 'BANKER_FABULOUS_PAIR'];

/** Fabulous Pair net (§3.3) of a side's first two cards. */
function specFabNet(a: Card, b: Card): number {
  if (a.rank === b.rank) return a.suit === b.suit ? 7 : 4;
  return a.suit === b.suit ? 1 : -1;
}

interface Brute {
  /** ref → bet → net → probability */
  dist: Map<string, Map<number, number>>;
}

function bruteForce(decks: number): Brute {
  const counts = RANKS.map(() => 4 * decks);
  const size = 52 * decks;
  let left = size;
  const seq: number[] = [];
  // integer weights: a deal of n cards weighs Π(counts as dealt) × (size−n)(size−n−1)…(size−5), over
  // size(size−1)…(size−5) — below 2^53 up to 8 decks, so every sum here is an exact integer
  const fall = (from: number, k: number) => {
    let x = 1;
    for (let i = 0; i < k; i++) x *= from - i;
    return x;
  };
  const denominator = fall(size, 6);
  if (!Number.isSafeInteger(denominator)) throw new Error('brute force: shoe too large for exact float sums');
  const dist = new Map<string, Map<number, number>>();
  const add = (ref: string, code: string, net: number, w: number) => {
    const k = `${ref}|${code}`;
    let m = dist.get(k);
    if (!m) dist.set(k, (m = new Map()));
    m.set(net, (m.get(net) ?? 0) + w / denominator);
  };
  // aggregate leaves by everything §3 can see (suits aside), then settle each signature once
  const sig = new Map<string, { r: SpecRound; w: number }>();
  // Fabulous Pair, suits by exchangeability: given the ranks, a side's first two cards are two
  // draws from the 4N cards of their rank(s): same suit with chance (N−1)/(4N−1) if one rank, 1/4 if two.
  const pairWeight = [0, 0];
  const leaf = (w: number, n: number) => {
    const r = specRound(seq, n);
    const key = `${r.pT}${r.bT}${r.pLen}${r.bLen}${+r.pPair}${+r.bPair}${+r.twin}`;
    const s = sig.get(key);
    if (s) s.w += w;
    else sig.set(key, { r, w });
    if (r.pPair) pairWeight[0] += w;
    if (r.bPair) pairWeight[1] += w;
  };
  const rec = (w: number) => {
    const n = seq.length;
    // at 4 cards only whether a 5th is dealt matters, which no 5th-card value changes (stand-in 9 = T)
    if (n >= 4 && specCardsTaken(n === 4 ? [...seq, 9] : seq) <= n) return leaf(w * fall(left, 6 - n), n);
    for (let r = 0; r < 13; r++) {
      if (counts[r] === 0) continue;
      const q = w * counts[r];
      counts[r]--;
      left--;
      seq.push(r);
      rec(q);
      seq.pop();
      left++;
      counts[r]++;
    }
  };
  rec(1);
  for (const ref of REFS) {
    for (const code of BET_CODES[pt(ref).variant] as readonly BetCode[]) {
      if (FAB_PAIRS.includes(code)) {
        const pair = pairWeight[code === 'PLAYER_FABULOUS_PAIR' ? 0 : 1];
        const suitedPair = (pair * (decks - 1)) / (4 * decks - 1);
        const suited = (denominator - pair) / 4;
        add(ref, code, 7, suitedPair);
        add(ref, code, 4, pair - suitedPair);
        add(ref, code, 1, suited);
        add(ref, code, -1, denominator - pair - suited);
      } else for (const { r, w } of sig.values()) add(ref, code, specNet(ref, code, r), w);
    }
  }
  return { dist };
}

/** net of a PAR-sheet row */
const rowNet = (payoff: string): number => {
  if (payoff === 'lose') return -1;
  if (payoff === 'push') return 0;
  const [x, y] = payoff.split(':').map(Number);
  return x / y;
};

// -----------------------------------------------------------------------------------------------

describe('computeParSheet — published 8-deck figures (Wizard of Odds analyses)', () => {
  const classic = sheet('classic-standard@1', 8);
  const tiger = sheet('tiger-standard@1', 8);
  const fab4 = sheet('fabulous4-standard@1', 8);

  it('reproduces the outcome probabilities of docs/domain-rules.md §2', () => {
    expectRounded(classic.outcomes.bankerWins, 0.458597, 6);
    expectRounded(classic.outcomes.playerWins, 0.446247, 6);
    expectRounded(classic.outcomes.tie, 0.095156, 6);
    expect(classic.outcomes.bankerWins + classic.outcomes.playerWins + classic.outcomes.tie).toBeCloseTo(1, 14);
    // the outcome distribution does not depend on the paytable
    expect(tiger.outcomes).toEqual(classic.outcomes);
    expect(fab4.outcomes).toEqual(classic.outcomes);
  });

  it('classic: Banker 1.06%, Player 1.24%, Tie 14.36%, Player/Banker Pair 11:1 10.36%, Either Pair 5:1 13.71%', () => {
    expectRounded(bet(classic, 'BANKER').houseEdge, 0.010579, 6);
    expectRounded(bet(classic, 'PLAYER').houseEdge, 0.012351, 6);
    expectRounded(bet(classic, 'TIE').houseEdge, 0.143596, 6);
    expectRounded(bet(classic, 'PLAYER_PAIR').houseEdge, 0.103614, 6);
    expectRounded(bet(classic, 'BANKER_PAIR').houseEdge, 0.103614, 6);
    expectRounded(bet(classic, 'EITHER_PAIR').houseEdge, 0.1371, 4);
  });

  it('no-commission Banker (win on 6 pays 1:2, as Tiger Banker): 1.46%', () => {
    expectRounded(bet(sheet('classic-no-commission@1', 8), 'BANKER').houseEdge, 0.0146, 4);
    expectRounded(bet(tiger, 'BANKER').houseEdge, 0.0146, 4);
  });

  it('tiger: Big Tiger 50:1 15.25%', () => {
    expectRounded(bet(tiger, 'BIG_TIGER').houseEdge, 0.1525, 4);
  });

  it('fabulous 4: Player 1.60%, Banker 1.55%, Fabulous Pair 11.33%', () => {
    expectRounded(bet(fab4, 'PLAYER').houseEdge, 0.016, 4);
    expectRounded(bet(fab4, 'BANKER').houseEdge, 0.0155, 4);
    expectRounded(bet(fab4, 'PLAYER_FABULOUS_PAIR').houseEdge, 0.1133, 4);
    expectRounded(bet(fab4, 'BANKER_FABULOUS_PAIR').houseEdge, 0.1133, 4);
  });
});

describe('computeParSheet — published combination counts (Wizard of Odds tables, exact)', () => {
  const rowCombos = (s: ParSheet, code: BetCode) => Object.fromEntries(bet(s, code).rows.map((r) => [r.row, r.combinations]));

  it('8 decks: 4,998,398,275,503,360 deals; Banker 2,292,252,566,437,888, Player 2,230,518,282,592,256, Tie 475,627,426,473,216', () => {
    const s = sheet('classic-standard@1', 8);
    expect(s.combinations).toBe('4998398275503360');
    expect(rowCombos(s, 'PLAYER')).toEqual({ WIN: '2230518282592256', TIE: '475627426473216', LOSE: '2292252566437888' });
  });

  it('6 decks: Banker 403,095,751,234,560, Player 392,220,492,728,832, Tie 83,552,962,932,288', () => {
    const s = sheet('classic-standard@1', 6);
    expect(s.combinations).toBe('878869206895680');
    expect(rowCombos(s, 'BANKER')).toEqual({ WIN: '403095751234560', TIE: '83552962932288', LOSE: '392220492728832' });
  });

  it('fabulous 4, 8 decks: Player wins with 1 / with 4, Banker wins with 1', () => {
    const s = sheet('fabulous4-standard@1', 8);
    expect(rowCombos(s, 'PLAYER')).toMatchObject({ WIN_TOTAL_1: '24639193538560', WIN_TOTAL_4: '86165771096064' });
    expect(rowCombos(s, 'BANKER')).toMatchObject({ WIN_TOTAL_1: '24291119898624' });
  });

  it('fabulous 4 side bets at the published Marina Bay Sands pays (Player 50:1, Banker 25:1 15.03%)', () => {
    // Our paytable pays 40:1 and 20:1 (docs/domain-rules.md §3.3); the published analysis used 50:1 and 25:1.
    // DISCREPANCY, reported: the Wizard of Odds newsletter (June 10, 2017) gives Player Fabulous 4
    // 12.09%, but its own Player table counts "Player wins with 4" 86,165,771,096,064 of
    // 4,998,398,275,503,360 (asserted exactly above), and 1 − 51 × that = 0.120831 → 12.08%. No rule
    // reading moves the figure by the 1.4e-6 of probability that would make 12.09%.
    const mbs = compilePaytable({
      ...FABULOUS4_STANDARD_V1,
      id: 'fabulous4-test-mbs',
      rows: { ...FABULOUS4_STANDARD_V1.rows, PLAYER_FABULOUS_4: { WIN_TOTAL_4: '50:1' }, BANKER_FABULOUS_4: { WIN_TOTAL_4: '25:1' } },
    });
    const s = computeParSheet(mbs, 8);
    expectRounded(bet(s, 'PLAYER_FABULOUS_4').houseEdge, 1 - (51 * 86165771096064) / 4998398275503360, 12);
    expectRounded(bet(s, 'PLAYER_FABULOUS_4').houseEdge, 0.1208, 4);
    expectRounded(bet(s, 'BANKER_FABULOUS_4').houseEdge, 0.1503, 4);
  });
});

describe('computeParSheet — published 6-deck figures', () => {
  const classic = sheet('classic-standard@1', 6);
  it('Banker 1.0558%, Player 1.2374%, Tie 14.4382%', () => {
    expectRounded(bet(classic, 'BANKER').houseEdge, 0.010558, 6);
    expectRounded(bet(classic, 'PLAYER').houseEdge, 0.012374, 6);
    expectRounded(bet(classic, 'TIE').houseEdge, 0.144382, 6);
  });
});

describe('computeParSheet — exact closed forms (exchangeability of an N-deck shoe)', () => {
  it.each([1, 2, 6, 8, 16])('%i deck(s): pair = (4N−1)/(52N−1); Fabulous Pair suited pair (N−1), pair 3N, suited 12N over 52N−1', (n) => {
    const d = 52 * n - 1;
    const classic = sheet('classic-standard@1', n);
    expect(bet(classic, 'PLAYER_PAIR').probabilityWin).toBeCloseTo((4 * n - 1) / d, 15);
    expect(bet(classic, 'BANKER_PAIR').probabilityWin).toBeCloseTo((4 * n - 1) / d, 15);
    const fab4 = sheet('fabulous4-standard@1', n);
    for (const code of FAB_PAIRS) {
      const rows = Object.fromEntries(bet(fab4, code).rows.map((r) => [r.row, r.probability]));
      expect(rows.SUITED_PAIR).toBeCloseTo((n - 1) / d, 15);
      expect(rows.PAIR).toBeCloseTo((3 * n) / d, 15);
      expect(rows.SUITED).toBeCloseTo((12 * n) / d, 15);
      expect(bet(fab4, code).expectedValue).toBeCloseTo((7 * (n - 1) + 4 * 3 * n + 12 * n - (d - (n - 1) - 3 * n - 12 * n)) / d, 15);
    }
  });
});

describe('computeParSheet — shape and internal consistency', () => {
  it.each(REFS.map((r) => [r]))('%s, 8 decks: rows add up, EV = Σ contributions, houseEdge = −EV', (ref) => {
    const s = sheet(ref, 8);
    expect(s.variant).toBe(pt(ref).variant);
    expect(s.decks).toBe(8);
    expect(s.paytableRef).toBe(ref);
    expect(s.bets.map((b) => b.bet)).toEqual(BET_CODES[s.variant]);
    for (const b of s.bets) {
      const sum = b.rows.reduce((a, r) => a + r.probability, 0);
      expect(sum).toBeCloseTo(1, 14);
      expect(b.probabilityWin + b.probabilityPush + b.probabilityLose).toBeCloseTo(1, 14);
      expect(b.rows.reduce((a, r) => a + r.contribution, 0)).toBeCloseTo(b.expectedValue, 14);
      expect(b.houseEdge).toBe(-b.expectedValue);
      expect(b.rows[b.rows.length - 1]).toMatchObject({ row: 'LOSE', payoff: 'lose' });
      for (const r of b.rows) {
        expect(r.contribution).toBeCloseTo(r.probability * rowNet(r.payoff), 15);
        if (r.row !== 'LOSE') expect(r.payoff).toBe(pt(ref).definition.rows[b.bet][r.row]);
      }
    }
  });

  it('rejects a deck count outside 1..16', () => {
    for (const d of [0, 17, 2.5, NaN]) {
      expect(() => computeParSheet(pt('classic-standard@1'), d)).toThrow(RulesError);
    }
  });

  // a deck count no other test computes (nothing cached); how fast is the bench's business, not a timed test
  it('computes an uncached 7-deck shoe whose rows add up', () => {
    const s = computeParSheet(pt('tiger-standard@1'), 7);
    expect(s.decks).toBe(7);
    expect(s.bets.map((b) => b.bet)).toEqual(BET_CODES[s.variant]);
    for (const b of s.bets) {
      expect(b.rows.reduce((a, r) => a + r.probability, 0)).toBeCloseTo(1, 14);
      expect(b.probabilityWin + b.probabilityPush + b.probabilityLose).toBeCloseTo(1, 14);
    }
  }, 120_000);
});

describe('computeParSheet — against an independent brute force written from the spec', () => {
  it.each([1, 2, 6, 8])('%i deck(s): every bet, every payoff, to 1e-12', (decks) => {
    const brute = bruteForce(decks);
    for (const ref of REFS) {
      const s = sheet(ref, decks);
      for (const b of s.bets) {
        const mine = new Map<number, number>();
        for (const r of b.rows) mine.set(rowNet(r.payoff), (mine.get(rowNet(r.payoff)) ?? 0) + r.probability);
        const theirs = brute.dist.get(`${ref}|${b.bet}`)!;
        for (const net of new Set([...mine.keys(), ...theirs.keys()])) {
          const diff = Math.abs((mine.get(net) ?? 0) - (theirs.get(net) ?? 0));
          if (diff > 1e-12) throw new Error(`${ref} ${b.bet} net ${net}: ${mine.get(net)} vs brute ${theirs.get(net)}`);
        }
        const ev = [...theirs].reduce((a, [net, p]) => a + net * p, 0);
        expect(Math.abs(b.expectedValue - ev)).toBeLessThan(1e-12);
      }
    }
  });

  it('the brute force’s hand-written rules agree with the engine deal by deal (20 000 dealt rounds)', () => {
    // seeded shuffles of an 8-deck shoe; every bet of every paytable, engine vs spec-by-hand
    let seed = 0x9e3779b9;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const shoe: Card[] = [];
    for (let d = 0; d < 8; d++) for (const r of RANKS) for (const s of SUITS) shoe.push(card(r, s));
    let rounds = 0;
    const seen = new Set<string>();
    while (rounds < 20_000) {
      for (let i = shoe.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [shoe[i], shoe[j]] = [shoe[j], shoe[i]];
      }
      for (let at = 0; at + 6 <= shoe.length && rounds < 20_000; rounds++) {
        const six = shoe.slice(at, at + 6);
        const seq = six.map((c) => RANKS.indexOf(c.rank));
        const n = specCardsTaken(seq);
        const outcome = dealRound(six);
        expect(outcome.cardsConsumed).toBe(n);
        const r = specRound(seq, n);
        for (const ref of REFS) {
          for (const code of BET_CODES[pt(ref).variant] as readonly BetCode[]) {
            const engine = Number(netPerUnit(payoffFor(pt(ref), code, outcome)));
            const spec = code === 'PLAYER_FABULOUS_PAIR' ? specFabNet(six[0], six[2]) : code === 'BANKER_FABULOUS_PAIR' ? specFabNet(six[1], six[3]) : specNet(ref, code, r);
            if (engine !== spec) throw new Error(`${ref} ${code} on ${six.map((c) => c.code).join(' ')}: engine ${engine}, spec ${spec}`);
            seen.add(`${code}:${spec}`);
          }
        }
        at += n;
      }
    }
    // the sample reached the rare rows too
    for (const k of ['TIGER_PAIR:100', 'TIGER_PAIR:20', 'BIG_TIGER:50', 'TIGER_TIE:35', 'PLAYER_FABULOUS_PAIR:7', 'BANKER_FABULOUS_4:20']) {
      expect(seen).toContain(k);
    }
  });
});
