import type { ShoeCommand } from '../commands';
import { remainingCards } from '../state';
import { bet, expectRefused, ofType, readyTable, Table, types, when } from '../shoe-fixtures.spec';

const expose = (card: string, phase?: 'SHUFFLE'): ShoeCommand => ({ type: 'ExposeCard', card, ...(phase ? { phase } : {}) });
const drop = (card: string | null, exposedBeforeLeavingView = false, phase?: 'SHUFFLE' | 'SCOOPING'): ShoeCommand => ({
  type: 'DropCard',
  card,
  exposedBeforeLeavingView,
  ...(phase ? { phase } : {}),
});

describe('ExposeCard (§5.3)', () => {
  it('given bets open, when a card is exposed, then CardExposed + RoundVoided (EXPOSED_CARD, causedBy) + a refund per bet', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n), bet('B2', 'TIE', 200n, 'A2')], false);
    const { events, after } = when(t.events, expose('7S'));
    expect(events).toEqual([
      { eventId: 'w1', type: 'CardExposed', data: { roundId: 'R1', card: '7S', phase: 'BETTING_OPEN' } },
      { eventId: 'w2', type: 'RoundVoided', data: { roundId: 'R1', cause: 'EXPOSED_CARD', decision: null, causedBy: 'w1' } },
      {
        eventId: 'w3',
        type: 'BetRefunded',
        data: { betId: 'B1', roundId: 'R1', accountId: 'A1', betCode: 'PLAYER', currency: 'EUR', stake: '1000', compensates: 'w2', revision: 0 },
      },
      {
        eventId: 'w4',
        type: 'BetRefunded',
        data: { betId: 'B2', roundId: 'R1', accountId: 'A2', betCode: 'TIE', currency: 'EUR', stake: '200', compensates: 'w2', revision: 0 },
      },
    ]);
    expect(after.rounds[0]).toMatchObject({ phase: 'VOIDED', voided: { eventId: 'w2', cause: 'EXPOSED_CARD' } });
    expect(after.status).toBe('READY');
    expect(after.cards).toMatchObject({ exposed: 1 });
    // the shoe goes on: the next round is hand 2
    expect(when(fromEvents(t, events), { type: 'OpenRound', roundId: 'R2' }).events[0].data).toEqual({ roundId: 'R2', handNumber: 2 });
  });

  it('during dealing: recorded only, the card counts against the shoe, the round goes on', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    t.deal('R1', '2S');
    const { events, after } = when(t.events, expose('7S'));
    expect(events).toEqual([{ eventId: 'w1', type: 'CardExposed', data: { roundId: 'R1', card: '7S', phase: 'DEALING' } }]);
    expect(after.rounds[0].phase).toBe('DEALING');
    expect(remainingCards(after)).toBe(remainingCards(t.state) - 1);
  });

  it('during commencement or shuffle: recorded only, nothing changes', () => {
    const t = new Table().open();
    const shuffle = when(t.events, expose('7S', 'SHUFFLE'));
    expect(shuffle.events[0].data).toEqual({ roundId: null, card: '7S', phase: 'SHUFFLE' });
    expect(remainingCards(shuffle.after)).toBe(416);
    t.run({ type: 'DrawCommencementCard', card: '4H' });
    const commencement = when(t.events, expose('7S'));
    expect(commencement.events[0].data).toEqual({ roundId: null, card: '7S', phase: 'COMMENCEMENT' });
    expect(remainingCards(commencement.after)).toBe(remainingCards(t.state));
    expect(commencement.after.status).toBe('COMMENCING');
  });

  it('between rounds: recorded, the card counts against the shoe', () => {
    const t = readyTable();
    const { events, after } = when(t.events, expose('7S'));
    expect(events[0].data).toEqual({ roundId: null, card: '7S', phase: 'BETWEEN_ROUNDS' });
    expect(remainingCards(after)).toBe(remainingCards(t.state) - 1);
  });

  it('refuses SHUFFLE once the shoe is in play (CARD.WRONG_PHASE) and a ninth copy', () => {
    expectRefused(readyTable().events, expose('7S', 'SHUFFLE'), 'CARD.WRONG_PHASE');
    const t = readyTable({ decks: 1 });
    t.run(expose('7S'));
    expectRefused(t.events, expose('7S'), 'SHOE.CARD_EXCEEDS_DECKS');
  });
});

