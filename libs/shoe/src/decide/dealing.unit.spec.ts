import { parseCard, type Card, type Position } from '@ledger/rules';
import type { ShoeCommand } from '../commands';
import { remainingCards } from '../state';
import { bet, DECISION, expectRefused, ofType, readyTable, Table, types, when } from '../shoe-fixtures.spec';

const deal = (position: Position, card: string, roundId = 'R1'): ShoeCommand => ({ type: 'DealCard', roundId, position, card });

describe('DealCard (§1, §2)', () => {
  it('given a round in dealing, when the first card, then CardDealt with the canonical card and the accounting counts it', () => {
    const t = readyTable().round('R1');
    const { events, after } = when(t.events, deal('P1', '10h'));
    expect(events).toEqual([{ eventId: 'w1', type: 'CardDealt', data: { roundId: 'R1', position: 'P1', card: 'TH' } }]);
    expect(after.rounds[0].cards.map((c) => c.code)).toEqual(['TH']);
    expect(after.cards).toMatchObject({ dealt: 1 });
    expect(after.firstCardDealt).toBe(true);
    expect(remainingCards(after)).toBe(remainingCards(t.state) - 1);
  });

  it('given a card the edge already parsed, then the same events as for its text (the HTTP side parses a card once)', () => {
    const t = readyTable().round('R1');
    expect(when(t.events, { type: 'DealCard', roundId: 'R1', position: 'P1', card: parseCard('10h') }).events).toEqual(when(t.events, deal('P1', '10h')).events);
  });

  it('refuses an object that only looks like a card (CARD.MALFORMED)', () => {
    const t = readyTable().round('R1');
    const fake = { rank: 'T', suit: 'H', code: 'TH' } as unknown as Card;
    expectRefused(t.events, { type: 'DealCard', roundId: 'R1', position: 'P1', card: fake }, 'CARD.MALFORMED');
  });

  it('refuses a card while betting is open (ROUND.BETTING_OPEN)', () => {
    expectRefused(readyTable().round('R1', [], false).events, deal('P1', '2S'), 'ROUND.BETTING_OPEN');
  });

  it('refuses a malformed card (CARD.MALFORMED)', () => {
    const t = readyTable().round('R1');
    for (const card of ['', '1S', 'KX', '11H', 'K', 'KHH']) expectRefused(t.events, deal('P1', card), 'CARD.MALFORMED');
    expectRefused(t.events, deal('P1', 42 as unknown as string), 'CARD.MALFORMED');
  });

  it('refuses a ninth KH in an 8-deck shoe (SHOE.CARD_EXCEEDS_DECKS)', () => {
    const t = new Table().open();
    t.run({ type: 'DrawCommencementCard', card: 'KH' });
    for (let i = 0; i < 7; i++) t.run({ type: 'BurnCard', card: 'KH' });
    for (let i = 0; i < 3; i++) t.run({ type: 'BurnCard', card: null });
    t.round('R1');
    expect(t.state.cards!.known.used['KH']).toBe(8);
    const err = expectRefused(t.events, deal('P1', 'KH'), 'SHOE.CARD_EXCEEDS_DECKS');
    expect(err.details).toMatchObject({ card: 'KH', decks: 8, alreadyUsed: 8 });
    expect(types(when(t.events, deal('P1', 'KS')).events)).toEqual(['CardDealt']);
  });

  it('refuses a second 7C in a 1-deck shoe', () => {
    const t = readyTable({ decks: 1 }).round('R1');
    t.deal('R1', '7C');
    expectRefused(t.events, deal('B1', '7C'), 'SHOE.CARD_EXCEEDS_DECKS');
  });

  describe('the tableau (§2): TABLEAU.VIOLATION with details.violation', () => {
    const cases: [string, string, Position, string][] = [
      ['out of order: B1 first', '', 'B1', 'OUT_OF_ORDER'],
      ['out of order: P2 before B1', '2S', 'P2', 'OUT_OF_ORDER'],
      ['Player 6 must stand', '6S 2H KD 2C', 'P3', 'PLAYER_MUST_STAND'],
      ['Player 5 must draw before the Banker', '2S 2H 3D 3C', 'B3', 'PLAYER_MUST_DRAW'],
      ['a third card after a natural', '9S 2H KD 3C', 'P3', 'NATURAL_NO_DRAW'],
      ['a Banker third card when the Banker must stand (Player stood, Banker 6)', '6S 3H KD 3C', 'B3', 'BANKER_MUST_STAND'],
      ['a Banker third card when the Banker must stand (Banker 7 after the Player drew)', '2S 7H 3D KC 4D', 'B3', 'BANKER_MUST_STAND'],
      ['a card after a six-card round', '2S 2H 3D 3C 4D 5H', 'B3', 'ROUND_COMPLETE'],
    ];
    it.each(cases)('%s', (_label, before, position, violation) => {
      const t = readyTable().round('R1');
      if (before) t.deal('R1', before);
      const err = expectRefused(t.events, deal(position, '5S'), 'TABLEAU.VIOLATION');
      expect(err.details).toMatchObject({ violation, position });
    });
  });

  it('given the card that completes the round, then CardDealt + RoundResulted + BetSettled per bet (exact, rounded down, fraction recorded)', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n, 'A1'), bet('B2', 'BANKER', 105n, 'A2'), bet('B3', 'TIE', 100n, 'A3'), bet('B4', 'EITHER_PAIR', 200n, 'A4')]);
    t.deal('R1', '2S 9H 3S');
    const { events, after } = when(t.events, deal('B2', 'KH'));
    expect(types(events)).toEqual(['CardDealt', 'RoundResulted', 'BetSettled', 'BetSettled', 'BetSettled', 'BetSettled']);
    expect(events[1]).toEqual({
      eventId: 'w2',
      type: 'RoundResulted',
      data: {
        roundId: 'R1',
        handNumber: 1,
        paytableRef: 'classic-standard@1',
        outcome: { player: ['2S', '3S'], banker: ['9H', 'KH'], playerTotal: 5, bankerTotal: 9, winner: 'BANKER', natural: true, playerPair: false, bankerPair: false },
      },
    });
    const settled = ofType(events, 'BetSettled').map((e) => e.data);
    expect(settled[0]).toEqual({
      betId: 'B1',
      roundId: 'R1',
      accountId: 'A1',
      betCode: 'PLAYER',
      currency: 'EUR',
      result: 'LOSE',
      stake: '1000',
      winnings: '0',
      payout: '0',
      net: '-1000',
      dropped: '0',
      paytableRef: 'classic-standard@1',
      revision: 1,
    });
    // Banker 0.95:1 on 105: winnings 99.75 → 99, the 3/4 of a cent dropped is recorded (§4).
    expect(settled[1]).toMatchObject({ betId: 'B2', result: 'WIN', stake: '105', winnings: '99', payout: '204', net: '99', dropped: '3/4' });
    expect(settled[2]).toMatchObject({ betId: 'B3', result: 'LOSE', net: '-100' });
    expect(settled[3]).toMatchObject({ betId: 'B4', result: 'LOSE', net: '-200' });
    expect(after.rounds[0]).toMatchObject({ phase: 'RESULTED', resultEventId: 'w2', outcome: { winner: 'BANKER' } });
    expect(after.status).toBe('READY');
  });

  it('pushes Player and Banker on a tie, pays pairs', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n), bet('B2', 'BANKER', 1000n), bet('B3', 'PLAYER_PAIR', 100n), bet('B4', 'TIE', 100n)]);
    // Player 4 4 = 8, Banker 4 4 = 8: natural tie, both pairs.
    const events = t.deal('R1', '4S 4H 4D 4C');
    const byBet = Object.fromEntries(ofType(events, 'BetSettled').map((e) => [e.data.betId, e.data]));
    expect(byBet.B1).toMatchObject({ result: 'PUSH', payout: '1000', net: '0' });
    expect(byBet.B2).toMatchObject({ result: 'PUSH', payout: '1000', net: '0' });
    expect(byBet.B3).toMatchObject({ result: 'WIN', winnings: '1100', payout: '1200' });
    expect(byBet.B4).toMatchObject({ result: 'WIN', winnings: '800', payout: '900' });
  });

  it('results a six-card round only after B3', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    expect(types(t.deal('R1', '2S 2H 3D 3C 4D'))).toEqual(['CardDealt', 'CardDealt', 'CardDealt', 'CardDealt', 'CardDealt']);
    const { events } = when(t.events, deal('B3', '5H'));
    expect(types(events)).toEqual(['CardDealt', 'RoundResulted', 'BetSettled']);
    expect(ofType(events, 'RoundResulted')[0].data.outcome).toMatchObject({ player: ['2S', '3D', '4D'], banker: ['2H', '3C', '5H'], playerTotal: 9, bankerTotal: 0 });
  });

  it('refuses cards for an earlier round (ROUND.NOT_CURRENT), an unknown one (ROUND.NOT_FOUND) and a voided one (ROUND.NOT_DEALING)', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '9S 2H KD 3C');
    t.round('R2');
    expectRefused(t.events, deal('P1', '2C', 'R1'), 'ROUND.NOT_CURRENT');
    expectRefused(t.events, deal('P1', '2C', 'R7'), 'ROUND.NOT_FOUND');
    t.run({ type: 'VoidRound', roundId: 'R2', decision: DECISION });
    expectRefused(t.events, deal('P1', '2C', 'R2'), 'ROUND.NOT_DEALING');
  });
});

