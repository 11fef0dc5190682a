import {
  assertNextPosition,
  bankerDraws,
  Card,
  dealRound,
  defaultPaytable,
  evaluateRound,
  netPerUnit,
  nextPosition,
  parseCards,
  playerDraws,
  Position,
  resultRound,
  RulesError,
  tableauViolation,
  TableauViolationKind,
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

const codes = (cs: readonly Card[]) => cs.map((c) => c.code).join(' ');

/** A rank whose point value is `v` (0 → J, so as not to collide with the K and Q used elsewhere). */
const rankOf = (v: number) => (v === 0 ? 'J' : v === 1 ? 'A' : String(v));

/**
 * The Banker's table of docs/domain-rules.md §2 as written in the spec, row by row: for each two-card
 * Banker total, the values v of the Player's third card on which the Banker draws.
 */
const BANKER_DRAWS_ON: Record<number, readonly number[]> = {
  0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  1: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  2: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  3: [0, 1, 2, 3, 4, 5, 6, 7, 9],
  4: [2, 3, 4, 5, 6, 7],
  5: [4, 5, 6, 7],
  6: [6, 7],
  7: [],
};

describe('tableau (docs/domain-rules.md §2)', () => {
  describe("the Banker's table when the Player drew: every cell", () => {
    const cells: Array<[number, number, boolean]> = [];
    for (let bt = 0; bt <= 7; bt++) for (let v = 0; v <= 9; v++) cells.push([bt, v, BANKER_DRAWS_ON[bt].includes(v)]);

    it.each(cells)('Given a Banker two-card total of %i and a Player third card worth %i, When the round is dealt, Then the Banker draws: %s', (bt, v, draws) => {
      expect(bankerDraws(bt, v)).toBe(draws);
      // Player K+2 = 2 draws; Banker K + x = bt; the Player's third card is worth v; 9C 8C follow.
      const shoe = parseCards(`KS KD 2H ${rankOf(bt)}C ${rankOf(v)}S 9C 8C`);
      const o = dealRound(shoe);
      expect(o.player).toHaveLength(3);
      expect(o.banker.map((c) => c.code)).toEqual(draws ? [shoe[1].code, shoe[3].code, '9C'] : [shoe[1].code, shoe[3].code]);
      expect(o.cardsConsumed).toBe(draws ? 6 : 5);
    });
  });

  describe("the Banker's rule when the Player stood", () => {
    const cases: Array<[number, number, boolean]> = [];
    for (const pt of [6, 7]) for (let bt = 0; bt <= 7; bt++) cases.push([pt, bt, bt <= 5]);

    it.each(cases)('Given the Player stood on %i and the Banker has %i, When dealt, Then the Banker draws: %s', (pt, bt, draws) => {
      expect(bankerDraws(bt, null)).toBe(draws);
      const o = dealRound(parseCards(`KS KD ${pt}H ${rankOf(bt)}C 9C 8C`));
      expect(o.player).toHaveLength(2);
      expect(codes(o.banker)).toBe(draws ? `KD ${rankOf(bt)}C 9C` : `KD ${rankOf(bt)}C`);
      expect(o.cardsConsumed).toBe(draws ? 5 : 4);
    });
  });

  describe("the Player's rule", () => {
    it.each([
      [0, 'draws'],
      [1, 'draws'],
      [2, 'draws'],
      [3, 'draws'],
      [4, 'draws'],
      [5, 'draws'],
      [6, 'stands'],
      [7, 'stands'],
      [8, 'stands (natural)'],
      [9, 'stands (natural)'],
    ])('Given a Player two-card total of %i against a Banker 7, When dealt, Then the Player %s', (pt, what) => {
      // Banker K+7 = 7 stands whatever the Player does
      const o = dealRound(parseCards(`KS KD ${rankOf(pt)}H 7C 9C 8C`));
      const draws = what === 'draws';
      if (pt <= 7) expect(playerDraws(pt)).toBe(draws);
      expect(o.player).toHaveLength(draws ? 3 : 2);
      expect(o.banker).toHaveLength(2);
      expect(o.cardsConsumed).toBe(draws ? 5 : 4);
      expect(o.natural).toBe(pt >= 8);
    });
  });

  describe('naturals stop all drawing', () => {
    it.each([
      ['Player 8 against Banker 0', '4S KD 4H QC 2S 3S', 'PLAYER', true, false],
      ['Player 9 against Banker 3', '9S AD KH 2C 2S 3S', 'PLAYER', true, false],
      ['Banker 9 against Player 0', 'KS 4D QH 5C 2S 3S', 'BANKER', false, true],
      ['Banker 8 against Player 5', '2S 4D 3H 4C 2H 3H', 'BANKER', false, true],
      ['Player 8 against Banker 8', '4S 4D 4H 4C 2H 3H', 'TIE', true, true],
      ['Player 9 against Banker 8', '4S 4D 5H 4C 2H 3H', 'PLAYER', true, true],
    ] as const)('Given %s, When dealt, Then neither side draws and the round is resulted on 4 cards', (_n, cards, winner, pn, bn) => {
      const o = dealRound(parseCards(cards));
      expect(o.cardsConsumed).toBe(4);
      expect(o.player).toHaveLength(2);
      expect(o.banker).toHaveLength(2);
      expect(o.natural).toBe(true);
      expect(o.playerNatural).toBe(pn);
      expect(o.bankerNatural).toBe(bn);
      expect(o.winner).toBe(winner);
      expect(nextPosition(parseCards(cards).slice(0, 4))).toBeNull();
    });
  });

  describe("the issue's named cases (cards in shoe order)", () => {
    it('Given 2S KC 3H 6D AS 5C, When dealt, Then Player 2+3+A = 6, Banker K+6 = 6 stands on an ace, and it is a Tie 6–6', () => {
      const o = dealRound(parseCards('2S KC 3H 6D AS 5C'));
      expect(codes(o.player)).toBe('2S 3H AS');
      expect(codes(o.banker)).toBe('KC 6D');
      expect([o.playerTotal, o.bankerTotal, o.winner, o.cardsConsumed]).toEqual([6, 6, 'TIE', 5]);
    });

    it('Given 3S 2H 2D 2C KS 9H, When dealt, Then Player 5 draws K, Banker 4 stands on a 0, and the Player wins 5–4', () => {
      const o = dealRound(parseCards('3S 2H 2D 2C KS 9H'));
      expect(codes(o.player)).toBe('3S 2D KS');
      expect(codes(o.banker)).toBe('2H 2C');
      expect([o.playerTotal, o.bankerTotal, o.winner, o.cardsConsumed]).toEqual([5, 4, 'PLAYER', 5]);
      // the Banker's two 2s are a pair even though the round went on
      expect(o.bankerPair).toBe(true);
    });

    it('Given 2S 6H KD KC 6C 3D, When dealt, Then Player 2 draws 6 → 8, Banker 6 draws on a 6 → 9, and the Banker wins 9–8', () => {
      const o = dealRound(parseCards('2S 6H KD KC 6C 3D'));
      expect(codes(o.player)).toBe('2S KD 6C');
      expect(codes(o.banker)).toBe('6H KC 3D');
      expect([o.playerTotal, o.bankerTotal, o.winner, o.cardsConsumed]).toEqual([8, 9, 'BANKER', 6]);
      expect(o.natural).toBe(false);
    });

    it('Given 2S KC 2H 7D 5C on a classic table, When evaluated, Then the Player Pair wins 11:1 although the Player drew', () => {
      const { outcome, payoffs } = evaluateRound(defaultPaytable('classic'), parseCards('2S KC 2H 7D 5C'));
      expect(codes(outcome.player)).toBe('2S 2H 5C');
      expect(codes(outcome.banker)).toBe('KC 7D');
      expect([outcome.playerTotal, outcome.bankerTotal, outcome.winner]).toEqual([9, 7, 'PLAYER']);
      expect(outcome.playerPair).toBe(true);
      expect(netPerUnit(payoffs.get('PLAYER_PAIR')!)).toBe('11');
      expect(netPerUnit(payoffs.get('EITHER_PAIR')!)).toBe('5');
      expect(netPerUnit(payoffs.get('BANKER_PAIR')!)).toBe('-1');
    });
  });

  describe('dealing order', () => {
    it('Given nothing dealt, When asking what comes next step by step, Then it is P1 B1 P2 B2 then the third cards', () => {
      const shoe = parseCards('2S 6H KD KC 6C 3D');
      const seen = [0, 1, 2, 3, 4, 5, 6].map((n) => nextPosition(shoe.slice(0, n)));
      expect(seen).toEqual(['P1', 'B1', 'P2', 'B2', 'P3', 'B3', null]);
    });

    it('Given the Player stood and the Banker must draw, When asking after 4 cards, Then the next card is B3', () => {
      expect(nextPosition(parseCards('KS KD 6H 3C'))).toBe('B3');
    });
  });

  describe('tableauViolation: every kind', () => {
    const cases: Array<[string, string, Position, TableauViolationKind]> = [
      ['nothing dealt yet', '', 'B1', 'OUT_OF_ORDER'],
      ['only P1 dealt', '2S', 'P2', 'OUT_OF_ORDER'],
      ['four cards with the Player to draw', 'KS KD 2H 5C', 'P1', 'OUT_OF_ORDER'],
      ['Player drew and the Banker must draw', 'KS KD 2H 5C 5S', 'P3', 'OUT_OF_ORDER'],
      ['both stood on 7', 'KS KD 7H 7C', 'P1', 'ROUND_COMPLETE'],
      ['six cards dealt', '2S 6H KD KC 6C 3D', 'B3', 'ROUND_COMPLETE'],
      ['six cards dealt', '2S 6H KD KC 6C 3D', 'P3', 'ROUND_COMPLETE'],
      ['Player stood and the Banker already drew', 'KS KD 6H 3C 9C', 'B3', 'ROUND_COMPLETE'],
      ['Player stood and the Banker already drew', 'KS KD 6H 3C 9C', 'P3', 'ROUND_COMPLETE'],
      ['Player drew and the Banker stood on 7', 'KS KD 2H 7C 5S', 'P3', 'ROUND_COMPLETE'],
      ['a Player natural 8', '4S KD 4H QC', 'P3', 'NATURAL_NO_DRAW'],
      ['a Player natural 8', '4S KD 4H QC', 'B3', 'NATURAL_NO_DRAW'],
      ['a Banker natural 9', 'KS 4D QH 5C', 'P3', 'NATURAL_NO_DRAW'],
      ['a Banker natural 9', 'KS 4D QH 5C', 'B3', 'NATURAL_NO_DRAW'],
      ['a Player 6', 'KS KD 6H 3C', 'P3', 'PLAYER_MUST_STAND'],
      ['a Player 7', 'KS KD 7H 7C', 'P3', 'PLAYER_MUST_STAND'],
      ['a Player 5', 'KS KD 5H 3C', 'B3', 'PLAYER_MUST_DRAW'],
      ['a Player 0 against a Banker 0', 'KS KD QH QC', 'B3', 'PLAYER_MUST_DRAW'],
      ['Player stood on 6, Banker 6', 'KS KD 6H 6C', 'B3', 'BANKER_MUST_STAND'],
      ['Player stood on 7, Banker 7', 'KS KD 7H 7C', 'B3', 'BANKER_MUST_STAND'],
      ['Player drew an 8, Banker 3', 'KS KD 2H 3C 8S', 'B3', 'BANKER_MUST_STAND'],
      ['Player drew a 1, Banker 6', '2S KC 3H 6D AS', 'B3', 'BANKER_MUST_STAND'],
    ];

    it.each(cases)('Given %s (%s), When %s is dealt, Then the violation is %s', (_name, dealt, position, kind) => {
      const cards = parseCards(dealt);
      expect(tableauViolation(cards, position)).toBe(kind);
      const e = rulesErrorOf(() => assertNextPosition(cards, position));
      expect(e.code).toBe('TABLEAU.VIOLATION');
      expect(e.details).toMatchObject({ violation: kind, position, expected: nextPosition(cards) });
    });

    it('Given every kind, When the cases above are gathered, Then each TableauViolationKind is produced at least once', () => {
      const kinds = new Set(cases.map((c) => tableauViolation(parseCards(c[1]), c[2])));
      expect([...kinds].sort()).toEqual(['BANKER_MUST_STAND', 'NATURAL_NO_DRAW', 'OUT_OF_ORDER', 'PLAYER_MUST_DRAW', 'PLAYER_MUST_STAND', 'ROUND_COMPLETE'].sort());
    });

    it.each([
      ['', 'P1'],
      ['2S KC 3H 6D', 'P3'],
      ['KS KD 6H 3C', 'B3'],
      ['2S 6H KD KC 6C', 'B3'],
    ] as Array<[string, Position]>)('Given %j, When %s is dealt, Then there is no violation', (dealt, position) => {
      expect(tableauViolation(parseCards(dealt), position)).toBeNull();
      expect(() => assertNextPosition(parseCards(dealt), position)).not.toThrow();
    });
  });

  describe('resultRound and dealRound errors', () => {
    it('Given an incomplete round, When resulted, Then TABLEAU.INSUFFICIENT_CARDS', () => {
      expect(rulesErrorOf(() => resultRound(parseCards('2S KC 3H 6D'))).code).toBe('TABLEAU.INSUFFICIENT_CARDS');
    });

    it('Given a card more than the round takes, When resulted, Then TABLEAU.VIOLATION ROUND_COMPLETE', () => {
      const e = rulesErrorOf(() => resultRound(parseCards('2S KC 3H 6D AS 5C')));
      expect(e.code).toBe('TABLEAU.VIOLATION');
      expect(e.details.violation).toBe('ROUND_COMPLETE');
    });

    it('Given too few shoe cards, When dealt, Then TABLEAU.INSUFFICIENT_CARDS naming the position needed', () => {
      const e = rulesErrorOf(() => dealRound(parseCards('2S KC 3H 6D')));
      expect(e.code).toBe('TABLEAU.INSUFFICIENT_CARDS');
      expect(e.details).toMatchObject({ given: 4, position: 'P3' });
      expect(rulesErrorOf(() => dealRound([])).code).toBe('TABLEAU.INSUFFICIENT_CARDS');
    });

    it('Given exactly the cards of a complete round, When resulted, Then it equals dealing them from a longer shoe', () => {
      expect(resultRound(parseCards('2S 6H KD KC 6C 3D'))).toEqual(dealRound(parseCards('2S 6H KD KC 6C 3D 9S 9H')));
    });
  });
});
