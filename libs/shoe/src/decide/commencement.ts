import { commencementBurnCount } from '@ledger/rules';
import type { NewEvent } from '@ledger/events';
import { putBack, takeOut } from '../accounting';
import type { DecideContext, ShoeCommandOf } from '../commands';
import { DomainError } from '../errors';
import type { ShoeState } from '../state';
import { checkDecision, checkReason, requireCard, requireTable } from './guards';

/**
 * Commencement (docs/domain-rules.md §5.1): on every new shoe the first card is opened and that
 * many cards are burned (A = 1, 2–9 face, T/J/Q/K = 10); a mistake is corrected on the spot while
 * the first hand has not been dealt. The commencement card and every burn, face down or not,
 * leave the shoe and count against its cards.
 */

/**
 * `DrawCommencementCard` → CommencementCardDrawn with the burns it calls for.
 * @throws `COMMENCEMENT.ALREADY_DRAWN` (use CorrectCommencement), `CARD.MALFORMED`,
 *   `SHOE.CARD_EXCEEDS_DECKS`
 */
export function drawCommencementCard(s: ShoeState, cmd: ShoeCommandOf<'DrawCommencementCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  if (shoe.commencement) {
    throw new DomainError('COMMENCEMENT.ALREADY_DRAWN', 'the commencement card is already drawn; use CorrectCommencement', {
      commencementCard: shoe.commencement.card,
    });
  }
  const card = requireCard(cmd.card);
  takeOut(shoe.cards, card, 'burned'); // the commencement card leaves the shoe with the burns
  return [{ eventId: ctx.newId(), type: 'CommencementCardDrawn', data: { card: card.code, burnCount: commencementBurnCount(card.rank) } }];
}

/**
 * `BurnCard` → CardBurned (`card` null when burned face down), numbered within the commencement.
 * @throws `COMMENCEMENT.NOT_DRAWN`, `COMMENCEMENT.BURN_COUNT_EXCEEDED`, `CARD.MALFORMED`,
 *   `SHOE.CARD_EXCEEDS_DECKS`
 */
export function burnCard(s: ShoeState, cmd: ShoeCommandOf<'BurnCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const c = shoe.commencement;
  if (!c) throw new DomainError('COMMENCEMENT.NOT_DRAWN', 'no commencement card yet: nothing to burn');
  if (c.burnsDone >= c.burnCount) {
    throw new DomainError('COMMENCEMENT.BURN_COUNT_EXCEEDED', `the commencement card ${c.card} calls for ${c.burnCount} burn(s), all done`, {
      commencementCard: c.card,
      burnCount: c.burnCount,
      burnsDone: c.burnsDone,
    });
  }
  const card = cmd.card === null ? null : requireCard(cmd.card);
  takeOut(shoe.cards, card, 'burned'); // every burn, face down or not, counts against the shoe
  return [
    {
      eventId: ctx.newId(),
      type: 'CardBurned',
      data: { card: card ? card.code : null, phase: 'COMMENCEMENT', burnIndex: c.burnsDone + 1 },
    },
  ];
}

/**
 * `CorrectCommencement` → CommencementCorrected, compensating the commencement in force; the burns
 * start again from the corrected card's count.
 * @throws `COMMENCEMENT.NOT_DRAWN`, `COMMENCEMENT.TOO_LATE` (the first hand has been dealt: the
 *   shoe must be voided and replaced), `COMMENCEMENT.REASON_REQUIRED`, `CARD.MALFORMED`,
 *   `SHOE.CARD_EXCEEDS_DECKS`
 */
export function correctCommencement(s: ShoeState, cmd: ShoeCommandOf<'CorrectCommencement'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const c = shoe.commencement;
  if (!c) throw new DomainError('COMMENCEMENT.NOT_DRAWN', 'no commencement card to correct');
  // §5.1: corrected on the spot if the first hand has not been dealt; otherwise the shoe is invalid.
  if (shoe.firstCardDealt) {
    throw new DomainError('COMMENCEMENT.TOO_LATE', 'the first hand has been dealt: the shoe must be voided and replaced, not corrected');
  }
  const reason = checkReason(cmd.reason, 'COMMENCEMENT.REASON_REQUIRED');
  const card = requireCard(cmd.card);
  // Through the four-eyes flow the correction carries the approved decision (§6).
  const decision = cmd.decision ? checkDecision(cmd.decision, shoe.dealerId, c.eventId, { shoeId: shoe.shoeId }) : null;
  // The corrected card replaces the recorded one in the accounting; burns already made stay out.
  takeOut(putBack(shoe.cards, requireCard(c.card), 'burned'), card, 'burned');
  return [
    {
      eventId: ctx.newId(),
      type: 'CommencementCorrected',
      data: { card: card.code, burnCount: commencementBurnCount(card.rank), reason, compensates: c.eventId, ...(decision ? { decision } : {}) },
    },
  ];
}
