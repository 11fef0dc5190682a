import { card } from '@ledger/rules';
import { dealShoe, fullShoe, rigBankerNatural, shuffledShoe } from './biased-shoe';
import { SeededRandom } from './seeded-random';

/** Biased shoes for the fairness monitor's proof (docs/fairness.md §5). */
describe('biased shoes', () => {
  it('Given no bias, When a shoe is shuffled, Then it is the full shoe in the order SeededRandom.shuffle gives (honest shoes deal as before)', () => {
    expect(shuffledShoe(8, new SeededRandom('s'))).toEqual(new SeededRandom('s').shuffle(fullShoe(8)));
  });

  it('Given the 9s missing, When a shoe is dealt, Then no 9 is dealt and the shoe holds 384 cards', () => {
    expect(shuffledShoe(8, new SeededRandom('s'), { missingRanks: ['9'] })).toHaveLength(384);
    const shoe = dealShoe(8, 'no-nines', { missingRanks: ['9'] });
    expect(shoe.rounds.length).toBeGreaterThan(50);
    expect(shoe.rounds.flatMap((o) => [...o.player, ...o.banker]).some((c) => c.rank === '9')).toBe(false);
  });

  it('Given a dealer who always finds a Banker natural, When a shoe is dealt, Then every rigged round is a Banker natural and the cards are the shoe’s own', () => {
    const shoe = dealShoe(8, 'rigged', { bankerNaturalChance: 1 });
    expect(shoe.rigged).toBe(shoe.rounds.length);
    expect(shoe.rounds.every((o) => o.bankerNatural)).toBe(true);
    const counts = new Map<string, number>();
    for (const c of shoe.rounds.flatMap((o) => [...o.player, ...o.banker])) counts.set(c.code, (counts.get(c.code) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(8);
  });

  it('Given no card further down makes a natural, When rigging, Then the round is left as it is', () => {
    const cards = [card('K', 'S'), card('K', 'H'), card('K', 'D'), card('K', 'C'), card('K', 'S'), card('Q', 'S')];
    expect(rigBankerNatural(cards, 0, new SeededRandom('x'), { bankerNaturalChance: 1 })).toBe(false);
    expect(cards.map((c) => c.code)).toEqual(['KS', 'KH', 'KD', 'KC', 'KS', 'QS']);
  });
});
