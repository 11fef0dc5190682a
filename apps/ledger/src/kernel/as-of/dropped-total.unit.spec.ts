import { droppedDifference, droppedTotal } from './dropped-total';

describe('droppedTotal (docs/reports.md §3)', () => {
  it('sums exactly over the lcm of the denominators and reduces', () => {
    expect(droppedTotal(['1/4', '1/4'])).toBe('1/2');
    expect(droppedTotal(['1/3', '1/6', '1/2'])).toBe('1');
    expect(droppedTotal(['3/20', '1/4'])).toBe('2/5');
    expect(droppedTotal(['12/40', '-1/10'])).toBe('1/5');
    expect(droppedTotal(['7/8', '7/8', '7/8'])).toBe('21/8');
  });
  it('is "0" for nothing', () => {
    expect(droppedTotal(null)).toBe('0');
    expect(droppedTotal([])).toBe('0');
    expect(droppedTotal(['0', '0/5'])).toBe('0');
  });
  it('refuses what is not a fraction', () => {
    expect(() => droppedTotal(['0.5'])).toThrow();
    expect(() => droppedTotal(['1/0'])).toThrow();
  });
  it('differences', () => {
    expect(droppedDifference('1/2', '1/4')).toBe('1/4');
    expect(droppedDifference('0', '3/4')).toBe('-3/4');
  });
});
