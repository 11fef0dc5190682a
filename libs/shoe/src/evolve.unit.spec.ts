import type { NewEvent } from '@ledger/events';
import { DomainError } from './errors';
import { evolve, fold } from './evolve';
import { emptyLog, logAppend, logGet, logHas, logToArray } from './keyed-log';
import { betSettlement, findBet, initialState, roundBets } from './state';
import { busyShoeEvents } from '../bench/busy-shoe';
import { bet, readyTable } from './shoe-fixtures.spec';

const placed = (eventId: string, betId: string, roundId = 'R1'): NewEvent => ({
  eventId,
  type: 'BetPlaced',
  data: { betId, roundId, accountId: 'A1', betCode: 'PLAYER', stake: '500', currency: 'EUR' },
});

function refusalOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('evolve', () => {
  it('counts every event in version, and the initial state is NONE at version 0', () => {
    const t = readyTable();
    expect(initialState()).toMatchObject({ status: 'NONE', version: 0, rounds: [], handNumber: 0 });
    expect(fold(t.events).version).toBe(t.events.length);
  });

  it('never changes the state it is given (a kept state still reads the same after later events)', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')], false);
    const before = t.state;
    const snapshot = { bets: roundBets(before.rounds[0]), phase: before.rounds[0].phase, version: before.version, cards: before.cards };
    t.run({ type: 'PlaceBets', roundId: 'R1', bets: [bet('B2', 'BANKER'), bet('B3', 'TIE')] });
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    t.deal('R1', '9S 2H KD 3C');
    expect(roundBets(before.rounds[0])).toEqual(snapshot.bets);
    expect(before.rounds[0].phase).toBe(snapshot.phase);
    expect(before.version).toBe(snapshot.version);
    expect(before.cards).toBe(snapshot.cards);
    expect(findBet(before, 'B2')).toBeUndefined();
    expect(betSettlement(t.state.rounds[0], 'B1')).toMatchObject({ kind: 'SETTLED', revision: 1 });
    expect(betSettlement(before.rounds[0], 'B1')).toBeUndefined();
  });

  it('forks safely: the same state evolved with two different events gives two independent states', () => {
    const base = readyTable().round('R1', [bet('B1', 'PLAYER')], false).state;
    const a = evolve(base, placed('x1', 'BA'));
    const b = evolve(base, placed('y1', 'BB'));
    const a2 = evolve(a, placed('x2', 'BA2'));
    expect(roundBets(a2.rounds[0]).map((x) => x.betId)).toEqual(['B1', 'BA', 'BA2']);
    expect(roundBets(a.rounds[0]).map((x) => x.betId)).toEqual(['B1', 'BA']);
    expect(roundBets(b.rounds[0]).map((x) => x.betId)).toEqual(['B1', 'BB']);
    expect(roundBets(base.rounds[0]).map((x) => x.betId)).toEqual(['B1']);
    expect(findBet(b, 'BA')).toBeUndefined();
    expect(findBet(a, 'BB')).toBeUndefined();
    expect(b.rounds[0].totalStake).toBe(1500n);
    // the same bet id is fine on each branch
    expect(() => evolve(b, placed('y2', 'BA'))).not.toThrow();
  });

  describe('refuses a stream no decide could have produced', () => {
    const given = () => readyTable().round('R1', [bet('B1', 'PLAYER')], false).state;
    it.each<[string, NewEvent, string]>([
      ['a bet in an unknown round', placed('z', 'B9', 'R9'), 'EVENT.INCONSISTENT'],
      ['the same bet twice', placed('z', 'B1'), 'EVENT.INCONSISTENT'],
      ['a round opened twice', { eventId: 'z', type: 'RoundOpened', data: { roundId: 'R1', handNumber: 2 } }, 'EVENT.INCONSISTENT'],
      [
        'a settlement of an unknown bet',
        {
          eventId: 'z',
          type: 'BetRefunded',
          data: { betId: 'B7', roundId: 'R1', accountId: 'A1', betCode: 'PLAYER', currency: 'EUR', stake: '1', compensates: 'v', revision: 0 },
        },
        'EVENT.INCONSISTENT',
      ],
      ['a malformed card', { eventId: 'z', type: 'CardDealt', data: { roundId: 'R1', position: 'P1', card: 'ZZ' } }, 'CARD.MALFORMED'],
      ['an unknown event type', { eventId: 'z', type: 'CardShredded', data: {} } as unknown as NewEvent, 'EVENT.UNKNOWN_TYPE'],
    ])('%s', (_label, event, code) => {
      expect(refusalOf(() => evolve(given(), event)).code).toBe(code);
    });

    it('a ninth copy of a card in an 8-deck shoe', () => {
      let s = given();
      const dealt = (i: number): NewEvent => ({ eventId: `c${i}`, type: 'UnneededCardDrawn', data: { roundId: 'R1', card: 'KH' } });
      for (let i = 0; i < 8; i++) s = evolve(s, dealt(i));
      expect(refusalOf(() => evolve(s, dealt(8))).code).toBe('SHOE.CARD_EXCEEDS_DECKS');
    });

    it('a bet before any ShoeOpened', () => {
      expect(refusalOf(() => evolve(initialState(), placed('z', 'B1'))).code).toBe('EVENT.INCONSISTENT');
    });
  });

  // how fast is the bench's business (a timed assertion fails on a loaded machine, not on a slow fold)
  it('folds 100,000 events (10 rounds × 5,000 bets, settled) to the same state twice', () => {
    const events = busyShoeEvents(10, 5000);
    expect(events.length).toBeGreaterThanOrEqual(100_000);
    const state = fold(events);
    expect(state.rounds).toHaveLength(10);
    expect(state.rounds.every((r) => r.phase === 'RESULTED' && r.bets.size === 5000 && r.settlements.size === 5000)).toBe(true);
    // a fold is pure: folding again gives an equal state
    expect(fold(events)).toEqual(state);
  }, 120_000);
});

describe('KeyedLog', () => {
  it('appends in place for the newest view, copies for an older one, and each view sees its own prefix', () => {
    const l0 = emptyLog<number>();
    const l1 = logAppend(l0, 'a', 1);
    const l2 = logAppend(l1, 'b', 2);
    expect(l2.store).toBe(l1.store); // in place
    const l2b = logAppend(l1, 'c', 3); // fork from l1
    expect(l2b.store).not.toBe(l1.store);
    expect(logToArray(l2)).toEqual([1, 2]);
    expect(logToArray(l2b)).toEqual([1, 3]);
    expect(logToArray(l1)).toEqual([1]);
    expect(logHas(l1, 'b')).toBe(false);
    expect(logGet(l2, 'b')).toBe(2);
    expect(logGet(l2b, 'b')).toBeUndefined();
    expect(() => logAppend(l2, 'a', 9)).toThrow(/duplicate/);
  });
});
