import { dealtCards } from './dealt-cards';

// (was in static/static.unit.spec.ts: a read's helper, tested beside it)
describe('dealtCards', () => {
  it('places each card on the tableau position it was dealt to', () => {
    // player 2+3 = 5 draws (P3 = 4 → 9); banker 7+K = 7 stands on a 4: no B3
    expect(dealtCards(['2S', '7H', '3D', 'KC', '4S']).map((c) => c.position)).toEqual(['P1', 'B1', 'P2', 'B2', 'P3']);
    // player 9+K = 9: a natural, nobody draws
    expect(dealtCards(['9S', '2H', 'KD', '3C']).map((c) => c.position)).toEqual(['P1', 'B1', 'P2', 'B2']);
    // player 6+K = 6 stands; banker 2+T = 2 draws: the fifth card is B3
    expect(dealtCards(['6S', '2H', 'KD', 'TC', '5S']).map((c) => c.position)).toEqual(['P1', 'B1', 'P2', 'B2', 'B3']);
    expect(dealtCards(null)).toEqual([]);
  });
});
