import { assertValidStake, formatMinor, formatRatio, MAX_STAKE_MINOR, parseDecimal, parseOdds, ratio, RulesError } from '@ledger/rules';

function rulesErrorOf(fn: () => unknown): RulesError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RulesError);
    return e as RulesError;
  }
  throw new Error('expected a RulesError, nothing was thrown');
}

describe('money (docs/domain-rules.md §4)', () => {
  describe('parseOdds', () => {
    it.each([
      ['0.95:1', 19n, 20n],
      ['1:2', 1n, 2n],
      ['0.5:1', 1n, 2n],
      ['1:1', 1n, 1n],
      ['8:1', 8n, 1n],
      ['35:1', 35n, 1n],
      ['100:1', 100n, 1n],
      ['2.5:2', 5n, 4n],
      ['0:1', 0n, 1n],
      [' 11 : 1 ', 11n, 1n],
    ])('Given the odds %j, When parsed, Then the profit per unit staked is exactly %i/%i', (text, num, den) => {
      expect(parseOdds(text)).toEqual({ num, den });
    });

    it.each(['1', '', '1:0', '1:0.0', 'a:1', '-1:1', '1:-2', '1:2:3', ':', '.5:1', '1.:1', '1e3:1', '0x10:1', 'NaN:1', 'push'])('Given the malformed odds %j, When parsed, Then MONEY.INVALID_ODDS', (text) => {
      expect(rulesErrorOf(() => parseOdds(text)).code).toBe('MONEY.INVALID_ODDS');
    });
  });

  describe('parseDecimal and ratio', () => {
    it.each([
      ['0.95', 19n, 20n],
      ['35', 35n, 1n],
      ['007', 7n, 1n],
      ['0.50', 1n, 2n],
      ['0', 0n, 1n],
    ])('Given %j, When parsed as a decimal, Then it is exactly %i/%i', (text, num, den) => {
      expect(parseDecimal(text)).toEqual({ num, den });
    });

    it('Given 6/4, When built, Then it is reduced to 3/2', () => {
      expect(ratio(6n, 4n)).toEqual({ num: 3n, den: 2n });
      expect(ratio(0n, 7n)).toEqual({ num: 0n, den: 1n });
    });

    it.each([
      [1n, 0n],
      [-1n, 2n],
      [1n, -2n],
    ])('Given %i/%i, When built, Then MONEY.INVALID_ODDS', (num, den) => {
      expect(rulesErrorOf(() => ratio(num, den)).code).toBe('MONEY.INVALID_ODDS');
    });
  });

  describe('formatRatio', () => {
    it.each([
      [19n, 20n, false, '0.95'],
      [1n, 2n, false, '0.5'],
      [35n, 1n, false, '35'],
      [1n, 1n, false, '1'],
      [5n, 4n, false, '1.25'],
      [1n, 8n, false, '0.125'],
      [1n, 3n, false, '1/3'],
      [2n, 7n, false, '2/7'],
      [0n, 1n, false, '0'],
      [19n, 20n, true, '-0.95'],
      [1n, 1n, true, '-1'],
      [0n, 1n, true, '0'],
      [1n, 3n, true, '-1/3'],
    ])('Given %i/%i (negative: %s), When formatted, Then it reads %j', (num, den, negative, text) => {
      expect(formatRatio(ratio(num, den), negative)).toBe(text);
    });

    it.each(['0.95:1', '1:2', '35:1', '2.5:2', '8:1'])('Given the odds %j, When parsed and formatted, Then the exact decimal is kept', (odds) => {
      const r = parseOdds(odds);
      expect(parseDecimal(formatRatio(r))).toEqual(r);
    });
  });

  describe('formatMinor', () => {
    it.each([
      [285n, 2, '2.85'],
      [1615n, 2, '16.15'],
      [5n, 2, '0.05'],
      [0n, 2, '0.00'],
      [-1615n, 2, '-16.15'],
      [1234n, 0, '1234'],
      [1234n, 3, '1.234'],
    ])('Given %i minor units with exponent %i, When formatted, Then it reads %j', (amount, exponent, text) => {
      expect(formatMinor(amount, exponent)).toBe(text);
    });
  });

  describe('stakes', () => {
    it.each<[string, unknown]>([
      ['0', 0n],
      ['−1', -1n],
      ['2^53', 2n ** 53n],
      ['2^64', 2n ** 64n],
      ['the number 5 (not a bigint)', 5],
      ['the string "5"', '5'],
      ['1.5', 1.5],
      ['null', null],
      ['undefined', undefined],
    ])('Given a stake of %s, When checked, Then MONEY.INVALID_STAKE', (_name, stake) => {
      expect(rulesErrorOf(() => assertValidStake(stake)).code).toBe('MONEY.INVALID_STAKE');
    });

    it.each([1n, 100n, MAX_STAKE_MINOR])('Given a stake of %i minor units, When checked, Then it is accepted', (stake) => {
      expect(() => assertValidStake(stake)).not.toThrow();
    });

    it('Given the limit, When read, Then it is 2^53 − 1', () => {
      expect(MAX_STAKE_MINOR).toBe(9007199254740991n);
    });
  });
});
