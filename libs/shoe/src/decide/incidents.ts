import type { CardDroppedData, CardExposedData, NewEvent } from '@ledger/events';
import { takeOut } from '../accounting';
import type { DecideContext, ShoeCommandOf } from '../commands';
import { DomainError } from '../errors';
import { commencementComplete, currentRound, latestRound, type ShoeState } from '../state';
import { requireCard, requireTable, wrongPhase } from './guards';
import { autoVoid } from './settlements';

/**
 * Cards seen or lost that should not have been: exposed cards (docs/domain-rules.md §5.3) and
 * dropped cards (§5.5). Each is recorded; in the phases the house procedures name, it voids the
 * hand (RoundVoided naming the incident, a BetRefunded per bet). Section signs (§) are those of
 * docs/domain-rules.md.
 */

/**
 * `ExposeCard` (§5.3) → CardExposed [+ RoundVoided EXPOSED_CARD + refunds]. The phase is the
 * shoe's unless the command says SHUFFLE:
 * - bets open → the hand is void; the card is out of the shoe;
 * - dealing → recorded; the card is out of the shoe (not in the hand: a card that goes into the
 *   hand is reported as DealCard, one drawn beyond the tableau as DrawUnneededCard);
 * - between rounds → recorded; the card is out;
 * - commencement (before the burns are done) or shuffle → recorded only, nothing changes.
 * @throws `CARD.MALFORMED`, `CARD.WRONG_PHASE` (SHUFFLE once the shoe is in play),
 *   `SHOE.CARD_EXCEEDS_DECKS`
 */
export function exposeCard(s: ShoeState, cmd: ShoeCommandOf<'ExposeCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const card = requireCard(cmd.card);
  const cur = currentRound(shoe);
  let phase: CardExposedData['phase'];
  if (cmd.phase === 'SHUFFLE') {
    if (commencementComplete(shoe)) throw wrongPhase('SHUFFLE', 'the shoe is in play: it is not being shuffled');
    phase = 'SHUFFLE';
  } else if (cur?.phase === 'BETTING') phase = 'BETTING_OPEN';
  else if (cur?.phase === 'DEALING') phase = 'DEALING';
  else if (!shoe.commencement) phase = 'SHUFFLE';
  else if (!commencementComplete(shoe)) phase = 'COMMENCEMENT';
  else phase = 'BETWEEN_ROUNDS';

  const counted = phase === 'BETTING_OPEN' || phase === 'DEALING' || phase === 'BETWEEN_ROUNDS';
  if (counted) takeOut(shoe.cards, card, 'exposed');
  const roundId = phase === 'BETTING_OPEN' || phase === 'DEALING' ? cur!.roundId : null;
  const exposed: NewEvent = { eventId: ctx.newId(), type: 'CardExposed', data: { roundId, card: card.code, phase } };
  if (phase !== 'BETTING_OPEN') return [exposed];
  // §5.3: a card exposed while bets are open voids that hand.
  return [exposed, ...autoVoid(cur!, 'EXPOSED_CARD', exposed.eventId, ctx)];
}

/**
 * `DropCard` (§5.5) → CardDropped [+ RoundVoided DROPPED_CARD + refunds]. Dropped out of camera
 * view during shuffle, commencement, burning or scooping: picked up and reused (recorded only).
 * During dealing: reused if it was exposed before leaving view (recorded only: it is dealt as
 * usual); otherwise the card is out of the shoe and the hand is void.
 * Phase when the command gives none: the round's DEALING, else COMMENCEMENT before the
 * commencement card, BURNING until the burns are done, SCOOPING between rounds. While bets are
 * open no card is in play: the command must say SCOOPING.
 * @throws `COMMAND.INVALID` (`exposedBeforeLeavingView` not a boolean), `CARD.MALFORMED`,
 *   `CARD.WRONG_PHASE`, `SHOE.CARD_EXCEEDS_DECKS`
 */
export function dropCard(s: ShoeState, cmd: ShoeCommandOf<'DropCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const card = cmd.card === null ? null : requireCard(cmd.card);
  if (typeof cmd.exposedBeforeLeavingView !== 'boolean') {
    throw new DomainError('COMMAND.INVALID', 'exposedBeforeLeavingView must be a boolean', { field: 'exposedBeforeLeavingView' });
  }
  const cur = currentRound(shoe);
  const complete = commencementComplete(shoe);
  let phase: CardDroppedData['phase'];
  if (cmd.phase === 'SHUFFLE') {
    if (complete) throw wrongPhase('SHUFFLE', 'the shoe is in play: it is not being shuffled');
    phase = 'SHUFFLE';
  } else if (cmd.phase === 'SCOOPING') {
    if (!complete || cur?.phase === 'DEALING') throw wrongPhase('SCOOPING', 'no cards are being scooped now');
    phase = 'SCOOPING';
  } else if (cur?.phase === 'DEALING') phase = 'DEALING';
  else if (cur?.phase === 'BETTING') throw wrongPhase(null, 'bets are open and no card is in play; say phase SCOOPING if cards were being scooped');
  else if (!shoe.commencement) phase = 'COMMENCEMENT';
  else if (!complete) phase = 'BURNING';
  else phase = 'SCOOPING';

  const roundId = phase === 'DEALING' ? cur!.roundId : phase === 'SCOOPING' ? (latestRound(shoe)?.roundId ?? null) : null;
  const voids = phase === 'DEALING' && !cmd.exposedBeforeLeavingView;
  if (voids) takeOut(shoe.cards, card, 'dropped');
  // A dropped card that is picked up and reused (§5.5) still has to be a card the shoe can hold:
  // it came out of the shoe, so a copy must be left (a ninth AS in an 8-deck shoe cannot be dropped
  // either). Cards dropped while scooping were dealt already: they are counted out, not checked.
  else if (card && phase !== 'SCOOPING') takeOut(shoe.cards, card, 'dropped');
  const dropped: NewEvent = {
    eventId: ctx.newId(),
    type: 'CardDropped',
    data: { roundId, card: card ? card.code : null, phase, exposedBeforeLeavingView: cmd.exposedBeforeLeavingView },
  };
  if (!voids) return [dropped];
  return [dropped, ...autoVoid(cur!, 'DROPPED_CARD', dropped.eventId, ctx)];
}