describe('DrawUnneededCard (§5.3)', () => {
  it('while dealing: the card leaves the shoe but not into the hand', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '2S 2H');
    const { events, after } = when(t.events, { type: 'DrawUnneededCard', roundId: 'R1', card: 'QC' });
    expect(events).toEqual([{ eventId: 'w1', type: 'UnneededCardDrawn', data: { roundId: 'R1', card: 'QC' } }]);
    expect(after.rounds[0].cards).toHaveLength(2);
    expect(after.rounds[0].unneeded).toEqual(['QC']);
    expect(after.cards).toMatchObject({ unneeded: 1, dealt: 2 });
    expect(remainingCards(after)).toBe(remainingCards(t.state) - 1);
  });

  it('right after the result: accepted; the result stands', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    t.deal('R1', '9S 2H KD 3C');
    const { events, after } = when(t.events, { type: 'DrawUnneededCard', roundId: 'R1', card: '5D' });
    expect(types(events)).toEqual(['UnneededCardDrawn']);
    expect(after.rounds[0]).toMatchObject({ phase: 'RESULTED', outcome: { winner: 'PLAYER' } });
  });

  it('refuses it while bets are open (ROUND.NOT_DEALING), once the next round opened (ROUND.NOT_CURRENT), and a ninth copy', () => {
    const t = readyTable().round('R1', [], false);
    expectRefused(t.events, { type: 'DrawUnneededCard', roundId: 'R1', card: '5D' }, 'ROUND.NOT_DEALING');
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    t.deal('R1', '9S 2H KD 3C');
    t.round('R2', [], false);
    expectRefused(t.events, { type: 'DrawUnneededCard', roundId: 'R1', card: '5D' }, 'ROUND.NOT_CURRENT');
    const one = readyTable({ decks: 1 }).round('R1');
    one.deal('R1', '5D');
    expectRefused(one.events, { type: 'DrawUnneededCard', roundId: 'R1', card: '5D' }, 'SHOE.CARD_EXCEEDS_DECKS');
  });
});

