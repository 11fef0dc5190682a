import { chiSquaredCritical, chiSquaredSurvival, exactBinomialPValue, goodnessOfFit } from './goodness-of-fit';

/** The tests against textbook values (docs/fairness.md §3). */
describe('goodness-of-fit', () => {
  it('Given the chi-squared table, When the tail and the critical values are computed, Then they match the printed table (95 %, 99 %)', () => {
    expect(chiSquaredCritical(0.05, 1)).toBeCloseTo(3.8415, 4);
    expect(chiSquaredCritical(0.05, 2)).toBeCloseTo(5.9915, 4);
    expect(chiSquaredCritical(0.01, 2)).toBeCloseTo(9.2103, 4);
    expect(chiSquaredCritical(0.05, 12)).toBeCloseTo(21.0261, 4);
    expect(chiSquaredSurvival(3.841459, 1)).toBeCloseTo(0.05, 6);
    expect(chiSquaredSurvival(0, 3)).toBe(1);
  });

  it("Given Mendel's peas (315, 108, 101, 32 against 9:3:3:1), When tested, Then X² = 0.470 on 3 df and p = 0.925", () => {
    const r = goodnessOfFit([315, 108, 101, 32], [9 / 16, 3 / 16, 3 / 16, 1 / 16]);
    expect(r.method).toBe('chi-squared');
    expect(r.degreesOfFreedom).toBe(3);
    expect(r.statistic).toBeCloseTo(0.47, 3);
    expect(r.pValue).toBeCloseTo(0.9254, 4);
  });

  it("Given R's binom.test examples, When the exact two-sided binomial p-value is computed, Then it matches (682 of 925 at 3/4: 0.3825; 0 of 10 at 1/10: 0.6126)", () => {
    expect(exactBinomialPValue(682, 925, 0.75)).toBeCloseTo(0.3825, 4);
    expect(exactBinomialPValue(0, 10, 0.1)).toBeCloseTo(0.6126, 4);
  });

  it('Given cells expecting fewer than 5, When tested, Then the smallest are pooled until each expects 5; with two cells left and one still under 5, the exact binomial test is used', () => {
    // 100 rounds, Tiger's side outcomes: NONE 0.9, three rare cells of 0.05, 0.03, 0.02
    const pooled = goodnessOfFit([90, 5, 3, 2], [0.9, 0.05, 0.03, 0.02]);
    expect(pooled.method).toBe('chi-squared');
    expect(pooled.cells).toEqual([[3, 2], [1], [0]]);
    expect(pooled.degreesOfFreedom).toBe(2);
    const exact = goodnessOfFit([19, 1], [0.9, 0.1]);
    expect(exact.method).toBe('exact-binomial');
    expect(exact.pValue).toBeCloseTo(exactBinomialPValue(1, 20, 0.1), 12);
  });

  it('Given no observation, or an observed category the expectations forbid, When tested, Then no test (p = 1), or p = 0', () => {
    expect(goodnessOfFit([0, 0, 0], [0.5, 0.4, 0.1])).toMatchObject({ method: 'none', pValue: 1 });
    expect(goodnessOfFit([10, 1], [1, 0]).pValue).toBe(0);
  });
});
