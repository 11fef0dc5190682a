import { decide } from './decide';
import { evolve, fold } from './evolve';
import { logToArray } from './keyed-log';
import { counterIds, DECISION, readyTable, bet } from './shoe-fixtures.spec';
import { decodeState, encodeState } from './state-codec';
import { estimateStateBytes, STATE_BYTES } from './state-size';
import type { ShoeCommand } from './commands';

/** A shoe with two resulted rounds (bets settled) and one round whose bets are open. */
function history() {
  const t = readyTable();
  t.round('R1', [bet('b1', 'PLAYER', 1000n), bet('b2', 'BANKER', 2500n, 'A2')]);
  t.deal('R1', '2S 3S 4S 2H 7H');
  t.round('R2', [bet('b3', 'TIE', 100n)]);
  t.deal('R2', '9S 9H 8S 8H');
  t.round('R3', [bet('b4', 'PLAYER', 700n)], false);
  return t;
}

describe('encodeState / decodeState: a snapshot restores the state decide judges by', () => {
  it('round-trips: the same text again, the same bigints, cards as the canonical instances', () => {
    const state = history().state;
    const text = encodeState(state);
    const back = decodeState(text);
    expect(encodeState(back)).toBe(text);
    expect(back.rounds[0].totalStake).toBe(3500n);
    expect(back.limits.PLAYER.min).toBe(100n);
    expect(back.rounds[0].cards[0]).toBe(state.rounds[0].cards[0]); // identity: decide compares cards with ===
    expect(logToArray(back.rounds[0].bets)).toEqual(logToArray(state.rounds[0].bets));
  });

  it('decide answers the same on the restored state as on the folded one (correct a result, void a round)', () => {
    const t = history();
    const back = decodeState(encodeState(t.state));
    const commands: ShoeCommand[] = [
      { type: 'CorrectResult', roundId: 'R1', cards: ['2S', '3S', '4S', '2H', '8H'], decision: DECISION },
      { type: 'VoidRound', roundId: 'R2', decision: DECISION },
      { type: 'CorrectResult', roundId: 'R2', cards: ['9S', '9H', '8S', '8H'], decision: DECISION },
    ];
    for (const c of commands) {
      const run = (s: typeof back) => {
        try {
          return decide(s, c, counterIds('x'));
        } catch (e) {
          return (e as { code?: string }).code;
        }
      };
      expect(run(back)).toEqual(run(t.state));
    }
    // and folding on from the restored state gives what folding the whole stream gives
    const more = decide(t.state, { type: 'CloseBetting', roundId: 'R3' }, counterIds('y'));
    expect(encodeState(fold(more, back))).toBe(encodeState(fold([...t.events, ...more])));
    expect(encodeState(more.reduce(evolve, back))).toBe(encodeState(fold(more, t.state)));
  });

  it('refuses a $log whose keys repeat', () => {
    expect(() => decodeState('{"x":{"$log":{"k":["a","a"],"v":[1,2]}}}')).toThrow(SyntaxError);
  });
});

describe('estimateStateBytes', () => {
  it('grows by the measured figure per bet and per settlement', () => {
    const t = history();
    const s = t.state;
    const settled = s.rounds.reduce((n, r) => n + r.settlements.size, 0);
    expect(settled).toBe(3);
    expect(estimateStateBytes(s)).toBe(STATE_BYTES.base + 3 * STATE_BYTES.perRound + 4 * STATE_BYTES.perBet + 3 * STATE_BYTES.perSettlement);
  });
});
