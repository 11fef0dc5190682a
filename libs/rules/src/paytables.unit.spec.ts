import {
  BET_CODES,
  BetCode,
  BUILT_IN_PAYTABLES,
  builtInPaytable,
  CLASSIC_STANDARD_V1,
  compilePaytable,
  defaultPaytable,
  evaluateRound,
  FABULOUS4_STANDARD_V1,
  isBetOffered,
  netPerUnit,
  parseCards,
  payoffFor,
  Paytable,
  PaytableDefinition,
  RoundOutcome,
  RulesError,
  settle,
  TIGER_STANDARD_V1,
  Variant,
} from '@ledger/rules';

function rulesErrorOf(fn: () => unknown): RulesError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RulesError);
    return e as RulesError;
  }
  throw new Error('expected a RulesError, nothing was thrown');
}

/** Deals `cards` (shoe order) and returns the outcome and every bet's net per unit. */
function play(paytable: Paytable, cards: string): { outcome: RoundOutcome; net: Record<string, string> } {
  const { outcome, payoffs } = evaluateRound(paytable, parseCards(cards));
  const net: Record<string, string> = {};
  for (const [bet, p] of payoffs) net[bet] = netPerUnit(p);
  return { outcome, net };
}

/** A row of a paytable table in the spec, with a concrete round that lands on it. */
interface RowCase {
  /** The wager and the spec row's "wins when" text. */
  readonly row: string;
  readonly cards: string;
  /** Facts of the outcome that put the round in this row. */
  readonly outcome: Partial<Pick<RoundOutcome, 'winner' | 'playerTotal' | 'bankerTotal' | 'playerPair' | 'bankerPair'>> & {
    readonly bankerCards?: number;
  };
  /** Expected net per unit for the bet(s) this row is about (others are checked elsewhere). */
  readonly net: Partial<Record<BetCode, string>>;
}

function checkRow(paytable: Paytable, c: RowCase): void {
  const { outcome, net } = play(paytable, c.cards);
  const { bankerCards, ...facts } = c.outcome;
  expect(outcome).toMatchObject(facts);
  if (bankerCards !== undefined) expect(outcome.banker).toHaveLength(bankerCards);
  expect(net).toMatchObject(c.net);
  // every bet code of the variant gets a result, in BET_CODES order
  expect(Object.keys(net)).toEqual([...BET_CODES[paytable.variant]]);
}

// Rounds used below (shoe order P1 B1 P2 B2 [P3] [B3]):
const PLAYER_9_VS_5 = '9S 2H KD 3C'; // Player natural 9, Banker 5
const BANKER_9_VS_5 = '2H 9S 3C KD'; // Banker natural 9, Player 5
const TIE_9_9 = '9S 9H KD KC'; // naturals, tie 9–9, no pairs
const PLAYER_PAIR_ONLY = '4S 2H 4D 7C'; // Player 4♠4♦ = 8, Banker 2+7 = 9
const BANKER_PAIR_ONLY = '2H 4S 7C 4D'; // Player 9, Banker 4♠4♦ = 8
const BOTH_PAIRS_DIFFERENT = '4S 2H 4D 2C'; // Player 4-4 = 8, Banker 2-2 = 4
const BANKER_6_TWO_CARDS = 'KS 4H 2D 2C AS 9C'; // Player 2 draws A → 3; Banker 4+2 = 6 stands on a 1
const BANKER_6_THREE_CARDS = 'KS 2H JD AC 5H 3D'; // Player 0 draws 5; Banker 3 draws 3 → 6, wins 6–5
const TIE_6_6 = 'KS KH 6D 6C'; // both stand on 6