describe('DrawCutCard (§5.2)', () => {
  it('during dealing: CutCardDrawn DURING_DEALING; the round is the last hand and no further round opens', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    t.deal('R1', '2S 3H');
    const { events, after } = when(t.events, { type: 'DrawCutCard' });
    expect(events).toEqual([{ eventId: 'w1', type: 'CutCardDrawn', data: { roundId: 'R1', timing: 'DURING_DEALING' } }]);
    expect(after).toMatchObject({ noMoreRounds: true, lastHandRoundId: 'R1', cutCard: { eventId: 'w1', timing: 'DURING_DEALING', roundId: 'R1' } });
    expect(after.rounds[0].lastHand).toBe(true);
    // the last hand is dealt to its end and settled
    t.run({ type: 'DrawCutCard' });
    expect(types(t.deal('R1', '4D 5C'))).toContain('BetSettled');
    expect(t.state.rounds[0].phase).toBe('RESULTED');
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R2' }, 'SHOE.NO_MORE_ROUNDS');
    expect(types(t.run({ type: 'CloseShoe' }))).toEqual(['ShoeClosed']);
  });

  it('while bets are open: CutCardDrawn BEFORE_DEALING + RoundVoided (CUT_CARD) + refunds; no further round', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER', 700n)], false);
    const { events, after } = when(t.events, { type: 'DrawCutCard' });
    expect(types(events)).toEqual(['CutCardDrawn', 'RoundVoided', 'BetRefunded']);
    expect(events[0].data).toEqual({ roundId: 'R1', timing: 'BEFORE_DEALING' });
    expect(events[1].data).toEqual({ roundId: 'R1', cause: 'CUT_CARD', decision: null, causedBy: 'w1' });
    expect(events[2].data).toMatchObject({ betId: 'B1', stake: '700', compensates: 'w2' });
    expect(after.rounds[0].phase).toBe('VOIDED');
    expect(after.lastHandRoundId).toBeNull();
    expectRefused(fromEvents(t, events), { type: 'OpenRound', roundId: 'R2' }, 'SHOE.NO_MORE_ROUNDS');
  });

  it('between rounds: CutCardDrawn BETWEEN_ROUNDS; no further round', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '9S 2H KD 3C');
    const { events } = when(t.events, { type: 'DrawCutCard' });
    expect(events[0].data).toEqual({ roundId: null, timing: 'BETWEEN_ROUNDS' });
    expectRefused(fromEvents(t, events), { type: 'OpenRound', roundId: 'R2' }, 'SHOE.NO_MORE_ROUNDS');
  });

  it('refuses a second cut card (CUT_CARD.ALREADY_DRAWN) and one before the commencement is done', () => {
    const t = readyTable();
    t.run({ type: 'DrawCutCard' });
    expectRefused(t.events, { type: 'DrawCutCard' }, 'CUT_CARD.ALREADY_DRAWN');
    expectRefused(new Table().open().events, { type: 'DrawCutCard' }, 'COMMENCEMENT.INCOMPLETE');
  });
});

function fromEvents(t: Table, more: Table['events']): Table['events'] {
  return [...t.events, ...more];
}
