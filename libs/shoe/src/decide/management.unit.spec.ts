import type { DecisionInput, ShoeCommand } from '../commands';
import { betSettlement, remainingCards } from '../state';
import { bet, DECISION, expectRefused, ofType, readyTable, Table, types, when } from '../shoe-fixtures.spec';

const voidRound = (roundId: string, decision: DecisionInput = DECISION): ShoeCommand => ({ type: 'VoidRound', roundId, decision });
const correct = (roundId: string, cards: string, decision: DecisionInput = DECISION): ShoeCommand => ({
  type: 'CorrectResult',
  roundId,
  cards: cards.split(' '),
  decision,
});

/** Round R1 with a PLAYER and a BANKER bet, resulted: Player 9 (natural) against Banker 5. */
function resulted(): Table {
  const t = readyTable().round('R1', [bet('B1', 'PLAYER', 1000n, 'A1'), bet('B2', 'BANKER', 1000n, 'A2')]);
  t.deal('R1', '9S 2H KD 3C');
  return t;
}

describe('management decision checks (§6)', () => {
  it.each<[string, Partial<DecisionInput>, string]>([
    ['no reason', { reason: '' }, 'MANAGEMENT.REASON_REQUIRED'],
    ['a 2-character reason', { reason: ' ab ' }, 'MANAGEMENT.REASON_REQUIRED'],
    ['a 501-character reason', { reason: 'x'.repeat(501) }, 'MANAGEMENT.REASON_REQUIRED'],
    ['a reason of zero-width spaces', { reason: '\u200b\u200b\u200b\u200b' }, 'MANAGEMENT.REASON_REQUIRED'],
    ['a reason with 2 visible characters', { reason: 'o\u200bk\u2060\ufeff' }, 'MANAGEMENT.REASON_REQUIRED'],
    ['no approver', { approverId: '' }, 'MANAGEMENT.MANAGER_REQUIRED'],
    ['the same manager twice', { approverId: 'PM1' }, 'MANAGEMENT.SAME_APPROVER'],
    ['the dealer acting', { actingManagerId: 'D1' }, 'MANAGEMENT.DEALER_CANNOT_DECIDE'],
    ['the dealer approving', { approverId: 'D1' }, 'MANAGEMENT.DEALER_CANNOT_DECIDE'],
  ])('refuses a decision with %s', (_label, patch, code) => {
    const t = resulted();
    const decision = { ...DECISION, ...patch };
    expectRefused(t.events, voidRound('R1', decision), code as never);
    expectRefused(t.events, correct('R1', '2S 9H 3D KC', decision), code as never);
    expectRefused(t.events, { type: 'VoidShoe', decision }, code as never);
  });

  it('accepts a reason of 3 and of 500 characters, trimmed', () => {
    const t = resulted();
    expect(when(t.events, voidRound('R1', { ...DECISION, reason: '  abc ' })).events[0].data).toMatchObject({ decision: { reason: 'abc' } });
    expect(types(when(t.events, voidRound('R1', { ...DECISION, reason: 'x'.repeat(500) })).events)).toContain('RoundVoided');
  });

  it("checks the round's dealer, not the dealer now at the table", () => {
    const t = resulted();
    t.run({ type: 'ChangeDealer', dealerId: 'D2' });
    expectRefused(t.events, voidRound('R1', { ...DECISION, approverId: 'D1' }), 'MANAGEMENT.DEALER_CANNOT_DECIDE');
    expect(types(when(t.events, voidRound('R1', { ...DECISION, approverId: 'D2' })).events)).toContain('RoundVoided');
  });
});