describe('paytables (docs/domain-rules.md §3)', () => {
  describe('§3.1 Classic with Lucky Pairs (classic-standard@1)', () => {
    const classic = defaultPaytable('classic');
    const rows: RowCase[] = [
      { row: 'Player: Player wins, 1:1', cards: PLAYER_9_VS_5, outcome: { winner: 'PLAYER' }, net: { PLAYER: '1', BANKER: '-1', TIE: '-1' } },
      { row: 'Banker: Banker wins, 0.95:1', cards: BANKER_9_VS_5, outcome: { winner: 'BANKER' }, net: { BANKER: '0.95', PLAYER: '-1', TIE: '-1' } },
      { row: 'Tie: Tie, 8:1 (Player and Banker push)', cards: TIE_9_9, outcome: { winner: 'TIE' }, net: { TIE: '8', PLAYER: '0', BANKER: '0' } },
      { row: 'Player Pair: first two Player cards same rank, 11:1', cards: PLAYER_PAIR_ONLY, outcome: { playerPair: true, bankerPair: false }, net: { PLAYER_PAIR: '11', BANKER_PAIR: '-1' } },
      { row: 'Banker Pair: first two Banker cards same rank, 11:1', cards: BANKER_PAIR_ONLY, outcome: { playerPair: false, bankerPair: true }, net: { BANKER_PAIR: '11', PLAYER_PAIR: '-1' } },
      { row: 'Either Pair: the Player is a pair, 5:1', cards: PLAYER_PAIR_ONLY, outcome: { playerPair: true }, net: { EITHER_PAIR: '5' } },
      { row: 'Either Pair: the Banker is a pair, 5:1', cards: BANKER_PAIR_ONLY, outcome: { bankerPair: true }, net: { EITHER_PAIR: '5' } },
      { row: 'Either Pair: both are pairs, pays once 5:1', cards: BOTH_PAIRS_DIFFERENT, outcome: { playerPair: true, bankerPair: true }, net: { EITHER_PAIR: '5', PLAYER_PAIR: '11', BANKER_PAIR: '11' } },
      { row: 'pairs: no pair, all pair wagers lose', cards: TIE_9_9, outcome: { playerPair: false, bankerPair: false }, net: { PLAYER_PAIR: '-1', BANKER_PAIR: '-1', EITHER_PAIR: '-1' } },
    ];
    it.each(rows.map((r) => [r.row, r.cards, r] as const))('Given the row "%s", When %s is dealt, Then the bets net as in the table', (_row, _cards, c) => {
      checkRow(classic, c);
    });

    it('Given both hands are pairs, When 100 minor units on Either Pair are settled, Then it wins 500 once, not twice', () => {
      const { payoffs } = evaluateRound(classic, parseCards(BOTH_PAIRS_DIFFERENT));
      const s = settle(100n, payoffs.get('EITHER_PAIR')!);
      expect([s.result, s.winnings, s.payout]).toEqual(['WIN', 500n, 600n]);
    });

    it('Given the no-commission option (classic-no-commission@1), When the Banker wins on 6 or on another total, Then it pays 1:2 or 1:1', () => {
      const nc = builtInPaytable('classic-no-commission@1');
      expect(play(nc, BANKER_6_TWO_CARDS).net.BANKER).toBe('0.5');
      expect(play(nc, BANKER_9_VS_5).net.BANKER).toBe('1');
      expect(play(nc, TIE_6_6).net.BANKER).toBe('0');
    });
  });

  describe('§3.2 Tiger Baccarat (tiger-standard@1)', () => {
    const tiger = defaultPaytable('tiger');
    const rows: RowCase[] = [
      { row: 'Banker: Banker wins with total 6, 0.5:1', cards: BANKER_6_TWO_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6 }, net: { BANKER: '0.5', PLAYER: '-1' } },
      { row: 'Banker: Banker wins with a three-card 6, 0.5:1', cards: BANKER_6_THREE_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6, bankerCards: 3 }, net: { BANKER: '0.5' } },
      { row: 'Banker: Banker wins with any other total, 1:1', cards: BANKER_9_VS_5, outcome: { winner: 'BANKER', bankerTotal: 9 }, net: { BANKER: '1' } },
      { row: 'Player: Player wins, 1:1', cards: PLAYER_9_VS_5, outcome: { winner: 'PLAYER' }, net: { PLAYER: '1', BANKER: '-1' } },
      { row: 'Tie: Tie, 8:1', cards: TIE_9_9, outcome: { winner: 'TIE', playerTotal: 9 }, net: { TIE: '8', TIGER_TIE: '-1', PLAYER: '0', BANKER: '0' } },
      { row: 'Tiger Tie: Tie with both totals 6, 35:1', cards: TIE_6_6, outcome: { winner: 'TIE', playerTotal: 6, bankerTotal: 6 }, net: { TIGER_TIE: '35', TIE: '8', PLAYER: '0', BANKER: '0', TIGER: '-1', SMALL_TIGER: '-1' } },
      { row: 'Tiger Pair: exactly one hand is a pair, 4:1', cards: PLAYER_PAIR_ONLY, outcome: { playerPair: true, bankerPair: false }, net: { TIGER_PAIR: '4' } },
      { row: 'Tiger Pair: exactly one hand (the Banker) is a pair, 4:1', cards: BANKER_PAIR_ONLY, outcome: { playerPair: false, bankerPair: true }, net: { TIGER_PAIR: '4' } },
      { row: 'Tiger Pair: both pairs, different ranks, 20:1', cards: BOTH_PAIRS_DIFFERENT, outcome: { playerPair: true, bankerPair: true }, net: { TIGER_PAIR: '20' } },
      { row: 'Tiger Pair: both pairs of the same rank, 100:1', cards: '9C 9D 9H 9S', outcome: { playerPair: true, bankerPair: true, winner: 'TIE' }, net: { TIGER_PAIR: '100' } },
      { row: 'Tiger Pair: no pair loses', cards: TIE_9_9, outcome: { playerPair: false, bankerPair: false }, net: { TIGER_PAIR: '-1' } },
      { row: 'Tiger: Banker wins with 6 on two cards, 12:1', cards: BANKER_6_TWO_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6, bankerCards: 2 }, net: { TIGER: '12' } },
      { row: 'Tiger: Banker wins with 6 on three cards, 18:1', cards: BANKER_6_THREE_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6, bankerCards: 3 }, net: { TIGER: '18' } },
      { row: 'Big Tiger: Banker wins with 6 on three cards, 50:1', cards: BANKER_6_THREE_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6, bankerCards: 3 }, net: { BIG_TIGER: '50', SMALL_TIGER: '-1' } },
      { row: 'Small Tiger: Banker wins with 6 on two cards, 22:1', cards: BANKER_6_TWO_CARDS, outcome: { winner: 'BANKER', bankerTotal: 6, bankerCards: 2 }, net: { SMALL_TIGER: '22', BIG_TIGER: '-1' } },
      { row: 'Tiger bets: a Banker win on another total loses', cards: BANKER_9_VS_5, outcome: { winner: 'BANKER', bankerTotal: 9 }, net: { TIGER: '-1', BIG_TIGER: '-1', SMALL_TIGER: '-1' } },
    ];
    it.each(rows.map((r) => [r.row, r.cards, r] as const))('Given the row "%s", When %s is dealt, Then the bets net as in the table', (_row, _cards, c) => {
      checkRow(tiger, c);
    });

    it('Given 9♣9♥ against 9♦9♠ (same rank, suits ignored), When settled, Then Tiger Pair pays 100:1', () => {
      const { outcome, net } = play(tiger, '9C 9D 9H 9S');
      expect(outcome.player.map((c) => c.code)).toEqual(['9C', '9H']);
      expect(outcome.banker.map((c) => c.code)).toEqual(['9D', '9S']);
      expect(net.TIGER_PAIR).toBe('100');
      expect(settle(10n, payoffFor(tiger, 'TIGER_PAIR', outcome)).payout).toBe(1010n);
    });

    it('Given the Banker wins with 6 on three cards (Big Tiger resolved per the Thai sheet), When settled, Then Big Tiger pays 50:1', () => {
      const { outcome, net } = play(tiger, BANKER_6_THREE_CARDS);
      expect(outcome.banker.map((c) => c.code)).toEqual(['2H', 'AC', '3D']);
      expect(net.BIG_TIGER).toBe('50');
      // Big Tiger is not the Tiger Tie: a 6–6 tie does not win it
      expect(play(tiger, TIE_6_6).net.BIG_TIGER).toBe('-1');
    });
  });

  describe('§3.3 Fabulous 4 (fabulous4-standard@1)', () => {
    const f4 = defaultPaytable('fabulous4');
    const rows: RowCase[] = [
      { row: 'Banker: Banker wins with total 4, push', cards: 'KS AH 2D 3C KH 9C', outcome: { winner: 'BANKER', bankerTotal: 4, playerTotal: 2 }, net: { BANKER: '0', PLAYER: '-1' } },
      { row: 'Banker: Banker wins with total 1, 2:1', cards: 'KS AH QD KC KH KD', outcome: { winner: 'BANKER', bankerTotal: 1, playerTotal: 0 }, net: { BANKER: '2' } },
      { row: 'Banker: Banker wins with any other total, 1:1', cards: BANKER_9_VS_5, outcome: { winner: 'BANKER', bankerTotal: 9 }, net: { BANKER: '1' } },
      { row: 'Player: Player wins with total 4, 1:2', cards: 'AS KC 3D QH KH 3H', outcome: { winner: 'PLAYER', playerTotal: 4, bankerTotal: 3 }, net: { PLAYER: '0.5', BANKER: '-1' } },
      { row: 'Player: Player wins with total 1, 2:1', cards: 'AS QC KD JH KH TS', outcome: { winner: 'PLAYER', playerTotal: 1, bankerTotal: 0 }, net: { PLAYER: '2' } },
      { row: 'Player: Player wins with any other total, 1:1', cards: PLAYER_9_VS_5, outcome: { winner: 'PLAYER', playerTotal: 9 }, net: { PLAYER: '1' } },
      { row: 'Tie: Tie, 8:1', cards: TIE_9_9, outcome: { winner: 'TIE' }, net: { TIE: '8', PLAYER: '0', BANKER: '0' } },
      { row: 'Player Fabulous Pair: same suit, not a pair, 1:1', cards: '2S 3H 7S 4D', outcome: { playerPair: false }, net: { PLAYER_FABULOUS_PAIR: '1', BANKER_FABULOUS_PAIR: '-1' } },
      { row: 'Player Fabulous Pair: same rank, different suits, 4:1', cards: PLAYER_PAIR_ONLY, outcome: { playerPair: true }, net: { PLAYER_FABULOUS_PAIR: '4', BANKER_FABULOUS_PAIR: '-1' } },
      { row: 'Player Fabulous Pair: same rank and suit, 7:1', cards: '4S 2H 4S 7C', outcome: { playerPair: true }, net: { PLAYER_FABULOUS_PAIR: '7' } },
      { row: 'Banker Fabulous Pair: same suit, not a pair, 1:1', cards: '3H 2S 4D 7S', outcome: { bankerPair: false }, net: { BANKER_FABULOUS_PAIR: '1', PLAYER_FABULOUS_PAIR: '-1' } },
      { row: 'Banker Fabulous Pair: same rank, different suits, 4:1', cards: BANKER_PAIR_ONLY, outcome: { bankerPair: true }, net: { BANKER_FABULOUS_PAIR: '4' } },
      { row: 'Banker Fabulous Pair: same rank and suit, 7:1', cards: '2H 4S 7C 4S', outcome: { bankerPair: true }, net: { BANKER_FABULOUS_PAIR: '7' } },
      { row: 'Fabulous Pair: neither suited nor a pair loses', cards: TIE_9_9, outcome: {}, net: { PLAYER_FABULOUS_PAIR: '-1', BANKER_FABULOUS_PAIR: '-1' } },
      { row: 'Banker Fabulous 4: Banker wins with total 4, 20:1', cards: 'KS AH 2D 3C KH 9C', outcome: { winner: 'BANKER', bankerTotal: 4 }, net: { BANKER_FABULOUS_4: '20', PLAYER_FABULOUS_4: '-1' } },
      { row: 'Player Fabulous 4: Player wins with total 4, 40:1', cards: 'AS KC 3D QH KH 3H', outcome: { winner: 'PLAYER', playerTotal: 4 }, net: { PLAYER_FABULOUS_4: '40', BANKER_FABULOUS_4: '-1' } },
      { row: 'Fabulous 4: a 4–4 tie wins neither', cards: 'KS KH AD 4C 3S TH', outcome: { winner: 'TIE', playerTotal: 4, bankerTotal: 4 }, net: { PLAYER_FABULOUS_4: '-1', BANKER_FABULOUS_4: '-1', PLAYER: '0', BANKER: '0' } },
    ];
    it.each(rows.map((r) => [r.row, r.cards, r] as const))('Given the row "%s", When %s is dealt, Then the bets net as in the table', (_row, _cards, c) => {
      checkRow(f4, c);
    });

    it('Given a Player who drew after a suited pair, When settled, Then the Fabulous Pair still looks only at the first two cards', () => {
      // Player 2♠2♠ = 4 draws 5; Banker K+7 = 7 stands on a 5
      const { outcome, net } = play(f4, '2S KC 2S 7D 5C');
      expect(outcome.player).toHaveLength(3);
      expect(net.PLAYER_FABULOUS_PAIR).toBe('7');
    });
  });

  describe('side-bet windows (§3.2, §3.3)', () => {
    const cases: Array<[Variant, BetCode]> = [
      ['tiger', 'TIGER_PAIR'],
      ['tiger', 'TIGER'],
      ['tiger', 'BIG_TIGER'],
      ['tiger', 'SMALL_TIGER'],
      ['fabulous4', 'PLAYER_FABULOUS_PAIR'],
      ['fabulous4', 'BANKER_FABULOUS_PAIR'],
    ];
    it.each(cases)('Given a non-virtual %s table, When %s is asked on hands 1, 60 and 61, Then it is offered on 1 and 60 only', (variant, bet) => {
      const p = defaultPaytable(variant);
      expect(isBetOffered(p, bet, 1, false)).toBe(true);
      expect(isBetOffered(p, bet, 60, false)).toBe(true);
      expect(isBetOffered(p, bet, 61, false)).toBe(false);
    });

    it.each(cases)('Given a virtual %s table, When %s is asked on hands 61 and 500, Then it is offered', (variant, bet) => {
      const p = defaultPaytable(variant);
      expect(isBetOffered(p, bet, 61, true)).toBe(true);
      expect(isBetOffered(p, bet, 500, true)).toBe(true);
    });

    it.each<[Variant, BetCode]>([
      ['tiger', 'PLAYER'],
      ['tiger', 'BANKER'],
      ['tiger', 'TIE'],
      ['tiger', 'TIGER_TIE'],
      ['fabulous4', 'PLAYER_FABULOUS_4'],
      ['fabulous4', 'BANKER_FABULOUS_4'],
      ['fabulous4', 'BANKER'],
      ['classic', 'PLAYER_PAIR'],
      ['classic', 'EITHER_PAIR'],
    ])('Given a non-virtual %s table, When %s (no window) is asked on hand 61, Then it is offered', (variant, bet) => {
      expect(isBetOffered(defaultPaytable(variant), bet, 61, false)).toBe(true);
    });

    it('Given a classic paytable, When a Tiger bet is asked, Then it is not offered (not in the paytable)', () => {
      expect(isBetOffered(defaultPaytable('classic'), 'TIGER_PAIR', 1, false)).toBe(false);
    });
  });

  describe('paytables are versioned data', () => {
    it.each(BUILT_IN_PAYTABLES.map((d) => [`${d.id}@${d.version}`, d] as const))('Given the built-in %s, When compiled, Then it compiles with every bet of its variant', (ref, def) => {
      const p = compilePaytable(def);
      expect(p.ref).toBe(ref);
      expect([...p.payoffs.keys()]).toEqual([...BET_CODES[def.variant]]);
      expect(builtInPaytable(ref)).toBe(builtInPaytable(ref));
    });

    it('Given a bare id, When looked up, Then its latest version is returned', () => {
      expect(builtInPaytable('tiger-standard').ref).toBe('tiger-standard@1');
    });

    it.each(['nope@1', 'classic-standard@2', 'classic-standard@', ''])('Given the unknown ref %j, When looked up, Then PAYTABLE.UNKNOWN', (ref) => {
      expect(rulesErrorOf(() => builtInPaytable(ref)).code).toBe('PAYTABLE.UNKNOWN');
    });

    it('Given an operator version 2 with Banker at 0.9:1, When a Banker win is evaluated, Then it nets 0.9 and records the new ref', () => {
      const v2 = compilePaytable({ ...CLASSIC_STANDARD_V1, version: 2, rows: { ...CLASSIC_STANDARD_V1.rows, BANKER: { WIN: '0.9:1', TIE: 'push' } } });
      expect(v2.ref).toBe('classic-standard@2');
      expect(play(v2, BANKER_9_VS_5).net.BANKER).toBe('0.9');
    });

    it('Given a paytable without a bet, When that bet is paid, Then BET.UNKNOWN_CODE', () => {
      const classic = defaultPaytable('classic');
      const { outcome } = play(classic, TIE_9_9);
      expect(rulesErrorOf(() => payoffFor(classic, 'TIGER_PAIR', outcome)).code).toBe('BET.UNKNOWN_CODE');
    });

    const bad: Array<[string, PaytableDefinition]> = [
      ['an unknown bet (TIGER_PAIR on a classic table)', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIGER_PAIR: { ONE_PAIR: '4:1' } } }],
      ['an unknown bet code', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, LUCKY_SIX: { WIN: '12:1' } } }],
      ['an unknown row (PLAYER.WIN_TOTAL_9)', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, PLAYER: { WIN_TOTAL_9: '1:1', WIN: '1:1' } } }],
      ['a row of another bet (TIE.TWIN_PAIRS)', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { TWIN_PAIRS: '8:1' } } }],
      ['bad odds "abc"', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { WIN: 'abc' } } }],
      ['bad odds "8" (no ratio)', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { WIN: '8' } } }],
      ['bad odds "1:0"', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { WIN: '1:0' } } }],
      ['bad odds "-1:1"', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { WIN: '-1:1' } } }],
      ['bad odds "8:1:1"', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: { WIN: '8:1:1' } } }],
      ['a bet with no rows', { ...CLASSIC_STANDARD_V1, rows: { ...CLASSIC_STANDARD_V1.rows, TIE: {} } }],
      ['a missing bet', { ...TIGER_STANDARD_V1, rows: (({ BIG_TIGER: _omit, ...rest }) => rest)(TIGER_STANDARD_V1.rows) }],
      ['version 0', { ...CLASSIC_STANDARD_V1, version: 0 }],
      ['a fractional version', { ...CLASSIC_STANDARD_V1, version: 1.5 }],
      ['an empty id', { ...CLASSIC_STANDARD_V1, id: '' }],
      ['an unknown variant', { ...CLASSIC_STANDARD_V1, variant: 'poker' as Variant }],
      ['a window of 0 hands', { ...FABULOUS4_STANDARD_V1, windows: [{ bets: ['PLAYER_FABULOUS_PAIR'], firstHands: 0, virtualExempt: true }] }],
      ['a window naming a bet of another variant', { ...FABULOUS4_STANDARD_V1, windows: [{ bets: ['TIGER_PAIR'], firstHands: 60, virtualExempt: true }] }],
    ];
    it.each(bad)('Given a definition with %s, When compiled, Then PAYTABLE.INVALID', (_name, def) => {
      const e = rulesErrorOf(() => compilePaytable(def));
      expect(e.code).toBe('PAYTABLE.INVALID');
      expect(e.message).toContain(`${def.id}@${def.version}`);
    });
  });
});
