import { decimalOf, isqrt, outlierTest, outlierTests, zSquared, zText } from './staff-flags';

/** The outlier statistic of docs/reports.md §6 on crafted numbers: exact arithmetic, the threshold, the small-sample guard. */
describe('staff statistics: the two-proportion z-test (docs/reports.md §6)', () => {
  it('isqrt and decimalOf are exact', () => {
    expect([0n, 1n, 2n, 3n, 4n, 15n, 16n, 17n, 10n ** 30n].map(isqrt)).toEqual([0n, 1n, 1n, 1n, 2n, 3n, 4n, 4n, 10n ** 15n]);
    expect(decimalOf(2n, 3n, 4)).toBe('0.6667');
    expect(decimalOf(1n, 3n, 4)).toBe('0.3333');
    expect(decimalOf(1n, 8n, 2)).toBe('0.13'); // 0.125 half up
    expect(decimalOf(0n, 7n, 4)).toBe('0.0000');
    expect(decimalOf(7n, 7n, 4)).toBe('1.0000');
  });

  it('z of 8/12 against 0/12 is √12 = 3.46; of 0/12 against 8/12 it is −3.46', () => {
    const up = zSquared(8n, 12n, 0n, 12n)!;
    expect(up.num * 1n).toBe(12n * up.den); // z² = 12 exactly
    expect(zText(up)).toBe('3.46');
    expect(zText(zSquared(0n, 12n, 8n, 12n)!)).toBe('-3.46');
    expect(zText(zSquared(3n, 30n, 6n, 60n)!)).toBe('0.00');
  });

  it('flags a dealer whose void rate stands ≥ 3 standard errors above the peers, with enough rounds', () => {
    // 20 of 100 against 10 of 300: pooled 30/400; z ≈ 5.48, truncated to 5.47
    const t = outlierTest('VOID_RATE', 20, 100, 10, 300, 30);
    expect(t).toMatchObject({ flagged: true, rate: '0.2000', peerRate: '0.0333', z: '5.47', note: null });
  });

  it('no flag just under the threshold, a flag at it exactly', () => {
    // z² = a²T/(nN·h·(T−h)); 8/12 vs 0/12 → z² = 12 (z = 3.46 ≥ 3) but 6/12 vs 0/12 → z² = 8 (z = 2.83 < 3)
    expect(outlierTest('VOID_RATE', 8, 12, 0, 12, 10).flagged).toBe(true);
    expect(outlierTest('VOID_RATE', 6, 12, 0, 12, 10)).toMatchObject({ flagged: false, z: '2.82' });
    // an exact z² = 9: 3/3 vs 0/6 (n = 3, N = 6): a = 18, z² = 324·9/(3·6·3·6) = 9
    const exact = zSquared(3n, 3n, 0n, 6n)!;
    expect(exact.num).toBe(9n * exact.den);
    expect(outlierTest('VOID_RATE', 3, 3, 0, 6, 3).flagged).toBe(true);
    expect(outlierTest('VOID_RATE', 3, 3, 0, 6, 3).z).toBe('3.00');
  });

  it('a rate below the peers is never flagged (one-sided), however far', () => {
    expect(outlierTest('VOID_RATE', 0, 100, 50, 100, 30)).toMatchObject({ flagged: false, z: '-8.16' });
  });

  it('small-sample guard: the same rates on fewer rounds than minRounds are not flagged, with a note', () => {
    const t = outlierTest('VOID_RATE', 8, 12, 0, 12, 30);
    expect(t.flagged).toBe(false);
    expect(t.z).toBe('3.46');
    expect(t.note).toMatch(/fewer than 30 rounds/);
    // enough for the dealer but not for the pool
    expect(outlierTest('VOID_RATE', 40, 100, 0, 20, 30).flagged).toBe(false);
  });

  it('no variation (nobody ever voids, or everybody always does) is no test', () => {
    expect(outlierTest('VOID_RATE', 0, 100, 0, 100, 30)).toMatchObject({ z: null, flagged: false, note: expect.stringMatching(/no variation/) });
    expect(outlierTest('VOID_RATE', 100, 100, 100, 100, 30)).toMatchObject({ z: null, flagged: false });
    expect(outlierTest('VOID_RATE', 0, 0, 3, 100, 30)).toMatchObject({ rate: null, z: null, flagged: false });
  });

  it('outlierTests tests each dealer against the pool of all the others: exactly the outlier is flagged', () => {
    const dealers = [
      { id: 'A', voids: 2, rounds: 100 },
      { id: 'B', voids: 3, rounds: 100 },
      { id: 'C', voids: 25, rounds: 100 },
      { id: 'D', voids: 1, rounds: 100 },
    ];
    const tests = outlierTests(dealers, (d) => ({ count: d.voids, rounds: d.rounds }), 'VOID_RATE', 30);
    expect(tests.map((t) => t.flagged)).toEqual([false, false, true, false]);
    expect(tests[2]).toMatchObject({ peerCount: 6, peerRounds: 300, rate: '0.2500', peerRate: '0.0200' });
  });
});
