import { fairnessReport, outcomeOfRecordedRound } from './report';

/** The report of a table day (docs/fairness.md §4). */
describe('fairness report', () => {
  it('Given recorded hands, When resulted again, Then the dealing order is rebuilt (a Banker-only third card included)', () => {
    expect(outcomeOfRecordedRound({ playerCards: ['9S', 'KD'], bankerCards: ['8H', 'KC'] })).toMatchObject({ winner: 'PLAYER', playerNatural: true, bankerNatural: true });
    expect(outcomeOfRecordedRound({ playerCards: ['7S', 'KD'], bankerCards: ['2H', 'KC', '4D'] })).toMatchObject({ winner: 'PLAYER', bankerTotal: 6, cardsConsumed: 5 });
    expect(outcomeOfRecordedRound({ playerCards: ['2S', 'KD', '3H'], bankerCards: ['2H', 'KC', '5D'] })).toMatchObject({ playerTotal: 5, bankerTotal: 7, cardsConsumed: 6 });
  });

  it('Given a table day of two shoes and two dealers, When reported, Then the day, each shoe and each dealer are scopes, with the rule’s figures', () => {
    const rounds = [
      { shoeId: 's1', dealerId: 'd1', playerCards: ['9S', 'KD'], bankerCards: ['8H', 'KC'] },
      { shoeId: 's1', dealerId: 'd2', playerCards: ['7S', 'KD'], bankerCards: ['2H', 'KC', '4D'] },
      { shoeId: 's2', dealerId: 'd2', playerCards: ['2S', 'KD', '3H'], bankerCards: ['2H', 'KC', '5D'] },
    ];
    const r = fairnessReport({ variant: 'tiger', decks: 8, confidence: { numerator: 95n, denominator: 100n }, selection: { kind: 'table' }, rounds });
    expect(r.scopes.map((s) => [s.scope, s.rounds])).toEqual([
      [{ kind: 'table' }, 3],
      [{ kind: 'shoe', shoeId: 's1' }, 2],
      [{ kind: 'shoe', shoeId: 's2' }, 1],
      [{ kind: 'dealer', dealerId: 'd1' }, 1],
      [{ kind: 'dealer', dealerId: 'd2' }, 2],
    ]);
    expect(r.scopes[0].statistics.map((s) => s.statistic)).toEqual(['OUTCOME', 'NATURALS', 'TIGER_PAIR', 'TIGER', 'CARD_RANKS']);
    expect(r.falseAlarmRatePerTableDay).toBe(0.05);
    expect(r.verdict.alert).toBe(false);
    const one = fairnessReport({ variant: 'tiger', decks: 8, confidence: { numerator: 95n, denominator: 100n }, selection: { kind: 'shoe', shoeId: 's1' }, rounds: rounds.slice(0, 2) });
    expect(one.scopes.map((s) => s.scope)).toEqual([{ kind: 'shoe', shoeId: 's1' }]);
  });
});
