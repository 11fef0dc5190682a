import type { ShoeCommand } from './commands';
import { remainingCards } from './state';
import { DECISION, expectRefused, readyTable, settings, Table, types, when } from './shoe-fixtures.spec';

const openShoe = (overrides = {}): ShoeCommand => ({ type: 'OpenShoe', shoeId: 'S1', tableId: 'T1', dealerId: 'D1', settings: settings(overrides) });

describe('OpenShoe', () => {
  it('given no shoe, when OpenShoe, then ShoeOpened with the settings snapshot and the ref normalised', () => {
    const { events, after } = when([], openShoe({ paytableRef: 'classic-standard' }));
    expect(types(events)).toEqual(['ShoeOpened']);
    expect(events[0].data).toMatchObject({ shoeId: 'S1', tableId: 'T1', dealerId: 'D1', variant: 'classic', decks: 8, paytableRef: 'classic-standard@1' });
    expect(after.status).toBe('OPEN');
    expect(remainingCards(after)).toBe(416);
  });

  it('given a shoe, when OpenShoe again, then SHOE.ALREADY_OPENED', () => {
    expectRefused(new Table().open().events, openShoe(), 'SHOE.ALREADY_OPENED');
  });

  it.each([0, 17, 2.5])('refuses %p decks with SHOE.INVALID_DECK_COUNT', (decks) => {
    expectRefused([], openShoe({ decks }), 'SHOE.INVALID_DECK_COUNT');
  });

  it('accepts 1 and 16 decks', () => {
    expect(when([], openShoe({ decks: 1 })).after.cards!.known.decks).toBe(1);
    expect(when([], openShoe({ decks: 16 })).after.cards!.known.decks).toBe(16);
  });

  it('refuses an unknown paytable (PAYTABLE.UNKNOWN) and one of another variant (PAYTABLE.VARIANT_MISMATCH)', () => {
    expectRefused([], openShoe({ paytableRef: 'nope@1' }), 'PAYTABLE.UNKNOWN');
    expectRefused([], openShoe({ variant: 'classic', paytableRef: 'tiger-standard@1' }), 'PAYTABLE.VARIANT_MISMATCH');
  });

  it('refuses an unknown variant, a malformed currency, limits on a code the variant lacks, and bad limits', () => {
    expectRefused([], openShoe({ variant: 'poker' }), 'VARIANT.UNKNOWN');
    expectRefused([], openShoe({ currency: 'euro' }), 'SETTINGS.INVALID');
    expectRefused([], openShoe({ limits: { TIGER: { min: '1', max: '2' } } }), 'BET.UNKNOWN_CODE');
    expectRefused([], openShoe({ limits: { PLAYER: { min: '200', max: '100' } } }), 'SETTINGS.INVALID');
    expectRefused([], openShoe({ limits: { PLAYER: { min: '0', max: '100' } } }), 'SETTINGS.INVALID');
    expectRefused([], openShoe({ limits: { PLAYER: { min: '1', max: String(2n ** 53n) } } }), 'SETTINGS.INVALID');
    expectRefused([], openShoe({ limits: { PLAYER: { min: '1.5', max: '100' } } }), 'SETTINGS.INVALID');
  });

  it('refuses a missing shoe id with COMMAND.INVALID', () => {
    expectRefused([], { type: 'OpenShoe', shoeId: '', tableId: 'T1', dealerId: 'D1', settings: settings() }, 'COMMAND.INVALID');
  });
});

describe('table facts on a stream without a shoe', () => {
  it.each<ShoeCommand>([
    { type: 'DrawCommencementCard', card: 'AS' },
    { type: 'BurnCard', card: null },
    { type: 'OpenRound', roundId: 'R1' },
    { type: 'PlaceBets', roundId: 'R1', bets: [] },
    { type: 'DealCard', roundId: 'R1', position: 'P1', card: 'AS' },
    { type: 'DrawCutCard' },
    { type: 'CloseShoe' },
    { type: 'VoidRound', roundId: 'R1', decision: DECISION },
    { type: 'VoidShoe', decision: DECISION },
  ])('refuses $type with SHOE.NOT_FOUND', (cmd) => {
    expectRefused([], cmd, 'SHOE.NOT_FOUND');
  });
});

