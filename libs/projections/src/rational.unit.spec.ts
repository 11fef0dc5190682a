import fc from 'fast-check';
import { parseOdds, settle } from '@ledger/rules';
import { addOverLcm, formatFraction, Fraction, negate, parseFraction, parseMinor } from './rational';

describe('dropped fractions', () => {
  it('parses settlement fractions and minor amounts, refusing anything else', () => {
    expect(parseFraction('0')).toEqual({ num: 0n, den: 1n });
    expect(parseFraction('1/4')).toEqual({ num: 1n, den: 4n });
    expect(parseMinor('-300')).toBe(-300n);
    for (const bad of ['1/0', '0.5', '', 'x', null, '-1/4']) expect(() => parseFraction(bad)).toThrow(expect.objectContaining({ code: 'PROJECTION.BAD_AMOUNT' }));
    for (const bad of ['1.5', '1e3', ' 1', 12]) expect(() => parseMinor(bad)).toThrow(expect.objectContaining({ code: 'PROJECTION.BAD_AMOUNT' }));
  });

  it("reads a settlement's dropped text back into the rules' Ratio that settle computed", () => {
    for (const [stake, odds] of [
      [15n, '0.95:1'],
      [5n, '1:2'],
      [105n, '0.95:1'],
      [100n, '8:1'],
    ] as const) {
      const dropped = settle(stake, { kind: 'WIN', odds: parseOdds(odds) }).dropped;
      expect(parseFraction(formatFraction(dropped))).toEqual(dropped);
    }
  });

  it('sums exactly over the lcm of the denominators', () => {
    const s = addOverLcm(addOverLcm({ num: 0n, den: 1n }, parseFraction('1/4')), parseFraction('3/20'));
    expect(s).toEqual({ num: 8n, den: 20n });
    expect(formatFraction(s)).toBe('2/5');
    expect(formatFraction(addOverLcm(s, negate(s)))).toBe('0');
  });

  it('the stored pair does not depend on how the sum is grouped (batches of any size give the same row)', () => {
    const frac = fc.record({ num: fc.bigInt(-50n, 50n), den: fc.constantFrom(1n, 2n, 4n, 20n, 40n, 3n) });
    fc.assert(
      fc.property(fc.array(frac, { maxLength: 30 }), fc.integer({ min: 1, max: 10 }), (xs: Fraction[], chunk) => {
        const zero = { num: 0n, den: 1n };
        const one = xs.reduce(addOverLcm, zero);
        let grouped = zero;
        for (let i = 0; i < xs.length; i += chunk) grouped = addOverLcm(grouped, xs.slice(i, i + chunk).reduce(addOverLcm, zero));
        expect(grouped).toEqual(one);
      }),
    );
  });
});
