import { parseCard } from '@ledger/rules';
import { CARD_PATTERN, ID_PATTERN, isCardText, isLedgerId } from './patterns';

describe('ID_PATTERN / isLedgerId', () => {
  it('accepts 1..64 characters of A-Z a-z 0-9 _ . : -', () => {
    for (const id of ['S1', 'R-0001', 'shoe.1:r_2', 'a'.repeat(64)]) expect(isLedgerId(id)).toBe(true);
    expect(ID_PATTERN.test('B-000001')).toBe(true);
  });

  it('refuses empty, too long, other characters and non-strings', () => {
    for (const id of ['', 'a'.repeat(65), 'a b', 'a/b', 'a@b', 'é', 'a\u0000', 42, null, undefined]) expect(isLedgerId(id)).toBe(false);
  });
});

describe('CARD_PATTERN / isCardText (docs/domain-rules.md §1)', () => {
  it('accepts rank then suit, 10 for the ten, any case; parseCard gives the canonical card', () => {
    for (const t of ['9S', 'TH', '10H', 'qd', 'Ac', 'KC']) {
      expect(isCardText(t)).toBe(true);
      expect(() => parseCard(t)).not.toThrow();
    }
    expect(parseCard('10h').code).toBe('TH');
  });

  it('refuses what parseCard refuses, and padded text (the edge takes no spaces)', () => {
    for (const t of ['', '1S', 'KX', '11H', 'K', 'KHH', ' 9S', '9S ', 42, null]) expect(isCardText(t)).toBe(false);
    expect(CARD_PATTERN.test('9s')).toBe(true);
  });
});