describe('Commencement (§5.1)', () => {
  it('given an open shoe, when the commencement card is a K, then 10 burns are called for', () => {
    const { events, after } = when(new Table().open().events, { type: 'DrawCommencementCard', card: 'KH' });
    expect(events).toEqual([{ eventId: 'w1', type: 'CommencementCardDrawn', data: { card: 'KH', burnCount: 10 } }]);
    expect(after.status).toBe('COMMENCING');
    expect(after.commencement).toMatchObject({ eventId: 'w1', card: 'KH', burnCount: 10, burnsDone: 0 });
    expect(after.cards!.burned).toBe(1);
  });

  it.each([
    ['AS', 1],
    ['7D', 7],
    ['10C', 10],
    ['QS', 10],
  ])('commencement card %s calls for %i burns', (card, n) => {
    expect(when(new Table().open().events, { type: 'DrawCommencementCard', card }).events[0].data).toMatchObject({ burnCount: n });
  });

  it('refuses a second commencement card (COMMENCEMENT.ALREADY_DRAWN) and a malformed one (CARD.MALFORMED)', () => {
    expectRefused(new Table().open().commence().events, { type: 'DrawCommencementCard', card: '3S' }, 'COMMENCEMENT.ALREADY_DRAWN');
    expectRefused(new Table().open().events, { type: 'DrawCommencementCard', card: '1S' }, 'CARD.MALFORMED');
    expectRefused(new Table().open().events, { type: 'DrawCommencementCard', card: 'XX' }, 'CARD.MALFORMED');
  });

  it('burns exactly the count: face-down burns count against the shoe, a burn beyond the count is refused', () => {
    const t = new Table().open();
    t.run({ type: 'DrawCommencementCard', card: '3C' });
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R1' }, 'COMMENCEMENT.INCOMPLETE');
    expect(t.run({ type: 'BurnCard', card: null })[0].data).toEqual({ card: null, phase: 'COMMENCEMENT', burnIndex: 1 });
    expect(t.run({ type: 'BurnCard', card: '9H' })[0].data).toEqual({ card: '9H', phase: 'COMMENCEMENT', burnIndex: 2 });
    expect(t.state.status).toBe('COMMENCING');
    t.run({ type: 'BurnCard', card: null });
    expect(t.state.status).toBe('READY');
    expect(t.state.cards).toMatchObject({ burned: 4, unseen: 2 });
    expect(remainingCards(t.state)).toBe(416 - 4);
    expectRefused(t.events, { type: 'BurnCard', card: null }, 'COMMENCEMENT.BURN_COUNT_EXCEEDED');
  });

  it('refuses a burn before the commencement card (COMMENCEMENT.NOT_DRAWN)', () => {
    expectRefused(new Table().open().events, { type: 'BurnCard', card: null }, 'COMMENCEMENT.NOT_DRAWN');
  });

  it('refuses a burn that would be the ninth copy of a card in an 8-deck shoe', () => {
    const t = new Table().open();
    t.run({ type: 'DrawCommencementCard', card: 'KH' });
    for (let i = 0; i < 8; i++) t.run({ type: 'BurnCard', card: 'QD' });
    expectRefused(t.events, { type: 'BurnCard', card: 'QD' }, 'SHOE.CARD_EXCEEDS_DECKS');
  });

  it('given burns done, when CorrectCommencement, then it compensates the last commencement and burns restart', () => {
    const t = new Table().open();
    t.run({ type: 'DrawCommencementCard', card: '2S' });
    t.run({ type: 'BurnCard', card: null });
    t.run({ type: 'BurnCard', card: '5H' });
    expect(t.state.status).toBe('READY');
    const firstId = t.state.commencement!.eventId;
    const [corrected] = t.run({ type: 'CorrectCommencement', card: '3S', reason: 'card misread by the dealer' });
    expect(corrected).toMatchObject({ type: 'CommencementCorrected', data: { card: '3S', burnCount: 3, reason: 'card misread by the dealer', compensates: firstId } });
    expect(t.state.status).toBe('COMMENCING');
    expect(t.state.commencement).toMatchObject({ card: '3S', burnCount: 3, burnsDone: 0, corrections: 1 });
    // The corrected card replaces 2S in the accounting; the two burns made stay out of the shoe.
    expect(t.state.cards!.known.used['2S'] ?? 0).toBe(0);
    expect(t.state.cards!.known.used['3S']).toBe(1);
    expect(t.state.cards!.burned).toBe(3);
    expect(remainingCards(t.state)).toBe(416 - 3);
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R1' }, 'COMMENCEMENT.INCOMPLETE');
    for (let i = 0; i < 3; i++) t.run({ type: 'BurnCard', card: null });
    expect(t.state.status).toBe('READY');
    expect(remainingCards(t.state)).toBe(416 - 6);
    // A second correction compensates the first correction.
    const [again] = t.run({ type: 'CorrectCommencement', card: 'AH', reason: 'second look' });
    expect(again.data).toMatchObject({ compensates: corrected.eventId, burnCount: 1 });
  });

  it('allows CorrectCommencement while round 1 takes bets; no card is dealt until the new burns are done', () => {
    const t = readyTable();
    t.round('R1', [], false);
    t.run({ type: 'CorrectCommencement', card: '2D', reason: 'wrong card read' });
    expect(t.state.status).toBe('IN_ROUND');
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    expectRefused(t.events, { type: 'DealCard', roundId: 'R1', position: 'P1', card: '4C' }, 'COMMENCEMENT.INCOMPLETE');
    t.run({ type: 'BurnCard', card: null });
    t.run({ type: 'BurnCard', card: null });
    t.deal('R1', '4C');
    expect(t.state.rounds[0].cards).toHaveLength(1);
  });

  it('refuses CorrectCommencement after the first card of the shoe was dealt (COMMENCEMENT.TOO_LATE)', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '2C');
    expectRefused(t.events, { type: 'CorrectCommencement', card: '3S', reason: 'too late now' }, 'COMMENCEMENT.TOO_LATE');
  });

  it('refuses CorrectCommencement without a reason or before any commencement card', () => {
    expectRefused(readyTable().events, { type: 'CorrectCommencement', card: '3S', reason: ' x ' }, 'COMMENCEMENT.REASON_REQUIRED');
    expectRefused(new Table().open().events, { type: 'CorrectCommencement', card: '3S', reason: 'misread' }, 'COMMENCEMENT.NOT_DRAWN');
  });
});

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

