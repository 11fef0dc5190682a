import { card, commencementBurnCount, handTotal, isPair, parseCard, parseCards, pointValue, Rank, RANKS, RulesError, SUITS } from '@ledger/rules';

/** Runs `fn` and returns the RulesError it throws (fails the test when it does not throw one). */
function rulesErrorOf(fn: () => unknown): RulesError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RulesError);
    return e as RulesError;
  }
  throw new Error('expected a RulesError, nothing was thrown');
}

describe('cards (docs/domain-rules.md §1)', () => {
  describe('notation', () => {
    it.each(RANKS.flatMap((r) => SUITS.map((s) => `${r}${s}`)))('Given the canonical code %s, When parsed, Then the card has that code', (code) => {
      const c = parseCard(code);
      expect(c.code).toBe(code);
      expect(`${c.rank}${c.suit}`).toBe(code);
    });

    it.each([
      ['10H', 'TH'],
      ['10s', 'TS'],
      ['th', 'TH'],
      ['qd', 'QD'],
      [' 9S ', '9S'],
      ['ac', 'AC'],
    ])('Given %j, When parsed, Then it is normalised to %s', (text, code) => {
      expect(parseCard(text).code).toBe(code);
    });

    it('Given 10H and TH, When parsed, Then both give the very same frozen card', () => {
      const a = parseCard('10H');
      expect(a).toBe(parseCard('TH'));
      expect(a).toBe(card('T', 'H'));
      expect(Object.isFrozen(a)).toBe(true);
    });

    it.each<[string, unknown]>([
      ['1S (no rank 1)', '1S'],
      ['ZZ', 'ZZ'],
      ['KX (no suit X)', 'KX'],
      ['the empty string', ''],
      ['null', null],
      ['the number 5', 5],
      ['undefined', undefined],
      ['a rank alone', 'K'],
      ['10 without a suit', '10'],
      ['an extra character', '10HH'],
      ['11S', '11S'],
      ['an object', { rank: 'K', suit: 'S' }],
    ])('Given %s, When parsed, Then CARD.MALFORMED is thrown', (_name, input) => {
      const e = rulesErrorOf(() => parseCard(input));
      expect(e.code).toBe('CARD.MALFORMED');
      expect(e.details.card).toEqual(input);
    });

    it('Given a space- and comma-separated list, When parsed, Then every card is returned in order', () => {
      expect(parseCards('2S KC, 10H  ac').map((c) => c.code)).toEqual(['2S', 'KC', 'TH', 'AC']);
    });

    it('Given a list with one malformed card, When parsed, Then CARD.MALFORMED is thrown', () => {
      expect(rulesErrorOf(() => parseCards('2S 1S')).code).toBe('CARD.MALFORMED');
    });
  });

  describe('point values', () => {
    const expected: Record<Rank, number> = { A: 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7, '8': 8, '9': 9, T: 0, J: 0, Q: 0, K: 0 };
    it.each(RANKS.map((r) => [r, expected[r]] as const))('Given rank %s, When valued in a hand, Then it counts %i', (rank, value) => {
      expect(pointValue(rank)).toBe(value);
    });
  });

  describe('commencement burn counts (§5.1)', () => {
    const expected: Record<Rank, number> = { A: 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7, '8': 8, '9': 9, T: 10, J: 10, Q: 10, K: 10 };
    it.each(RANKS.map((r) => [r, expected[r]] as const))('Given the commencement card is rank %s, When burning, Then %i cards are burned', (rank, n) => {
      expect(commencementBurnCount(rank)).toBe(n);
    });

    it.each(['T', 'J', 'Q', 'K'] as Rank[])('Given a %s, When burning vs valuing, Then it burns 10 although it is worth 0 in a hand', (rank) => {
      expect(commencementBurnCount(rank)).toBe(10);
      expect(pointValue(rank)).toBe(0);
    });
  });

  describe('hand totals modulo 10', () => {
    it.each([
      ['', 0],
      ['AS', 1],
      ['9S 9H', 8],
      ['9S 9H 9D', 7],
      ['KS QH', 0],
      ['5S 5H', 0],
      ['7S 8H', 5],
      ['4S 5H', 9],
      ['10H 9S', 9],
      ['6S 7H 8D', 1],
      ['AS 9H KD', 0],
    ])('Given the cards %j, When totalled, Then the total is %i', (cards, total) => {
      expect(handTotal(parseCards(cards))).toBe(total);
    });
  });

  describe('pairs', () => {
    it.each([
      ['9C 9H', true],
      ['9S 9S', true],
      ['TS KS', false],
      ['TH 10D', true],
      ['2S 3S', false],
      ['2S 3H 2D', false],
      ['AS', false],
    ])('Given the cards %j, When asked for a pair of the first two, Then it is %s', (cards, pair) => {
      expect(isPair(parseCards(cards))).toBe(pair);
    });
  });
});
