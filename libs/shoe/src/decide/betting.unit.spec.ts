import type { ShoeCommand } from '../commands';
import { findBet, roundBets } from '../state';
import { bet, counterIds, DECISION, expectRefused, ofType, readyTable, Table, types, when } from '../shoe-fixtures.spec';
import { decide } from './index';

const place = (roundId: string, ...bets: ReturnType<typeof bet>[]): ShoeCommand => ({ type: 'PlaceBets', roundId, bets });

/** A table with `n` rounds opened and voided, then round `R<n+1>` open for bets. */
function tableAtHand(hand: number, overrides = {}): Table {
  const t = readyTable(overrides);
  for (let i = 1; i < hand; i++) {
    t.run({ type: 'OpenRound', roundId: `V${i}` });
    t.run({ type: 'VoidRound', roundId: `V${i}`, decision: DECISION });
  }
  t.run({ type: 'OpenRound', roundId: `R${hand}` });
  return t;
}

describe('OpenRound', () => {
  it('given a commenced shoe, when OpenRound, then hand 1; the next round is hand 2 even after a void', () => {
    const t = readyTable();
    expect(t.run({ type: 'OpenRound', roundId: 'R1' })[0].data).toEqual({ roundId: 'R1', handNumber: 1 });
    expect(t.state.status).toBe('IN_ROUND');
    t.run({ type: 'VoidRound', roundId: 'R1', decision: DECISION });
    expect(t.state.status).toBe('READY');
    expect(t.run({ type: 'OpenRound', roundId: 'R2' })[0].data).toEqual({ roundId: 'R2', handNumber: 2 });
  });

  it('refuses a round while one is in betting or dealing (ROUND.IN_PROGRESS), and a reused id (ROUND.DUPLICATE_ID)', () => {
    const t = readyTable();
    t.run({ type: 'OpenRound', roundId: 'R1' });
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R2' }, 'ROUND.IN_PROGRESS');
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R2' }, 'ROUND.IN_PROGRESS');
    t.deal('R1', '9S 2H KD 3C');
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R1' }, 'ROUND.DUPLICATE_ID');
    expect(t.run({ type: 'OpenRound', roundId: 'R2' })[0].data).toMatchObject({ handNumber: 2 });
  });

  it('refuses a round before the commencement (COMMENCEMENT.INCOMPLETE)', () => {
    expectRefused(new Table().open().events, { type: 'OpenRound', roundId: 'R1' }, 'COMMENCEMENT.INCOMPLETE');
  });
});

