/**
 * Load fixture shared by the fold benchmark and its unit-spec guard: a busy shoe built through
 * the real decide/evolve.
 */
import { nextPosition, RANKS, SUITS } from '@ledger/rules';
import type { NewEvent } from '@ledger/events';
import type { BetInput, ShoeCommand } from '../src/commands';
import { decide } from '../src/decide';
import { evolve } from '../src/evolve';
import { initialState, type ShoeState } from '../src/state';

/**
 * The events of a shoe of `rounds` rounds with `betsPerRound` bets each (PLAYER/BANKER/TIE by
 * distinct accounts, in batches of 500), every round dealt, resulted and settled. A 16-deck shoe
 * dealt in deck order (no randomness needed for load). About `rounds × (2 × betsPerRound + 8)` events.
 */
export function busyShoeEvents(rounds: number, betsPerRound: number): NewEvent[] {
  let n = 0;
  const ctx = { newId: () => `b${++n}` };
  let state: ShoeState = initialState();
  const events: NewEvent[] = [];
  const run = (cmd: ShoeCommand) => {
    for (const e of decide(state, cmd, ctx)) {
      state = evolve(state, e);
      events.push(e);
    }
  };
  const deck: string[] = [];
  for (let d = 0; d < 16; d++) for (const s of SUITS) for (const r of RANKS) deck.push(`${r}${s}`);
  let next = 0;
  const limit = { min: '1', max: '1000000' };
  run({
    type: 'OpenShoe',
    shoeId: 'S-busy',
    tableId: 'T-busy',
    dealerId: 'D1',
    settings: {
      variant: 'classic',
      decks: 16,
      virtualTable: false,
      paytableRef: 'classic-standard@1',
      pairBetsRequireMainBet: false,
      currency: 'EUR',
      limits: { PLAYER: limit, BANKER: limit, TIE: limit },
    },
  });
  run({ type: 'DrawCommencementCard', card: 'AS' });
  run({ type: 'BurnCard', card: null });
  const codes = ['PLAYER', 'BANKER', 'TIE'];
  for (let r = 1; r <= rounds; r++) {
    const roundId = `R${r}`;
    run({ type: 'OpenRound', roundId });
    for (let from = 0; from < betsPerRound; from += 500) {
      const bets: BetInput[] = [];
      for (let i = from; i < Math.min(betsPerRound, from + 500); i++) {
        bets.push({ betId: `${roundId}-B${i}`, accountId: `A${i}`, betCode: codes[i % 3], stake: BigInt(100 + (i % 977)), currency: 'EUR' });
      }
      run({ type: 'PlaceBets', roundId, bets });
    }
    run({ type: 'CloseBetting', roundId });
    for (let position = nextPosition([]); position !== null; position = nextPosition(state.rounds[r - 1].cards)) {
      run({ type: 'DealCard', roundId, position, card: deck[next++] });
    }
  }
  return events;
}
