import { computeParSheet, defaultPaytable, ParSheet, Variant } from '@ledger/rules';
import { expectedRankDistribution, expectedRoundDistributions, fullComposition, ExpectedDistribution } from './expected';

/** The expected frequencies are the PAR engine's exact figures (docs/fairness.md §2), one spec per game. */

/** The exact probability of `category` of `statistic`, as a fraction over the PAR sheet's denominator. */
function over(dists: readonly ExpectedDistribution[], statistic: string, categories: string[], sheet: ParSheet): bigint {
  const d = dists.find((x) => x.statistic === statistic)!;
  const D = BigInt(sheet.combinations);
  let sum = 0n;
  for (const c of categories) {
    const p = d.probabilities[d.categories.indexOf(c)];
    expect((D * p.numerator) % p.denominator).toBe(0n);
    sum += (D * p.numerator) / p.denominator;
  }
  return sum;
}

const row = (sheet: ParSheet, bet: string, r: string) => BigInt(sheet.bets.find((b) => b.bet === bet)!.rows.find((x) => x.row === r)!.combinations);

function outcomesMatch(variant: Variant, sheet: ParSheet, dists: readonly ExpectedDistribution[]) {
  // Banker's WIN row (its WIN_TOTAL_* rows first, as the paytable has them) and Player's rows sum to the winner's weight
  const bankerWin = sheet.bets
    .find((b) => b.bet === 'BANKER')!
    .rows.filter((r) => r.row.startsWith('WIN'))
    .reduce((s, r) => s + BigInt(r.combinations), 0n);
  const playerWin = sheet.bets
    .find((b) => b.bet === 'PLAYER')!
    .rows.filter((r) => r.row.startsWith('WIN'))
    .reduce((s, r) => s + BigInt(r.combinations), 0n);
  expect(over(dists, 'OUTCOME', ['BANKER'], sheet)).toBe(bankerWin);
  expect(over(dists, 'OUTCOME', ['PLAYER'], sheet)).toBe(playerWin);
  expect(over(dists, 'OUTCOME', ['TIE'], sheet)).toBe(row(sheet, 'TIE', 'WIN'));
  const p = dists[0].probabilities;
  expect(Number(p[1].numerator) / Number(p[1].denominator)).toBeCloseTo(sheet.outcomes.bankerWins, 15);
  expect(variant).toBe(sheet.variant);
}

describe('expected frequencies = the PAR engine (8 decks)', () => {
  it('Given Classic, When its expectations are computed, Then Player/Banker/Tie and the pairs equal the PAR sheet exactly', () => {
    const sheet = computeParSheet(defaultPaytable('classic'), 8);
    const d = expectedRoundDistributions('classic', 8);
    outcomesMatch('classic', sheet, d);
    expect(over(d, 'PAIRS', ['PLAYER', 'BOTH'], sheet)).toBe(row(sheet, 'PLAYER_PAIR', 'WIN'));
    expect(over(d, 'PAIRS', ['BANKER', 'BOTH'], sheet)).toBe(row(sheet, 'BANKER_PAIR', 'WIN'));
    expect(over(d, 'PAIRS', ['PLAYER', 'BANKER', 'BOTH'], sheet)).toBe(row(sheet, 'EITHER_PAIR', 'WIN'));
  });

  it('Given Tiger, When its expectations are computed, Then the outcomes, Tiger Pair, Big/Small Tiger and Tiger Tie equal the PAR sheet exactly', () => {
    const sheet = computeParSheet(defaultPaytable('tiger'), 8);
    const d = expectedRoundDistributions('tiger', 8);
    outcomesMatch('tiger', sheet, d);
    for (const r of ['ONE_PAIR', 'TWO_PAIRS', 'TWIN_PAIRS']) expect(over(d, 'TIGER_PAIR', [r], sheet)).toBe(row(sheet, 'TIGER_PAIR', r));
    expect(over(d, 'TIGER', ['SIX_ON_TWO_CARDS'], sheet)).toBe(row(sheet, 'SMALL_TIGER', 'SIX_ON_TWO_CARDS'));
    expect(over(d, 'TIGER', ['SIX_ON_THREE_CARDS'], sheet)).toBe(row(sheet, 'BIG_TIGER', 'SIX_ON_THREE_CARDS'));
    expect(over(d, 'TIGER', ['TIE_ON_6'], sheet)).toBe(row(sheet, 'TIGER_TIE', 'WIN'));
  });

  it('Given Fabulous 4, When its expectations are computed, Then the outcomes, both Fabulous Pairs and both Fabulous 4 bets equal the PAR sheet exactly', () => {
    const sheet = computeParSheet(defaultPaytable('fabulous4'), 8);
    const d = expectedRoundDistributions('fabulous4', 8);
    outcomesMatch('fabulous4', sheet, d);
    for (const side of ['PLAYER', 'BANKER']) for (const r of ['SUITED_PAIR', 'PAIR', 'SUITED']) expect(over(d, `${side}_FABULOUS_PAIR`, [r], sheet)).toBe(row(sheet, `${side}_FABULOUS_PAIR`, r));
    expect(over(d, 'FABULOUS_4', ['PLAYER_WINS_ON_4'], sheet)).toBe(row(sheet, 'PLAYER_FABULOUS_4', 'WIN_TOTAL_4'));
    expect(over(d, 'FABULOUS_4', ['BANKER_WINS_ON_4'], sheet)).toBe(row(sheet, 'BANKER_FABULOUS_4', 'WIN_TOTAL_4'));
  });

  it('Given any game, When the naturals are computed, Then they equal an independent enumeration of the first four cards (8 decks), exactly', () => {
    const n = expectedRoundDistributions('classic', 8).find((x) => x.statistic === 'NATURALS')!;
    const value = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0];
    const w = new Map<string, bigint>();
    let total = 0n;
    for (let a = 0; a < 13; a++)
      for (let b = 0; b < 13; b++)
        for (let c = 0; c < 13; c++)
          for (let d = 0; d < 13; d++) {
            const rs = [a, b, c, d];
            const weight = rs.reduce((acc, r, i) => acc * BigInt(32 - rs.slice(0, i).filter((x) => x === r).length), 1n);
            const player = (value[a] + value[c]) % 10 >= 8;
            const banker = (value[b] + value[d]) % 10 >= 8;
            const k = player && banker ? 'BOTH' : player ? 'PLAYER' : banker ? 'BANKER' : 'NONE';
            w.set(k, (w.get(k) ?? 0n) + weight);
            total += weight;
          }
    n.categories.forEach((k, i) => expect(n.probabilities[i].numerator * total).toBe(w.get(k)! * n.probabilities[i].denominator));
  });

  it('Given an 8-deck shoe, When the rank expectations are computed, Then each rank is exactly 1/13; a shoe with no 9s gives 9 a probability of 0', () => {
    expect(expectedRankDistribution(fullComposition(8)).probabilities.every((p) => p.numerator === 1n && p.denominator === 13n)).toBe(true);
    const no9 = expectedRankDistribution({ ...fullComposition(8), '9': 0 });
    expect(no9.probabilities[8]).toEqual({ numerator: 0n, denominator: 1n });
    expect(no9.probabilities[0]).toEqual({ numerator: 1n, denominator: 12n });
  });
});
