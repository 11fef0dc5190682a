import { OUTCOME } from './categories';
import { countRound, emptyCounts, ScopeCounts } from './counts';
import { expectedRoundDistributions } from './expected';
import { fairnessVerdict, falseAlarmRatePerTableDay, LOOKS_PER_TABLE_DAY, perTestAlpha, SCOPES_PER_LOOK, testScope } from './monitor';
import { parseCards, resultRound } from '@ledger/rules';

/** The decision rule (docs/fairness.md §4). */
const confidence = { numerator: 95n, denominator: 100n };

/** Counts of `rounds` rounds whose outcome shares are `shares` (PLAYER, BANKER, TIE) and whose other statistics are left at 0 rounds. */
function outcomeCounts(shares: [number, number, number]): ScopeCounts {
  const c = emptyCounts('classic');
  c.counts.OUTCOME = [...shares];
  c.rounds = shares[0] + shares[1] + shares[2];
  return c;
}

describe('the fairness decision rule', () => {
  it('Given 95/100, When the levels are derived, Then the stated false-alarm rate per table per gaming day is 5 % and each test runs at 5 % / (3 scopes × statistics × 32 looks)', () => {
    expect(falseAlarmRatePerTableDay(confidence)).toBe(0.05);
    expect(SCOPES_PER_LOOK * LOOKS_PER_TABLE_DAY).toBe(96);
    expect(perTestAlpha(confidence, 'classic')).toBeCloseTo(0.05 / (3 * 4 * 32), 15);
    expect(perTestAlpha(confidence, 'tiger')).toBeCloseTo(0.05 / (3 * 5 * 32), 15);
    expect(perTestAlpha(confidence, 'fabulous4')).toBeCloseTo(0.05 / (3 * 6 * 32), 15);
  });

  it('Given a table day whose outcomes are the expected shares, When judged, Then no alert; the same rounds with Banker winning 60 % are an alert naming the scope and statistic', () => {
    const [p, b, t] = expectedRoundDistributions('classic', 8)[0].probabilities.map((x) => Number(x.numerator) / Number(x.denominator));
    const honest = outcomeCounts([Math.round(1000 * p), Math.round(1000 * b), Math.round(1000 * t)]);
    expect(fairnessVerdict({ variant: 'classic', decks: 8, confidence, scopes: [{ scope: { kind: 'table' }, counts: honest }] }).alert).toBe(false);
    const biased = outcomeCounts([300, 600, 100]);
    const v = fairnessVerdict({ variant: 'classic', decks: 8, confidence, scopes: [{ scope: { kind: 'dealer', dealerId: 'd-1' }, counts: biased }] });
    expect(v.alert).toBe(true);
    expect(v.failures).toHaveLength(1);
    expect(v.failures[0]).toMatchObject({ scope: { kind: 'dealer', dealerId: 'd-1' }, statistic: 'OUTCOME', rounds: 1000, method: 'chi-squared', degreesOfFreedom: 2 });
    expect(v.failures[0].pValue).toBeLessThan(v.alpha);
  });

  it('Given a p-value just above and just below the per-test level, When judged, Then only the one below alerts (the rule is p < α)', () => {
    const alpha = perTestAlpha(confidence, 'classic');
    const reports = (c: ScopeCounts) => testScope({ variant: 'classic', decks: 8, counts: c, confidence })[0];
    // Banker count k out of 2000 rounds, Player the rest less the expected ties: find the first k that alerts
    let k = 917;
    while (reports(outcomeCounts([1810 - k, k, 190])).test.pValue >= alpha) k++;
    const below = reports(outcomeCounts([1810 - k, k, 190]));
    const above = reports(outcomeCounts([1810 - k + 1, k - 1, 190]));
    expect(below.alert).toBe(true);
    expect(above.alert).toBe(false);
    expect(above.test.pValue).toBeGreaterThanOrEqual(alpha);
  });

  it('Given a round, When counted, Then its outcome, pairs, naturals and the ranks of its cards are counted, and the bands surround the expected count', () => {
    const c = emptyCounts('classic');
    countRound(c, 'classic', resultRound(parseCards('9S 8H KD KC')));
    expect(c.rounds).toBe(1);
    expect(c.counts.OUTCOME).toEqual([1, 0, 0]);
    expect(c.counts.PAIRS).toEqual([1, 0, 0, 0]);
    expect(c.counts.NATURALS).toEqual([0, 0, 0, 1]);
    expect(c.counts.CARD_RANKS![8]).toBe(1);
    expect(c.counts.CARD_RANKS![12]).toBe(2);
    expect(OUTCOME.classify(resultRound(parseCards('9S 8H KD KC')))).toBe('PLAYER');
    const report = testScope({ variant: 'classic', decks: 8, counts: c, confidence });
    for (const s of report) for (const cat of s.categories) expect(cat.band.low <= cat.expected && cat.expected <= cat.band.high).toBe(true);
  });
});
