import { builtInPaytable, resultRound } from '@ledger/rules';
import { roundOutcomeData, type NewEvent } from '@ledger/events';
import { putBack, takeOut, type CardAccounting } from '../accounting';
import type { DecideContext, ShoeCommandOf } from '../commands';
import { DomainError } from '../errors';
import { logValues } from '../keyed-log';
import { betSettlement, type ShoeState } from '../state';
import { alreadyVoided, checkDecision, requireCard, requireRound, requireShoe } from './guards';
import { autoVoid, refunds, settlement } from './settlements';

/**
 * Management decisions (docs/domain-rules.md §6): void a round, correct a result (§5.4), void the
 * shoe. Each needs a reason, an acting and a second approving manager, neither of them the dealer
 * concerned; each is a compensating event naming what it compensates. They remain possible after
 * the shoe closed. Section signs (§) are those of docs/domain-rules.md.
 */

/**
 * `VoidRound` → RoundVoided (MANAGEMENT, compensating the result in force or the RoundOpened) +
 * a BetRefunded per bet. Any phase, any round of the shoe.
 * @throws `SHOE.NOT_FOUND`, `ROUND.NOT_FOUND`, `ROUND.ALREADY_VOIDED`, `MANAGEMENT.*`
 */
export function voidRound(s: ShoeState, cmd: ShoeCommandOf<'VoidRound'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  const round = requireRound(shoe, cmd.roundId);
  if (round.phase === 'VOIDED') throw alreadyVoided(round);
  const decision = checkDecision(cmd.decision, round.dealerId, round.resultEventId ?? round.openedEventId, { roundId: round.roundId });
  const voided: NewEvent = { eventId: ctx.newId(), type: 'RoundVoided', data: { roundId: round.roundId, cause: 'MANAGEMENT', decision, causedBy: null } };
  return [voided, ...refunds(round, voided.eventId, ctx)];
}

/**
 * `CorrectResult` (§5.4) → ResultCorrected (the corrected cards, the previous and the new
 * outcome) + a BetResettled per bet, one revision up, compensating the settlement in force.
 * @throws `SHOE.NOT_FOUND`, `ROUND.NOT_FOUND`, `ROUND.ALREADY_VOIDED`, `ROUND.NOT_RESULTED`,
 *   `MANAGEMENT.*`, `COMMAND.INVALID` (cards not a list), `CARD.MALFORMED`, `TABLEAU.*` (not a
 *   complete round the tableau allows), `RESULT.UNCHANGED`, `SHOE.CARD_EXCEEDS_DECKS` (checked
 *   once the round's recorded cards are returned to the shoe)
 */
export function correctResult(s: ShoeState, cmd: ShoeCommandOf<'CorrectResult'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  const round = requireRound(shoe, cmd.roundId);
  if (round.phase === 'VOIDED') throw alreadyVoided(round);
  if (round.phase !== 'RESULTED' || !round.outcome || !round.resultEventId) {
    throw new DomainError('ROUND.NOT_RESULTED', `round ${round.roundId} has no result to correct (${round.phase})`, { roundId: round.roundId, phase: round.phase });
  }
  const decision = checkDecision(cmd.decision, round.dealerId, round.resultEventId, { roundId: round.roundId });
  if (!Array.isArray(cmd.cards)) throw new DomainError('COMMAND.INVALID', 'cards must be a list of cards in dealing order', { field: 'cards' });
  const cards = cmd.cards.map((c) => requireCard(c));
  const outcome = resultRound(cards); // TABLEAU.INSUFFICIENT_CARDS / TABLEAU.VIOLATION
  if (cards.length === round.cards.length && cards.every((c, i) => c === round.cards[i])) {
    throw new DomainError('RESULT.UNCHANGED', `round ${round.roundId} already has exactly these cards`, { roundId: round.roundId });
  }
  // The corrected cards must fit the shoe once the round's recorded cards are returned to it.
  let acc: CardAccounting = shoe.cards;
  for (const c of round.cards) acc = putBack(acc, c, 'dealt');
  for (const c of cards) acc = takeOut(acc, c, 'dealt');

  const paytable = builtInPaytable(shoe.settings.paytableRef);
  const corrected: NewEvent = {
    eventId: ctx.newId(),
    type: 'ResultCorrected',
    data: {
      roundId: round.roundId,
      cards: cards.map((c) => c.code),
      previousOutcome: round.outcome,
      outcome: roundOutcomeData(outcome),
      decision,
      paytableRef: paytable.ref,
    },
  };
  const events: NewEvent[] = [corrected];
  for (const bet of logValues(round.bets)) {
    const current = betSettlement(round, bet.betId);
    if (!current) throw new DomainError('EVENT.INCONSISTENT', `bet ${bet.betId} of resulted round ${round.roundId} has no settlement`, { betId: bet.betId });
    events.push({
      eventId: ctx.newId(),
      type: 'BetResettled',
      data: { ...settlement(bet, outcome, paytable, current.revision + 1), compensates: current.eventId },
    });
  }
  return events;
}

/**
 * `VoidShoe` → ShoeVoided (compensating the ShoeOpened) + for each round not yet voided a
 * RoundVoided SHOE_VOIDED and a BetRefunded per bet. The managers are checked against the dealer
 * now at the table, nor the dealer of any round of the shoe (docs/domain-rules.md §6).
 * @throws `SHOE.NOT_FOUND`, `SHOE.ALREADY_VOIDED`, `MANAGEMENT.*`
 */
export function voidShoe(s: ShoeState, cmd: ShoeCommandOf<'VoidShoe'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  if (shoe.status === 'VOIDED') throw new DomainError('SHOE.ALREADY_VOIDED', `shoe ${shoe.shoeId} is already voided`, { shoeId: shoe.shoeId });
  const dealers = [...new Set([shoe.dealerId, ...shoe.rounds.map((r) => r.dealerId)])];
  const decision = checkDecision(cmd.decision, dealers, shoe.openedEventId, { shoeId: shoe.shoeId });
  const toVoid = shoe.rounds.filter((r) => r.phase !== 'VOIDED');
  const shoeVoided: NewEvent = { eventId: ctx.newId(), type: 'ShoeVoided', data: { decision, roundIds: toVoid.map((r) => r.roundId) } };
  const events: NewEvent[] = [shoeVoided];
  for (const round of toVoid) events.push(...autoVoid(round, 'SHOE_VOIDED', shoeVoided.eventId, ctx));
  return events;
}