describe('CloseShoe and ChangeDealer', () => {
  it('given no round in progress, when CloseShoe, then ShoeClosed with rounds played and cards remaining', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '9S 2H KD 3C');
    const { events, after } = when(t.events, { type: 'CloseShoe' });
    expect(events[0]).toMatchObject({ type: 'ShoeClosed', data: { roundsPlayed: 1, cardsRemaining: 416 - 2 - 4 } });
    expect(after.status).toBe('CLOSED');
  });

  it('refuses CloseShoe while a round is in progress (ROUND.IN_PROGRESS)', () => {
    expectRefused(readyTable().round('R1', [], false).events, { type: 'CloseShoe' }, 'ROUND.IN_PROGRESS');
  });

  it('given a closed shoe, table facts and bets are refused with SHOE.CLOSED', () => {
    const t = readyTable();
    t.run({ type: 'CloseShoe' });
    for (const cmd of [
      { type: 'OpenRound', roundId: 'R1' },
      { type: 'DrawCutCard' },
      { type: 'ExposeCard', card: 'AS' },
      { type: 'ChangeDealer', dealerId: 'D2' },
      { type: 'CloseShoe' },
    ] as ShoeCommand[]) {
      expectRefused(t.events, cmd, 'SHOE.CLOSED');
    }
  });

  it('given a dealer, when ChangeDealer between rounds or during betting, then DealerChanged (the betting round takes the new dealer)', () => {
    const t = readyTable().round('R1', [], false);
    const [changed] = t.run({ type: 'ChangeDealer', dealerId: 'D2' });
    expect(changed.data).toEqual({ previousDealerId: 'D1', dealerId: 'D2' });
    expect(t.state.rounds[0].dealerId).toBe('D2');
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    expectRefused(t.events, { type: 'ChangeDealer', dealerId: 'D3' }, 'DEALER.CHANGE_MID_DEALING');
    expectRefused(t.events, { type: 'ChangeDealer', dealerId: 'D2' }, 'DEALER.CHANGE_MID_DEALING');
    t.deal('R1', '9S 2H KD 3C');
    expectRefused(t.events, { type: 'ChangeDealer', dealerId: 'D2' }, 'DEALER.UNCHANGED');
    expect(t.run({ type: 'ChangeDealer', dealerId: 'D3' })[0].data).toEqual({ previousDealerId: 'D2', dealerId: 'D3' });
  });

  it('refuses an unknown command type with COMMAND.UNKNOWN', () => {
    expectRefused(readyTable().events, { type: 'Shuffle' } as unknown as ShoeCommand, 'COMMAND.UNKNOWN');
  });
});
