import type { NewEvent } from '@ledger/events';
import type { DecideContext, ShoeCommand } from '../commands';
import { DomainError, passRulesErrors } from '../errors';
import type { ShoeState } from '../state';
import { closeBetting, openRound, placeBets } from './betting';
import { burnCard, correctCommencement, drawCommencementCard } from './commencement';
import { dealCard, drawCutCard, drawUnneededCard } from './dealing';
import { dropCard, exposeCard } from './incidents';
import { correctResult, voidRound, voidShoe } from './management';
import { changeDealer, closeShoe, openShoe } from './shoe-lifecycle';

export { checkReason } from './guards';

/**
 * `decide(state, command, ctx)`: judges one command against the shoe's state and returns the
 * events that record it, or throws a {@link DomainError}. Pure: no clock, no randomness (event
 * ids come from `ctx.newId()`), no I/O; `state` is not modified. One file per area does the
 * judging (docs/architecture.md §3); this one only sends each command to its area.
 *
 * Every refusal is a DomainError with a stable code (see errors.ts); errors of the rules library
 * (`CARD.MALFORMED`, `SHOE.CARD_EXCEEDS_DECKS`, `TABLEAU.VIOLATION`, `MONEY.INVALID_STAKE`,
 * `PAYTABLE.UNKNOWN`, …) come out as DomainErrors with the same code.
 *
 * Common refusals (guards.ts): a table fact or bet on a stream without a shoe → `SHOE.NOT_FOUND`;
 * on a closed shoe → `SHOE.CLOSED`; on a voided shoe → `SHOE.VOIDED`; naming a round the shoe does
 * not hold → `ROUND.NOT_FOUND`, or one that is not its latest round → `ROUND.NOT_CURRENT`.
 * Management decisions (VoidRound, CorrectResult, VoidShoe) remain possible on a closed shoe.
 *
 * Per command (§ = docs/domain-rules.md), with the file that judges it; each function's docstring
 * lists its refusals:
 * - shoe-lifecycle.ts: `OpenShoe` → ShoeOpened; `ChangeDealer` → DealerChanged; `CloseShoe` →
 *   ShoeClosed.
 * - commencement.ts (§5.1): `DrawCommencementCard` → CommencementCardDrawn; `BurnCard` →
 *   CardBurned; `CorrectCommencement` → CommencementCorrected.
 * - betting.ts (§3, §4): `OpenRound` → RoundOpened; `PlaceBets` → one BetPlaced per bet (all or
 *   none); `CloseBetting` → BettingClosed.
 * - dealing.ts (§1, §2, §5.2, §5.3): `DealCard` → CardDealt [+ RoundResulted + BetSettled per
 *   bet]; `DrawUnneededCard` → UnneededCardDrawn; `DrawCutCard` → CutCardDrawn [+ RoundVoided +
 *   BetRefunded per bet].
 * - incidents.ts (§5.3, §5.5): `ExposeCard` → CardExposed, `DropCard` → CardDropped, each
 *   [+ RoundVoided + BetRefunded per bet].
 * - management.ts (§5.4, §6): `VoidRound` → RoundVoided + BetRefunded per bet; `CorrectResult` →
 *   ResultCorrected + BetResettled per bet; `VoidShoe` → ShoeVoided + (RoundVoided + BetRefunded
 *   per bet) per round not yet voided.
 *
 * @returns the new events in order, each with a fresh `eventId`; never empty
 * @throws DomainError for every refusal; `COMMAND.UNKNOWN` for a type outside {@link ShoeCommand}
 */
export function decide(state: ShoeState, command: ShoeCommand, ctx: DecideContext): NewEvent[] {
  return passRulesErrors(() => dispatch(state, command, ctx));
}

function dispatch(s: ShoeState, cmd: ShoeCommand, ctx: DecideContext): NewEvent[] {
  switch (cmd.type) {
    case 'OpenShoe':
      return openShoe(s, cmd, ctx);
    case 'DrawCommencementCard':
      return drawCommencementCard(s, cmd, ctx);
    case 'BurnCard':
      return burnCard(s, cmd, ctx);
    case 'CorrectCommencement':
      return correctCommencement(s, cmd, ctx);
    case 'OpenRound':
      return openRound(s, cmd, ctx);
    case 'PlaceBets':
      return placeBets(s, cmd, ctx);
    case 'CloseBetting':
      return closeBetting(s, cmd, ctx);
    case 'DealCard':
      return dealCard(s, cmd, ctx);
    case 'DrawUnneededCard':
      return drawUnneededCard(s, cmd, ctx);
    case 'ExposeCard':
      return exposeCard(s, cmd, ctx);
    case 'DropCard':
      return dropCard(s, cmd, ctx);
    case 'DrawCutCard':
      return drawCutCard(s, ctx);
    case 'VoidRound':
      return voidRound(s, cmd, ctx);
    case 'CorrectResult':
      return correctResult(s, cmd, ctx);
    case 'VoidShoe':
      return voidShoe(s, cmd, ctx);
    case 'CloseShoe':
      return closeShoe(s, ctx);
    case 'ChangeDealer':
      return changeDealer(s, cmd, ctx);
    default: {
      const unknown = (cmd as { type?: unknown }).type;
      throw new DomainError('COMMAND.UNKNOWN', `unknown command type ${JSON.stringify(unknown)}`, { type: unknown });
    }
  }
}
