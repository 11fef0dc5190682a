import { handLabel, parseCard } from '../../apps/console/src/lib/cards';

describe('card codes (apps/console/src/lib/cards.ts)', () => {
  it('parses rank and suit with a colour and an accessible name', () => {
    expect(parseCard('9S')).toEqual({ code: '9S', rank: '9', suit: 'S', symbol: '♠', red: false, label: '9 of spades' });
    expect(parseCard('TH')).toMatchObject({ rank: '10', symbol: '♥', red: true, label: '10 of hearts' });
    expect(parseCard('ad')).toMatchObject({ code: 'AD', rank: 'A', red: true, label: 'ace of diamonds' });
    expect(parseCard('KC')).toMatchObject({ label: 'king of clubs', red: false });
    expect(parseCard('QH')?.label).toBe('queen of hearts');
    expect(parseCard('JD')?.label).toBe('jack of diamonds');
  });
  it('returns null for what is not a card', () => {
    for (const bad of ['', 'X', '1S', 'TX', '11H', 'S']) expect(parseCard(bad)).toBeNull();
  });
  it('labels a hand', () => {
    expect(handLabel(['9S', 'KH', '??'])).toBe('9 of spades, king of hearts, ??');
  });
});
