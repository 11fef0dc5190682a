import { remainingCards } from '../state';
import { expectRefused, readyTable, Table, when } from '../shoe-fixtures.spec';

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