describe('PlaceBets (§3, §4)', () => {
  it('given a round in betting, when a batch of bets, then one BetPlaced per bet, in order', () => {
    const t = readyTable().round('R1', [], false);
    const { events, after } = when(t.events, place('R1', bet('B1', 'PLAYER', 1000n), bet('B2', 'TIE', 500n, 'A2')));
    expect(events).toEqual([
      { eventId: 'w1', type: 'BetPlaced', data: { betId: 'B1', roundId: 'R1', accountId: 'A1', betCode: 'PLAYER', stake: '1000', currency: 'EUR' } },
      { eventId: 'w2', type: 'BetPlaced', data: { betId: 'B2', roundId: 'R1', accountId: 'A2', betCode: 'TIE', stake: '500', currency: 'EUR' } },
    ]);
    expect(roundBets(after.rounds[0]).map((b) => [b.betId, b.stake])).toEqual([
      ['B1', 1000n],
      ['B2', 500n],
    ]);
    expect(after.rounds[0].totalStake).toBe(1500n);
    expect(findBet(after, 'B2')?.round.roundId).toBe('R1');
  });

  it('is all-or-nothing: one bad bet refuses the batch and records nothing', () => {
    const t = readyTable().round('R1', [], false);
    const err = expectRefused(t.events, place('R1', bet('B1', 'PLAYER'), bet('B2', 'BANKER', 1n)), 'BET.BELOW_MINIMUM');
    expect(err.details).toMatchObject({ index: 1, betId: 'B2', stake: '1', min: '100' });
  });

  it('refuses a bet after betting closed (ROUND.BETTING_CLOSED)', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    expectRefused(t.events, place('R1', bet('B2', 'BANKER')), 'ROUND.BETTING_CLOSED');
    t.deal('R1', '9S 2H KD 3C');
    expectRefused(t.events, place('R1', bet('B2', 'BANKER')), 'ROUND.BETTING_CLOSED');
  });

  it('refuses bets on an unknown round (ROUND.NOT_FOUND) or an earlier one (ROUND.NOT_CURRENT)', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '9S 2H KD 3C');
    t.round('R2', [], false);
    expectRefused(t.events, place('R9', bet('B1', 'PLAYER')), 'ROUND.NOT_FOUND');
    expectRefused(t.events, place('R1', bet('B1', 'PLAYER')), 'ROUND.NOT_CURRENT');
  });

  it('refuses an empty batch (COMMAND.INVALID)', () => {
    expectRefused(readyTable().round('R1', [], false).events, place('R1'), 'COMMAND.INVALID');
  });

  it('refuses a bet code the variant does not have (BET.UNKNOWN_CODE)', () => {
    const t = readyTable().round('R1', [], false);
    expectRefused(t.events, place('R1', bet('B1', 'TIGER')), 'BET.UNKNOWN_CODE');
    expectRefused(t.events, place('R1', bet('B1', 'player')), 'BET.UNKNOWN_CODE');
  });

  it('refuses a bet in another currency (BET.CURRENCY_MISMATCH)', () => {
    expectRefused(readyTable().round('R1', [], false).events, place('R1', bet('B1', 'PLAYER', 1000n, 'A1', 'USD')), 'BET.CURRENCY_MISMATCH');
  });

  it.each<[string, unknown]>([
    ['zero', 0n],
    ['negative', -100n],
    ['a float', 10.5],
    ['a number instead of bigint', 1000],
    ['a string', '1000'],
    ['2^63', 2n ** 63n],
    ['2^53', 2n ** 53n],
  ])('refuses a stake that is %s (MONEY.INVALID_STAKE)', (_label, stake) => {
    const t = readyTable().round('R1', [], false);
    const err = expectRefused(t.events, place('R1', { ...bet('B1', 'PLAYER'), stake: stake as bigint }), 'MONEY.INVALID_STAKE');
    expect(err.details).toMatchObject({ index: 0, betId: 'B1' });
  });

  it('refuses a stake below the minimum (BET.BELOW_MINIMUM) and accepts the minimum', () => {
    const t = readyTable().round('R1', [], false);
    expectRefused(t.events, place('R1', bet('B1', 'PLAYER', 99n)), 'BET.BELOW_MINIMUM');
    expect(types(when(t.events, place('R1', bet('B1', 'PLAYER', 100n))).events)).toEqual(['BetPlaced']);
  });

  it("refuses a stake above the maximum, counting the account's earlier bets and earlier bets of the same batch (BET.ABOVE_MAXIMUM)", () => {
    const t = readyTable().round('R1', [], false);
    expectRefused(t.events, place('R1', bet('B1', 'PLAYER', 100001n)), 'BET.ABOVE_MAXIMUM');
    t.run(place('R1', bet('B1', 'PLAYER', 60000n)));
    const err = expectRefused(t.events, place('R1', bet('B2', 'PLAYER', 40001n)), 'BET.ABOVE_MAXIMUM');
    expect(err.details).toMatchObject({ accountTotal: '100001', max: '100000' });
    expectRefused(t.events, place('R1', bet('B2', 'PLAYER', 20000n), bet('B3', 'PLAYER', 20001n)), 'BET.ABOVE_MAXIMUM');
    // other accounts and other codes have their own totals
    expect(types(when(t.events, place('R1', bet('B2', 'PLAYER', 40000n), bet('B3', 'PLAYER', 100000n, 'A2'), bet('B4', 'BANKER', 100000n))).events)).toEqual(['BetPlaced', 'BetPlaced', 'BetPlaced']);
  });

  it('counts every earlier bet of the account when bets arrive one a request on one evolving state, and an older state counts only its own', () => {
    const t = readyTable().round('R1', [], false);
    // 99 bets of 1,000 by A1 on PLAYER, one a request, each decided on the state the previous one left
    for (let i = 1; i <= 99; i++) t.run(place('R1', bet(`P${i}`, 'PLAYER', 1000n)));
    const older = t.state;
    t.run(place('R1', bet('P100', 'PLAYER', 1000n))); // 100,000: the maximum
    expect(() => decide(t.state, place('R1', bet('P101', 'PLAYER', 100n)), counterIds('x'))).toThrow(expect.objectContaining({ code: 'BET.ABOVE_MAXIMUM' }));
    // the state before P100 holds 99,000: 1,000 more is still within the maximum there
    expect(types(decide(older, place('R1', bet('Q1', 'PLAYER', 1000n)), counterIds('y')))).toEqual(['BetPlaced']);
    expect(() => decide(older, place('R1', bet('Q1', 'PLAYER', 1001n)), counterIds('z'))).toThrow(expect.objectContaining({ code: 'BET.ABOVE_MAXIMUM' }));
  });

  it('refuses a bet id already used in the shoe or twice in the batch (BET.DUPLICATE_ID)', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    t.deal('R1', '9S 2H KD 3C');
    t.round('R2', [], false);
    expectRefused(t.events, place('R2', bet('B1', 'PLAYER')), 'BET.DUPLICATE_ID');
    expectRefused(t.events, place('R2', bet('B2', 'PLAYER'), bet('B2', 'BANKER')), 'BET.DUPLICATE_ID');
  });

  it('refuses a bet on a code the table has no limits for (BET.NOT_OFFERED)', () => {
    const t = readyTable({ limits: { PLAYER: { min: '100', max: '1000' } } }).round('R1', [], false);
    expectRefused(t.events, place('R1', bet('B1', 'BANKER')), 'BET.NOT_OFFERED');
  });

  describe('pair wagers need a main wager when the table says so (§3.1)', () => {
    const table = () => readyTable({ pairBetsRequireMainBet: true }).round('R1', [], false);

    it('refuses a pair wager with no main wager of the same account (BET.PAIR_NEEDS_MAIN_BET)', () => {
      expectRefused(table().events, place('R1', bet('B1', 'PLAYER_PAIR')), 'BET.PAIR_NEEDS_MAIN_BET');
      const t = table();
      t.run(place('R1', bet('B1', 'BANKER', 1000n, 'A2')));
      expectRefused(t.events, place('R1', bet('B2', 'EITHER_PAIR', 1000n, 'A1')), 'BET.PAIR_NEEDS_MAIN_BET');
    });

    it('refuses a pair wager placed before the main wager in the same batch', () => {
      expectRefused(table().events, place('R1', bet('B1', 'BANKER_PAIR'), bet('B2', 'TIE')), 'BET.PAIR_NEEDS_MAIN_BET');
    });

    it('accepts it after a main wager earlier in the batch or in an earlier batch', () => {
      expect(types(when(table().events, place('R1', bet('B1', 'TIE'), bet('B2', 'BANKER_PAIR'))).events)).toEqual(['BetPlaced', 'BetPlaced']);
      const t = table();
      t.run(place('R1', bet('B1', 'PLAYER')));
      expect(types(when(t.events, place('R1', bet('B2', 'PLAYER_PAIR'))).events)).toEqual(['BetPlaced']);
    });

    it('lets pair wagers stand alone when the table allows it', () => {
      const t = readyTable({ pairBetsRequireMainBet: false }).round('R1', [], false);
      expect(types(when(t.events, place('R1', bet('B1', 'PLAYER_PAIR'))).events)).toEqual(['BetPlaced']);
    });
  });

  describe('side-bet windows (§3.2, §3.3): first 60 hands, voided hands counted, virtual tables exempt', () => {
    it('accepts a Tiger bet on hand 60 of a non-virtual shoe', () => {
      const t = tableAtHand(60, { variant: 'tiger' });
      expect(t.state.rounds[59].handNumber).toBe(60);
      expect(types(when(t.events, place('R60', bet('B1', 'TIGER'))).events)).toEqual(['BetPlaced']);
    });

    it('refuses a Tiger bet on hand 61 of a non-virtual shoe (BET.OUTSIDE_WINDOW)', () => {
      const t = tableAtHand(61, { variant: 'tiger' });
      for (const code of ['TIGER', 'TIGER_PAIR', 'BIG_TIGER', 'SMALL_TIGER']) {
        const err = expectRefused(t.events, place('R61', bet('B1', code)), 'BET.OUTSIDE_WINDOW');
        expect(err.details).toMatchObject({ handNumber: 61, betCode: code });
      }
      // Tiger Tie and the main bets have no window
      expect(types(when(t.events, place('R61', bet('B1', 'TIGER_TIE'), bet('B2', 'BANKER'))).events)).toEqual(['BetPlaced', 'BetPlaced']);
    });

    it('accepts a Tiger bet on hand 61 of a virtual shoe', () => {
      const t = tableAtHand(61, { variant: 'tiger', virtualTable: true });
      expect(types(when(t.events, place('R61', bet('B1', 'TIGER'), bet('B2', 'SMALL_TIGER'))).events)).toEqual(['BetPlaced', 'BetPlaced']);
    });

    it('refuses Fabulous Pairs on hand 61 of a non-virtual Fabulous 4 shoe, not the Fabulous 4 bets', () => {
      const t = tableAtHand(61, { variant: 'fabulous4' });
      expectRefused(t.events, place('R61', bet('B1', 'PLAYER_FABULOUS_PAIR')), 'BET.OUTSIDE_WINDOW');
      expectRefused(t.events, place('R61', bet('B1', 'BANKER_FABULOUS_PAIR')), 'BET.OUTSIDE_WINDOW');
      expect(types(when(t.events, place('R61', bet('B1', 'PLAYER_FABULOUS_4'))).events)).toEqual(['BetPlaced']);
    });
  });
});

describe('CloseBetting', () => {
  it('given bets, when CloseBetting, then BettingClosed with the count and total stake; the round is dealing', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n), bet('B2', 'BANKER', 2500n, 'A2')], false);
    const { events, after } = when(t.events, { type: 'CloseBetting', roundId: 'R1' });
    expect(events[0]).toEqual({ eventId: 'w1', type: 'BettingClosed', data: { roundId: 'R1', betCount: 2, totalStake: '3500' } });
    expect(after.rounds[0].phase).toBe('DEALING');
  });

  it('refuses to close betting twice (ROUND.BETTING_CLOSED)', () => {
    expectRefused(readyTable().round('R1').events, { type: 'CloseBetting', roundId: 'R1' }, 'ROUND.BETTING_CLOSED');
  });

  it('closes a round without bets with count 0 and total 0', () => {
    const t = readyTable().round('R1', [], false);
    expect(when(t.events, { type: 'CloseBetting', roundId: 'R1' }).events[0].data).toEqual({ roundId: 'R1', betCount: 0, totalStake: '0' });
    expect(ofType(t.events, 'BetPlaced')).toHaveLength(0);
  });
});