describe('VoidRound', () => {
  it('given a resulted round, then RoundVoided compensating the RoundResulted + BetRefunded ending revision 1', () => {
    const t = resulted();
    const resultId = t.state.rounds[0].resultEventId!;
    const { events, after } = when(t.events, voidRound('R1'));
    expect(events[0]).toEqual({
      eventId: 'w1',
      type: 'RoundVoided',
      data: { roundId: 'R1', cause: 'MANAGEMENT', causedBy: null, decision: { ...DECISION, compensates: resultId } },
    });
    expect(ofType(events, 'BetRefunded').map((e) => e.data)).toEqual([
      { betId: 'B1', roundId: 'R1', accountId: 'A1', betCode: 'PLAYER', currency: 'EUR', stake: '1000', compensates: 'w1', revision: 1 },
      { betId: 'B2', roundId: 'R1', accountId: 'A2', betCode: 'BANKER', currency: 'EUR', stake: '1000', compensates: 'w1', revision: 1 },
    ]);
    expect(after.rounds[0]).toMatchObject({ phase: 'VOIDED', voided: { cause: 'MANAGEMENT', eventId: 'w1' } });
    expect(betSettlement(after.rounds[0], 'B1')).toEqual({ kind: 'REFUNDED', eventId: 'w2', revision: 1 });
    expect(after.status).toBe('READY');
  });

  it('given a round in betting, then it compensates the RoundOpened; the shoe can open the next round', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')], false);
    const { events, after } = when(t.events, voidRound('R1'));
    expect(events[0].data).toMatchObject({ decision: { compensates: t.state.rounds[0].openedEventId } });
    expect(ofType(events, 'BetRefunded')[0].data.revision).toBe(0);
    expect(after.status).toBe('READY');
  });

  it('given a round being dealt, then it is voided mid-dealing', () => {
    const t = readyTable().round('R1', [bet('B1', 'PLAYER')]);
    t.deal('R1', '2S 3H');
    expect(types(when(t.events, voidRound('R1')).events)).toEqual(['RoundVoided', 'BetRefunded']);
  });

  it('works on an earlier round while the current one is in progress, and after the shoe closed', () => {
    const t = resulted();
    t.round('R2', [], false);
    const mid = when(t.events, voidRound('R1'));
    expect(mid.after.status).toBe('IN_ROUND');
    expect(mid.after.rounds[1].phase).toBe('BETTING');
    t.run({ type: 'VoidRound', roundId: 'R2', decision: DECISION });
    t.run({ type: 'CloseShoe' });
    expect(types(when(t.events, voidRound('R1')).events)).toEqual(['RoundVoided', 'BetRefunded', 'BetRefunded']);
    expect(when(t.events, voidRound('R1')).after.status).toBe('CLOSED');
  });

  it('refuses an unknown round (ROUND.NOT_FOUND) and a voided one (ROUND.ALREADY_VOIDED)', () => {
    const t = resulted();
    expectRefused(t.events, voidRound('R9'), 'ROUND.NOT_FOUND');
    t.run(voidRound('R1'));
    expectRefused(t.events, voidRound('R1'), 'ROUND.ALREADY_VOIDED');
  });
});

describe('CorrectResult (§5.4)', () => {
  it('given a resulted round, then ResultCorrected + BetResettled per bet with revision 2, compensating the settlements', () => {
    const t = resulted();
    const r = t.state.rounds[0];
    const settledIds = ofType(t.events, 'BetSettled').map((e) => e.eventId);
    // Corrected: Player 2 4 = 6 stands, Banker 9 8 = 7 stands: Banker wins.
    const { events, after } = when(t.events, correct('R1', '2S 9H 4D 8C'));
    expect(types(events)).toEqual(['ResultCorrected', 'BetResettled', 'BetResettled']);
    expect(events[0].data).toEqual({
      roundId: 'R1',
      cards: ['2S', '9H', '4D', '8C'],
      previousOutcome: r.outcome,
      outcome: { player: ['2S', '4D'], banker: ['9H', '8C'], playerTotal: 6, bankerTotal: 7, winner: 'BANKER', natural: false, playerPair: false, bankerPair: false },
      decision: { ...DECISION, compensates: r.resultEventId },
      paytableRef: 'classic-standard@1',
    });
    const resettled = ofType(events, 'BetResettled').map((e) => e.data);
    expect(resettled[0]).toMatchObject({ betId: 'B1', result: 'LOSE', net: '-1000', revision: 2, compensates: settledIds[0] });
    expect(resettled[1]).toMatchObject({ betId: 'B2', result: 'WIN', winnings: '950', payout: '1950', revision: 2, compensates: settledIds[1] });
    expect(after.rounds[0]).toMatchObject({ phase: 'RESULTED', resultEventId: 'w1', outcome: { winner: 'BANKER' } });
    expect(after.rounds[0].cards.map((c) => c.code)).toEqual(['2S', '9H', '4D', '8C']);
    expect(betSettlement(after.rounds[0], 'B2')).toEqual({ kind: 'RESETTLED', eventId: 'w3', revision: 2 });
    // The accounting now holds the corrected cards instead of the recorded ones.
    expect(after.cards!.known.used['9S'] ?? 0).toBe(0);
    expect(after.cards!.known.used['8C']).toBe(1);
    expect(remainingCards(after)).toBe(remainingCards(t.state));
  });

  it('corrects a correction: the second compensates the first and its resettlements', () => {
    const t = resulted();
    const [first, ...firstSettlements] = t.run(correct('R1', '2S 9H 4D 8C'));
    const { events } = when(t.events, correct('R1', '9S 2H KD 3C'));
    expect(events[0].data).toMatchObject({ decision: { compensates: first.eventId }, previousOutcome: { winner: 'BANKER' }, outcome: { winner: 'PLAYER' } });
    expect(ofType(events, 'BetResettled').map((e) => [e.data.revision, e.data.compensates])).toEqual(firstSettlements.map((e) => [3, e.eventId]));
  });

  it('accepts a round of a different length (the accounting follows)', () => {
    const t = resulted();
    const { after } = when(t.events, correct('R1', '2S 2H 3D 3C 4D 5H'));
    expect(after.cards!.dealt).toBe(6);
    expect(remainingCards(after)).toBe(remainingCards(t.state) - 2);
  });

  it('refuses cards that do not form a complete tableau-valid round', () => {
    const t = resulted();
    expectRefused(t.events, correct('R1', '2S 9H 3D'), 'TABLEAU.INSUFFICIENT_CARDS');
    expectRefused(t.events, correct('R1', '2S 2H 3D 3C'), 'TABLEAU.INSUFFICIENT_CARDS');
    expectRefused(t.events, correct('R1', '9S 2H KD 3C 5D'), 'TABLEAU.VIOLATION');
    expectRefused(t.events, correct('R1', '9S 2H KD ZZ'), 'CARD.MALFORMED');
  });

  it('refuses the very cards already in force (RESULT.UNCHANGED)', () => {
    expectRefused(resulted().events, correct('R1', '9S 2H KD 3C'), 'RESULT.UNCHANGED');
  });

  it('checks the corrected cards against the shoe once the original cards are returned', () => {
    // 1-deck shoe: AS commencement, one burn; round R1 used 9S 2H KD 3C; R2 uses 4S 4H 4D 4C.
    const t = readyTable({ decks: 1 }).round('R1');
    t.deal('R1', '9S 2H KD 3C');
    t.round('R2');
    t.deal('R2', '4S 4H 4D 4C');
    // 9S may stay (returned then taken again); 4S is already out in R2; AS is the commencement card.
    expect(types(when(t.events, correct('R1', '9S 2H KD 5C')).events)).toContain('ResultCorrected');
    expectRefused(t.events, correct('R1', '4S 2H 5D 3C'), 'SHOE.CARD_EXCEEDS_DECKS');
    expectRefused(t.events, correct('R1', 'AS 2H 7D 3C'), 'SHOE.CARD_EXCEEDS_DECKS');
  });

  it('refuses a round without a result (ROUND.NOT_RESULTED) and a voided one (ROUND.ALREADY_VOIDED)', () => {
    const t = readyTable().round('R1');
    t.deal('R1', '2S');
    expectRefused(t.events, correct('R1', '9S 2H KD 3C'), 'ROUND.NOT_RESULTED');
    const v = resulted();
    v.run(voidRound('R1'));
    expectRefused(v.events, correct('R1', '2S 9H 4D 8C'), 'ROUND.ALREADY_VOIDED');
  });

  it('a later void compensates the correction and refunds end revision 2', () => {
    const t = resulted();
    const [corrected, ...resettled] = t.run(correct('R1', '2S 9H 4D 8C'));
    const { events } = when(t.events, voidRound('R1'));
    expect(events[0].data).toMatchObject({ decision: { compensates: corrected.eventId } });
    expect(ofType(events, 'BetRefunded').map((e) => e.data.revision)).toEqual([2, 2]);
    expect(resettled).toHaveLength(2);
  });

  it('works after the shoe closed', () => {
    const t = resulted();
    t.run({ type: 'CloseShoe' });
    expect(types(when(t.events, correct('R1', '2S 9H 4D 8C')).events)).toEqual(['ResultCorrected', 'BetResettled', 'BetResettled']);
  });
});