describe('DropCard (§5.5)', () => {
  it('during dealing, not exposed before leaving view: CardDropped + RoundVoided (DROPPED_CARD) + refunds; the card is out', () => {
    const t = readyTable().round('R1', [bet('B1', 'BANKER', 500n)]);
    t.deal('R1', '2S 3H');
    const { events, after } = when(t.events, drop(null));
    expect(types(events)).toEqual(['CardDropped', 'RoundVoided', 'BetRefunded']);
    expect(events[0].data).toEqual({ roundId: 'R1', card: null, phase: 'DEALING', exposedBeforeLeavingView: false });
    expect(events[1].data).toEqual({ roundId: 'R1', cause: 'DROPPED_CARD', decision: null, causedBy: 'w1' });
    expect(ofType(events, 'BetRefunded')[0].data).toMatchObject({ betId: 'B1', stake: '500', compensates: 'w2', revision: 0 });
    expect(after.rounds[0].phase).toBe('VOIDED');
    expect(after.cards).toMatchObject({ dropped: 1, unseen: t.state.cards!.unseen + 1 });
    // the shoe resumes
    expect(types(when(fromEvents(t, events), { type: 'OpenRound', roundId: 'R2' }).events)).toEqual(['RoundOpened']);
  });

  it('during dealing, exposed before leaving view: recorded only, reused (no accounting change), the round goes on', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '2S');
    const { events, after } = when(t.events, drop('9D', true));
    expect(events).toEqual([{ eventId: 'w1', type: 'CardDropped', data: { roundId: 'R1', card: '9D', phase: 'DEALING', exposedBeforeLeavingView: true } }]);
    expect(after.rounds[0].phase).toBe('DEALING');
    expect(after.cards).toEqual(t.state.cards);
  });

  it.each<[string, (t: Table) => void, ShoeCommand, string]>([
    ['shuffle', () => {}, drop('3C', false, 'SHUFFLE'), 'SHUFFLE'],
    ['commencement', () => {}, drop('3C'), 'COMMENCEMENT'],
    ['burning', (t) => t.run({ type: 'DrawCommencementCard', card: '5S' }), drop(null), 'BURNING'],
    ['scooping between rounds', (t) => t.commence(), drop('3C'), 'SCOOPING'],
    ['scooping while the next bets are open', (t) => t.commence().round('R1', [], false), drop('3C', false, 'SCOOPING'), 'SCOOPING'],
  ])('during %s: recorded only, reused', (_label, setup, cmd, phase) => {
    const t = new Table().open();
    setup(t);
    const { events, after } = when(t.events, cmd);
    expect(types(events)).toEqual(['CardDropped']);
    expect(events[0].data).toMatchObject({ phase });
    expect(after.cards).toEqual(t.state.cards);
  });

  it('refuses a drop while bets are open without saying SCOOPING, and SCOOPING while dealing (CARD.WRONG_PHASE)', () => {
    const t = readyTable().round('R1', [], false);
    expectRefused(t.events, drop('3C'), 'CARD.WRONG_PHASE');
    t.run({ type: 'CloseBetting', roundId: 'R1' });
    expectRefused(t.events, drop('3C', false, 'SCOOPING'), 'CARD.WRONG_PHASE');
    expectRefused(t.events, drop('3C', false, 'SHUFFLE'), 'CARD.WRONG_PHASE');
  });
});

function fromEvents(t: Table, more: Table['events']): Table['events'] {
  return [...t.events, ...more];
}
