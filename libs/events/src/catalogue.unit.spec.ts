import { parseCard, resultRound } from '@ledger/rules';
import { roundOutcomeData } from './catalogue';

describe('roundOutcomeData', () => {
  it('given an outcome of the rules, then the event data: canonical codes, the totals, winner, natural and pairs only', () => {
    const outcome = resultRound(['2S', 'KC', '3H', '6D', 'AS'].map(parseCard)); // P 2S 3H AS = 6, B KC 6D = 6: a tie
    expect(roundOutcomeData(outcome)).toEqual({
      player: outcome.player.map((c) => c.code),
      banker: outcome.banker.map((c) => c.code),
      playerTotal: outcome.playerTotal,
      bankerTotal: outcome.bankerTotal,
      winner: outcome.winner,
      natural: outcome.natural,
      playerPair: outcome.playerPair,
      bankerPair: outcome.bankerPair,
    });
    expect(roundOutcomeData(outcome)).toMatchObject({ player: ['2S', '3H', 'AS'], banker: ['KC', '6D'], playerTotal: 6, bankerTotal: 6, winner: 'TIE' });
    expect(Object.keys(roundOutcomeData(outcome))).not.toContain('cardsConsumed');
  });

  it('records a natural and a pair as the tableau found them', () => {
    // P 9S 9H = 8 (natural, pair), B KD 3C = 3: Player wins on a natural
    const data = roundOutcomeData(resultRound(['9S', 'KD', '9H', '3C'].map(parseCard)));
    expect(data).toEqual({ player: ['9S', '9H'], banker: ['KD', '3C'], playerTotal: 8, bankerTotal: 3, winner: 'PLAYER', natural: true, playerPair: true, bankerPair: false });
  });
});
