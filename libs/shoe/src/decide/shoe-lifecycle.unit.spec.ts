import type { ShoeCommand } from '../commands';
import { remainingCards } from '../state';
import { DECISION, expectRefused, readyTable, settings, Table, types, when } from '../shoe-fixtures.spec';

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
    for (const cmd of [{ type: 'OpenRound', roundId: 'R1' }, { type: 'DrawCutCard' }, { type: 'ExposeCard', card: 'AS' }, { type: 'ChangeDealer', dealerId: 'D2' }, { type: 'CloseShoe' }] as ShoeCommand[]) {
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
