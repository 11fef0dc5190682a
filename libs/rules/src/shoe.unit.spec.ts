import { MAX_DECKS, newShoeCount, parseCard, parseCards, remainingByRank, remainingOf, remainingTotal, RulesError, takeCard, takeCards } from '@ledger/rules';

function rulesErrorOf(fn: () => unknown): RulesError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RulesError);
    return e as RulesError;
  }
  throw new Error('expected a RulesError, nothing was thrown');
}

describe('shoe accounting (docs/domain-rules.md §1)', () => {
  it('Given an 8-deck shoe, When eight KH have left it, Then the ninth KH is refused with SHOE.CARD_EXCEEDS_DECKS', () => {
    const kh = parseCard('KH');
    let shoe = newShoeCount(8);
    for (let i = 0; i < 8; i++) shoe = takeCard(shoe, kh);
    expect(remainingOf(shoe, kh)).toBe(0);
    const e = rulesErrorOf(() => takeCard(shoe, kh));
    expect(e.code).toBe('SHOE.CARD_EXCEEDS_DECKS');
    expect(e.details).toMatchObject({ card: 'KH', decks: 8, alreadyUsed: 8 });
  });

  it('Given an 8-deck shoe with eight KH gone, When a KS or KD is taken, Then it is accepted (copies count per rank+suit)', () => {
    const shoe = takeCards(newShoeCount(8), Array(8).fill(parseCard('KH')));
    expect(() => takeCard(shoe, parseCard('KS'))).not.toThrow();
    expect(() => takeCard(shoe, parseCard('KD'))).not.toThrow();
  });

  it('Given a 6-deck shoe, When a seventh AS is taken, Then it is refused', () => {
    const shoe = takeCards(newShoeCount(6), Array(6).fill(parseCard('AS')));
    expect(rulesErrorOf(() => takeCard(shoe, parseCard('AS'))).code).toBe('SHOE.CARD_EXCEEDS_DECKS');
  });

  it('Given a fresh 8-deck shoe, When cards are taken, Then totals and per-rank counts follow and the input is not mutated', () => {
    const fresh = newShoeCount(8);
    expect(remainingTotal(fresh)).toBe(416);
    const after = takeCards(fresh, parseCards('AS AH KD 10C'));
    expect(remainingTotal(after)).toBe(412);
    expect(after.usedTotal).toBe(4);
    expect(remainingByRank(after)).toMatchObject({ A: 30, K: 31, T: 31, Q: 32 });
    expect(remainingTotal(fresh)).toBe(416);
    expect(fresh.used).toEqual({});
  });

  it.each([0, -1, 1.5, MAX_DECKS + 1, NaN])('Given %p decks, When a shoe is created, Then SHOE.INVALID_DECK_COUNT', (decks) => {
    expect(rulesErrorOf(() => newShoeCount(decks)).code).toBe('SHOE.INVALID_DECK_COUNT');
  });

  it.each([1, 6, 8, MAX_DECKS])('Given %i decks, When a shoe is created, Then it holds 52 × decks cards', (decks) => {
    expect(remainingTotal(newShoeCount(decks))).toBe(52 * decks);
  });
});
