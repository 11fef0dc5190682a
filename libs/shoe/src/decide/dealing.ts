import { assertNextPosition, builtInPaytable, nextPosition, resultRound } from '@ledger/rules';
import { roundOutcomeData, type NewEvent } from '@ledger/events';
import { takeOut } from '../accounting';
import type { DecideContext, ShoeCommandOf } from '../commands';
import { DomainError } from '../errors';
import { logValues } from '../keyed-log';
import { commencementComplete, currentRound, type ShoeState } from '../state';
import { commencementIncomplete, notDealing, requireCard, requireLatestRound, requireTable } from './guards';
import { autoVoid, settlement } from './settlements';

/**
 * Dealing: each card to the next position the tableau calls for, the result and the settlement
 * of every bet when the last card completes the round; the cards drawn that the tableau did not
 * call for; the cut card. Section signs (§) are those of docs/domain-rules.md: §1 cards and
 * totals, §2 the tableau, §3 paytables, §4 money, §5.2 the cut card, §5.3 unneeded cards.
 */

/**
 * `DealCard` → CardDealt; when the card completes the round, also RoundResulted (the outcome the
 * ledger computed from the cards) and one BetSettled per bet (revision 1).
 * @throws `ROUND.BETTING_OPEN`, `ROUND.NOT_DEALING` (a voided round), `COMMENCEMENT.INCOMPLETE`,
 *   `CARD.MALFORMED`, `TABLEAU.VIOLATION` (§2; also for a card after the round is resulted:
 *   `details.violation` says why, e.g. BANKER_MUST_STAND), `SHOE.CARD_EXCEEDS_DECKS` (§1)
 */
export function dealCard(s: ShoeState, cmd: ShoeCommandOf<'DealCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  if (round.phase === 'BETTING') throw new DomainError('ROUND.BETTING_OPEN', `betting on round ${round.roundId} is still open`, { roundId: round.roundId });
  // A card for a resulted round is a draw the tableau forbids: say which rule (BANKER_MUST_STAND,
  // NATURAL_NO_DRAW, …) rather than only "resulted".
  if (round.phase === 'RESULTED') assertNextPosition(round.cards, cmd.position);
  if (round.phase !== 'DEALING') throw notDealing(round);
  if (!commencementComplete(shoe)) throw commencementIncomplete(shoe);
  const card = requireCard(cmd.card);
  assertNextPosition(round.cards, cmd.position); // §2: TABLEAU.VIOLATION, details.violation
  takeOut(shoe.cards, card, 'dealt'); // §1: SHOE.CARD_EXCEEDS_DECKS
  const dealtEvent: NewEvent = { eventId: ctx.newId(), type: 'CardDealt', data: { roundId: round.roundId, position: cmd.position, card: card.code } };
  const cards = [...round.cards, card];
  if (nextPosition(cards) !== null) return [dealtEvent];

  // The card completes the round: the ledger results it and settles every bet.
  const outcome = resultRound(cards);
  const paytable = builtInPaytable(shoe.settings.paytableRef);
  const events: NewEvent[] = [
    dealtEvent,
    {
      eventId: ctx.newId(),
      type: 'RoundResulted',
      data: { roundId: round.roundId, handNumber: round.handNumber, outcome: roundOutcomeData(outcome), paytableRef: paytable.ref },
    },
  ];
  for (const bet of logValues(round.bets)) {
    events.push({ eventId: ctx.newId(), type: 'BetSettled', data: settlement(bet, outcome, paytable, 1) });
  }
  return events;
}

/**
 * `DrawUnneededCard` (§5.3) → UnneededCardDrawn: while dealing or right after the result (no
 * round opened since). The card leaves the shoe but not into the hand; the result stands.
 * @throws `ROUND.NOT_DEALING`, `CARD.MALFORMED`, `SHOE.CARD_EXCEEDS_DECKS`
 */
export function drawUnneededCard(s: ShoeState, cmd: ShoeCommandOf<'DrawUnneededCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  // §5.3: while dealing, or right after the result (no round opened since).
  if (round.phase !== 'DEALING' && round.phase !== 'RESULTED') throw notDealing(round);
  const card = requireCard(cmd.card);
  takeOut(shoe.cards, card, 'unneeded'); // it left the shoe and counts against its cards
  return [{ eventId: ctx.newId(), type: 'UnneededCardDrawn', data: { roundId: round.roundId, card: card.code } }];
}

/**
 * `DrawCutCard` (§5.2) → CutCardDrawn. During a round's dealing: that round is the last. Before
 * the first card of a round whose bets are open: the round does not commence (+ RoundVoided
 * CUT_CARD + a BetRefunded per bet). Between rounds: no further round. In every case no further
 * round starts.
 * @throws `CUT_CARD.ALREADY_DRAWN`, `COMMENCEMENT.INCOMPLETE`
 */
export function drawCutCard(s: ShoeState, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  if (shoe.cutCard) throw new DomainError('CUT_CARD.ALREADY_DRAWN', 'the cut card of this shoe has already come out', { cutCard: shoe.cutCard });
  if (!commencementComplete(shoe)) throw commencementIncomplete(shoe);
  const cur = currentRound(shoe);
  if (cur?.phase === 'DEALING') {
    return [{ eventId: ctx.newId(), type: 'CutCardDrawn', data: { roundId: cur.roundId, timing: 'DURING_DEALING' } }];
  }
  if (cur?.phase === 'BETTING') {
    const cut: NewEvent = { eventId: ctx.newId(), type: 'CutCardDrawn', data: { roundId: cur.roundId, timing: 'BEFORE_DEALING' } };
    return [cut, ...autoVoid(cur, 'CUT_CARD', cut.eventId, ctx)];
  }
  return [{ eventId: ctx.newId(), type: 'CutCardDrawn', data: { roundId: null, timing: 'BETWEEN_ROUNDS' } }];
}