describe('VoidShoe', () => {
  it('voids the shoe and every round not yet voided, refunding their bets', () => {
    const t = resulted(); // R1 resulted with 2 bets
    t.round('R2', [bet('B3', 'TIE', 100n)], false);
    t.run(voidRound('R2'));
    t.round('R3', [bet('B4', 'PLAYER', 300n)], false);
    const opened = t.state.openedEventId;
    const { events, after } = when(t.events, { type: 'VoidShoe', decision: DECISION });
    expect(types(events)).toEqual(['ShoeVoided', 'RoundVoided', 'BetRefunded', 'BetRefunded', 'RoundVoided', 'BetRefunded']);
    expect(events[0].data).toEqual({ decision: { ...DECISION, compensates: opened }, roundIds: ['R1', 'R3'] });
    expect(events[1].data).toEqual({ roundId: 'R1', cause: 'SHOE_VOIDED', decision: null, causedBy: 'w1' });
    expect(ofType(events, 'BetRefunded').map((e) => [e.data.betId, e.data.revision, e.data.compensates])).toEqual([
      ['B1', 1, 'w2'],
      ['B2', 1, 'w2'],
      ['B4', 0, 'w5'],
    ]);
    expect(after.status).toBe('VOIDED');
    expect(after.rounds.map((r) => r.phase)).toEqual(['VOIDED', 'VOIDED', 'VOIDED']);
  });

  it('checks the dealer now at the table', () => {
    expectRefused(resulted().events, { type: 'VoidShoe', decision: { ...DECISION, actingManagerId: 'D1' } }, 'MANAGEMENT.DEALER_CANNOT_DECIDE');
  });

  it('works after close; refused once voided (SHOE.ALREADY_VOIDED); a voided shoe refuses table facts (SHOE.VOIDED)', () => {
    const t = resulted();
    t.run({ type: 'CloseShoe' });
    t.run({ type: 'VoidShoe', decision: DECISION });
    expectRefused(t.events, { type: 'VoidShoe', decision: DECISION }, 'SHOE.ALREADY_VOIDED');
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R2' }, 'SHOE.VOIDED');
    expectRefused(t.events, { type: 'CloseShoe' }, 'SHOE.VOIDED');
    expectRefused(t.events, voidRound('R1'), 'ROUND.ALREADY_VOIDED');
  });
});
