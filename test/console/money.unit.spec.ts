import fc from 'fast-check';
import { formatMinor, formatRatioPercent, minorDigits, minorForPlot, sumMinor } from '../../apps/console/src/lib/money';

describe('console money formatting (integer minor units, never a float)', () => {
  it('formats minor units with the currency digits', () => {
    expect(formatMinor('123456', 'EUR')).toBe('1,234.56');
    expect(formatMinor('-123456', 'EUR', true)).toBe('-1,234.56 EUR');
    expect(formatMinor('5', 'EUR')).toBe('0.05');
    expect(formatMinor('0', 'EUR')).toBe('0.00');
    expect(formatMinor('-0', 'EUR')).toBe('0.00');
    expect(formatMinor('1234567', 'JPY')).toBe('1,234,567');
    expect(formatMinor('1234', 'KWD')).toBe('1.234');
    expect(formatMinor(10n ** 20n + 1n, 'EUR')).toBe('1,000,000,000,000,000,000.01');
  });

  it('refuses what is not an integer amount', () => {
    for (const bad of ['1.5', '1e3', '', ' ', 'abc', '--1', '0x10']) expect(() => formatMinor(bad, 'EUR')).toThrow(/not an amount/);
  });

  it('round-trips any integer: digits without separators and point equal the input', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.constantFrom('EUR', 'JPY', 'KWD'), (v, cur) => {
        const s = formatMinor(v, cur);
        const back = BigInt(s.replace(/[,.]/g, ''));
        expect(back).toBe(v);
        const frac = s.includes('.') ? s.split('.')[1].length : 0;
        expect(frac).toBe(minorDigits(cur));
      }),
    );
  });

  it('formats the hold ratio as a percentage by moving the point', () => {
    expect(formatRatioPercent('0.012345')).toBe('1.2345 %');
    expect(formatRatioPercent('0.500000')).toBe('50 %');
    expect(formatRatioPercent('-0.250000')).toBe('-25 %');
    expect(formatRatioPercent('1')).toBe('100 %');
    expect(formatRatioPercent('0.000000')).toBe('0 %');
    expect(formatRatioPercent('0.000123')).toBe('0.0123 %');
    expect(formatRatioPercent('0.000500')).toBe('0.05 %');
    expect(formatRatioPercent('0.0001')).toBe('0.01 %');
    expect(formatRatioPercent('-0.000001')).toBe('-0.0001 %');
    expect(formatRatioPercent('-1.305000')).toBe('-130.5 %');
    expect(formatRatioPercent('12.5')).toBe('1250 %');
    expect(formatRatioPercent(null)).toBe('–');
    expect(() => formatRatioPercent('1e-3')).toThrow(/not a decimal/);
  });

  it('a percentage is the ratio times 100, digit for digit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), (millionths) => {
        const neg = millionths < 0n;
        const a = neg ? -millionths : millionths;
        const ratio = `${neg ? '-' : ''}${a / 1000000n}.${(a % 1000000n).toString().padStart(6, '0')}`;
        const pct = formatRatioPercent(ratio).replace(' %', '');
        // percent × 10^4 must equal the millionths
        const [w, fr = ''] = pct.replace('-', '').split('.');
        const back = BigInt(w + fr.padEnd(4, '0')) * (pct.startsWith('-') ? -1n : 1n);
        expect(back).toBe(millionths);
      }),
    );
  });

  it('sums exactly and plots only safe integers', () => {
    expect(sumMinor(['9007199254740993', '1', '-2'])).toBe(9007199254740992n);
    expect(() => sumMinor(['1.5'])).toThrow();
    expect(minorForPlot('-2500')).toBe(-2500);
    expect(() => minorForPlot('9007199254740993')).toThrow(RangeError);
  });
});
