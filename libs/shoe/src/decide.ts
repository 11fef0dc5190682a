import {
  assertNextPosition,
  assertValidStake,
  builtInPaytable,
  commencementBurnCount,
  isBetCodeOf,
  isBetOffered,
  MAIN_BETS,
  MAX_STAKE_MINOR,
  nextPosition,
  PAIR_BETS,
  parseCard,
  parseVariant,
  payoffFor,
  resultRound,
  settle,
  type BetCode,
  type Paytable,
  type RoundOutcome,
} from '@ledger/rules';
import type {
  BetSettlementData,
  CardDroppedData,
  CardExposedData,
  ManagementDecision,
  NewEvent,
  RoundOutcomeData,
  TableSettings,
  VoidCause,
} from '@ledger/events';
import { cardsRemaining, newAccounting, putBack, takeOut, type CardAccounting } from './accounting';
import type { BetInput, DecideContext, DecisionInput, ShoeCommand, ShoeCommandOf } from './commands';
import { DomainError, passRulesErrors } from './errors';
import { logHas, logValues } from './keyed-log';
import {
  betSettlement,
  commencementComplete,
  currentRound,
  findRound,
  latestRound,
  type BetRecord,
  type RoundState,
  type ShoeState,
} from './state';

/**
 * `decide(state, command, ctx)`: judges one command against the shoe's state and returns the
 * events that record it, or throws a {@link DomainError}. Pure: no clock, no randomness (event
 * ids come from `ctx.newId()`), no I/O; `state` is not modified.
 *
 * Every refusal is a DomainError with a stable code (see errors.ts); errors of the rules library
 * (`CARD.MALFORMED`, `SHOE.CARD_EXCEEDS_DECKS`, `TABLEAU.VIOLATION`, `MONEY.INVALID_STAKE`,
 * `PAYTABLE.UNKNOWN`, …) come out as DomainErrors with the same code.
 *
 * Common refusals: a table fact or bet on a stream without a shoe → `SHOE.NOT_FOUND`; on a closed
 * shoe → `SHOE.CLOSED`; on a voided shoe → `SHOE.VOIDED`; naming a round the shoe does not hold →
 * `ROUND.NOT_FOUND`, or one that is not its latest round → `ROUND.NOT_CURRENT`. Management
 * decisions (VoidRound, CorrectResult, VoidShoe) remain possible on a closed shoe.
 *
 * Per command (§ = domain-rules.md):
 * - `OpenShoe` → ShoeOpened. `SHOE.ALREADY_OPENED`, `VARIANT.UNKNOWN`, `SHOE.INVALID_DECK_COUNT`
 *   (1..16), `PAYTABLE.UNKNOWN`, `PAYTABLE.VARIANT_MISMATCH`, `BET.UNKNOWN_CODE` (a limit for a bet
 *   the variant lacks), `SETTINGS.INVALID`, `COMMAND.INVALID`.
 * - `DrawCommencementCard` (§5.1) → CommencementCardDrawn. `COMMENCEMENT.ALREADY_DRAWN`.
 * - `BurnCard` (§5.1) → CardBurned. `COMMENCEMENT.NOT_DRAWN`, `COMMENCEMENT.BURN_COUNT_EXCEEDED`.
 * - `CorrectCommencement` (§5.1) → CommencementCorrected. `COMMENCEMENT.NOT_DRAWN`,
 *   `COMMENCEMENT.TOO_LATE`, `COMMENCEMENT.REASON_REQUIRED`.
 * - `OpenRound` → RoundOpened. `COMMENCEMENT.INCOMPLETE`, `ROUND.IN_PROGRESS`,
 *   `SHOE.NO_MORE_ROUNDS` (§5.2), `ROUND.DUPLICATE_ID`.
 * - `PlaceBets` (§3, §4) → one BetPlaced per bet. `ROUND.BETTING_CLOSED`, `BET.*`,
 *   `MONEY.INVALID_STAKE`.
 * - `CloseBetting` → BettingClosed. `ROUND.BETTING_CLOSED`.
 * - `DealCard` (§1, §2) → CardDealt [+ RoundResulted + BetSettled per bet]. `ROUND.BETTING_OPEN`,
 *   `ROUND.NOT_DEALING` (voided round), `COMMENCEMENT.INCOMPLETE`, `TABLEAU.VIOLATION` (also for a
 *   card after the round is resulted: `details.violation` says why, e.g. BANKER_MUST_STAND),
 *   `SHOE.CARD_EXCEEDS_DECKS`, `CARD.MALFORMED`.
 * - `DrawUnneededCard` (§5.3) → UnneededCardDrawn. `ROUND.NOT_DEALING`.
 * - `ExposeCard` (§5.3) → CardExposed [+ RoundVoided + BetRefunded per bet]. `CARD.WRONG_PHASE`.
 * - `DropCard` (§5.5) → CardDropped [+ RoundVoided + BetRefunded per bet]. `CARD.WRONG_PHASE`.
 * - `DrawCutCard` (§5.2) → CutCardDrawn [+ RoundVoided + BetRefunded per bet].
 *   `CUT_CARD.ALREADY_DRAWN`, `COMMENCEMENT.INCOMPLETE`.
 * - `VoidRound` (§5) → RoundVoided + BetRefunded per bet. `ROUND.ALREADY_VOIDED`, `MANAGEMENT.*`.
 * - `CorrectResult` (§5.4) → ResultCorrected + BetResettled per bet. `ROUND.NOT_RESULTED`,
 *   `ROUND.ALREADY_VOIDED`, `RESULT.UNCHANGED`, `TABLEAU.*`, `SHOE.CARD_EXCEEDS_DECKS`, `MANAGEMENT.*`.
 * - `VoidShoe` (§5) → ShoeVoided + (RoundVoided + BetRefunded per bet) per round not yet voided.
 *   `SHOE.ALREADY_VOIDED`, `MANAGEMENT.*`.
 * - `CloseShoe` → ShoeClosed. `ROUND.IN_PROGRESS`.
 * - `ChangeDealer` → DealerChanged. `DEALER.CHANGE_MID_DEALING`, `DEALER.UNCHANGED`.
 *
 * @returns the new events in order, each with a fresh `eventId`; never empty
 * @throws DomainError for every refusal
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

// =============================================================================================
// Shoe and commencement (§5.1)
// =============================================================================================

const CURRENCY = /^[A-Z]{3}$/;
const DIGITS = /^\d+$/;

function openShoe(s: ShoeState, cmd: ShoeCommandOf<'OpenShoe'>, ctx: DecideContext): NewEvent[] {
  if (s.status !== 'NONE') throw new DomainError('SHOE.ALREADY_OPENED', `shoe ${s.shoeId} is already open on this stream`, { shoeId: s.shoeId });
  requireId(cmd.shoeId, 'shoeId');
  requireId(cmd.tableId, 'tableId');
  requireId(cmd.dealerId, 'dealerId');
  const settings = validateSettings(cmd.settings);
  return [
    {
      eventId: ctx.newId(),
      type: 'ShoeOpened',
      data: { shoeId: cmd.shoeId, tableId: cmd.tableId, dealerId: cmd.dealerId, ...settings },
    },
  ];
}

/** Checks the table's settings; returns them with the paytable ref normalised to `id@version`. */
function validateSettings(t: TableSettings): TableSettings {
  if (!t || typeof t !== 'object') throw new DomainError('SETTINGS.INVALID', 'table settings are required');
  const variant = parseVariant(t.variant);
  newAccounting(t.decks); // SHOE.INVALID_DECK_COUNT unless an integer 1..16
  const paytable = builtInPaytable(String(t.paytableRef)); // PAYTABLE.UNKNOWN
  if (paytable.variant !== variant) {
    throw new DomainError('PAYTABLE.VARIANT_MISMATCH', `paytable ${paytable.ref} is for ${paytable.variant}, the table plays ${variant}`, {
      paytableRef: paytable.ref,
      paytableVariant: paytable.variant,
      variant,
    });
  }
  if (typeof t.currency !== 'string' || !CURRENCY.test(t.currency)) {
    throw new DomainError('SETTINGS.INVALID', `currency must be an ISO 4217 code like "EUR", got ${JSON.stringify(t.currency)}`, {
      field: 'currency',
    });
  }
  for (const field of ['virtualTable', 'pairBetsRequireMainBet'] as const) {
    if (typeof t[field] !== 'boolean') throw new DomainError('SETTINGS.INVALID', `${field} must be a boolean`, { field });
  }
  const limits: Record<string, { min: string; max: string }> = {};
  for (const [code, l] of Object.entries(t.limits ?? {})) {
    if (!isBetCodeOf(variant, code)) {
      throw new DomainError('BET.UNKNOWN_CODE', `limits name ${code}, not a bet of ${variant}`, { betCode: code, variant });
    }
    const ok = l && typeof l.min === 'string' && typeof l.max === 'string' && DIGITS.test(l.min) && DIGITS.test(l.max);
    const min = ok ? BigInt(l.min) : 0n;
    const max = ok ? BigInt(l.max) : 0n;
    if (!ok || min < 1n || max < min || max > MAX_STAKE_MINOR) {
      throw new DomainError('SETTINGS.INVALID', `limits of ${code} must be minor-unit integers with 1 ≤ min ≤ max ≤ 2^53−1`, {
        field: `limits.${code}`,
        limits: l,
      });
    }
    limits[code] = { min: min.toString(), max: max.toString() };
  }
  return {
    variant,
    decks: t.decks,
    virtualTable: t.virtualTable,
    paytableRef: paytable.ref,
    pairBetsRequireMainBet: t.pairBetsRequireMainBet,
    currency: t.currency,
    limits,
  };
}

function drawCommencementCard(s: ShoeState, cmd: ShoeCommandOf<'DrawCommencementCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  if (shoe.commencement) {
    throw new DomainError('COMMENCEMENT.ALREADY_DRAWN', 'the commencement card is already drawn; use CorrectCommencement', {
      commencementCard: shoe.commencement.card,
    });
  }
  const card = parseCard(cmd.card);
  takeOut(shoe.cards, card, 'burned'); // the commencement card leaves the shoe with the burns
  return [{ eventId: ctx.newId(), type: 'CommencementCardDrawn', data: { card: card.code, burnCount: commencementBurnCount(card.rank) } }];
}

function burnCard(s: ShoeState, cmd: ShoeCommandOf<'BurnCard'>, ctx: DecideContext): NewEvent[] {
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
  const card = cmd.card === null ? null : parseCard(cmd.card);
  takeOut(shoe.cards, card, 'burned'); // every burn, face down or not, counts against the shoe
  return [
    {
      eventId: ctx.newId(),
      type: 'CardBurned',
      data: { card: card ? card.code : null, phase: 'COMMENCEMENT', burnIndex: c.burnsDone + 1 },
    },
  ];
}

function correctCommencement(s: ShoeState, cmd: ShoeCommandOf<'CorrectCommencement'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const c = shoe.commencement;
  if (!c) throw new DomainError('COMMENCEMENT.NOT_DRAWN', 'no commencement card to correct');
  // §5.1: corrected on the spot if the first hand has not been dealt; otherwise the shoe is invalid.
  if (shoe.firstCardDealt) {
    throw new DomainError('COMMENCEMENT.TOO_LATE', 'the first hand has been dealt: the shoe must be voided and replaced, not corrected');
  }
  const reason = checkReason(cmd.reason, 'COMMENCEMENT.REASON_REQUIRED');
  const card = parseCard(cmd.card);
  // The corrected card replaces the recorded one in the accounting; burns already made stay out.
  takeOut(putBack(shoe.cards, parseCard(c.card), 'burned'), card, 'burned');
  return [
    {
      eventId: ctx.newId(),
      type: 'CommencementCorrected',
      data: { card: card.code, burnCount: commencementBurnCount(card.rank), reason, compensates: c.eventId },
    },
  ];
}

// =============================================================================================
// Rounds and bets (§3, §4)
// =============================================================================================

function openRound(s: ShoeState, cmd: ShoeCommandOf<'OpenRound'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  requireId(cmd.roundId, 'roundId');
  const cur = currentRound(shoe);
  if (cur) throw new DomainError('ROUND.IN_PROGRESS', `round ${cur.roundId} is still ${cur.phase}`, { roundId: cur.roundId, phase: cur.phase });
  if (!commencementComplete(shoe)) throw commencementIncomplete(shoe);
  // §5.2: after the cut card, no further round commences.
  if (shoe.noMoreRounds) {
    throw new DomainError('SHOE.NO_MORE_ROUNDS', 'the cut card has come out: no further round starts in this shoe', {
      cutCard: shoe.cutCard,
      lastHandRoundId: shoe.lastHandRoundId,
    });
  }
  if (logHas(shoe.roundIndex, cmd.roundId)) throw new DomainError('ROUND.DUPLICATE_ID', `round ${cmd.roundId} already exists in this shoe`, { roundId: cmd.roundId });
  // §3.2: hands are counted as rounds opened in the shoe, voided ones included.
  return [{ eventId: ctx.newId(), type: 'RoundOpened', data: { roundId: cmd.roundId, handNumber: shoe.handNumber + 1 } }];
}

function placeBets(s: ShoeState, cmd: ShoeCommandOf<'PlaceBets'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  if (round.phase !== 'BETTING') {
    throw new DomainError('ROUND.BETTING_CLOSED', `betting on round ${round.roundId} is closed (${round.phase})`, { roundId: round.roundId, phase: round.phase });
  }
  if (!Array.isArray(cmd.bets) || cmd.bets.length === 0) throw new DomainError('COMMAND.INVALID', 'PlaceBets needs at least one bet', { field: 'bets' });
  const { settings } = shoe;
  const paytable = builtInPaytable(settings.paytableRef);
  const pairsNeedMain = settings.variant === 'classic' && settings.pairBetsRequireMainBet;

  // What the account already has in this round: totals per account+code (§4 max), main wagers (§3.1).
  const totals = new Map<string, bigint>();
  const withMainBet = new Set<string>();
  for (const b of logValues(round.bets)) {
    const k = totalKey(b.accountId, b.betCode);
    totals.set(k, (totals.get(k) ?? 0n) + b.stake);
    if (MAIN_BETS.includes(b.betCode)) withMainBet.add(b.accountId);
  }

  const batchIds = new Set<string>();
  const events: NewEvent[] = [];
  cmd.bets.forEach((bet: BetInput, index: number) => {
    const at = { index, betId: bet?.betId };
    requireId(bet?.betId, `bets[${index}].betId`);
    requireId(bet.accountId, `bets[${index}].accountId`);
    if (batchIds.has(bet.betId) || logHas(shoe.betIndex, bet.betId)) {
      throw new DomainError('BET.DUPLICATE_ID', `bet id ${bet.betId} is already used in this shoe`, at);
    }
    batchIds.add(bet.betId);
    if (!isBetCodeOf(settings.variant, bet.betCode)) {
      throw new DomainError('BET.UNKNOWN_CODE', `${JSON.stringify(bet.betCode)} is not a bet of ${settings.variant}`, { ...at, betCode: bet.betCode });
    }
    const code: BetCode = bet.betCode;
    // §3.2, §3.3 windows: counted in hands opened, voided ones included; virtual tables exempt.
    if (!isBetOffered(paytable, code, round.handNumber, settings.virtualTable)) {
      throw new DomainError('BET.OUTSIDE_WINDOW', `${code} is not offered on hand ${round.handNumber} of this shoe`, {
        ...at,
        betCode: code,
        handNumber: round.handNumber,
        windows: paytable.definition.windows.filter((w) => w.bets.includes(code)).map((w) => ({ firstHands: w.firstHands })),
      });
    }
    if (bet.currency !== settings.currency) {
      throw new DomainError('BET.CURRENCY_MISMATCH', `the table plays in ${settings.currency}, the bet is in ${String(bet.currency)}`, {
        ...at,
        currency: bet.currency,
        tableCurrency: settings.currency,
      });
    }
    passRulesErrors(() => assertValidStake(bet.stake), at); // §4: zero, negative, malformed, > 2^53−1
    const stake = bet.stake;
    const limits = shoe.limits[code];
    if (!limits) throw new DomainError('BET.NOT_OFFERED', `the table has no limits for ${code}: it does not take that bet`, { ...at, betCode: code });
    // §4: the minimum applies to each stake, the maximum to the account's total on the code in the round.
    if (stake < limits.min) {
      throw new DomainError('BET.BELOW_MINIMUM', `stake ${stake} is below the ${code} minimum ${limits.min}`, {
        ...at,
        stake: stake.toString(),
        min: limits.min.toString(),
      });
    }
    const k = totalKey(bet.accountId, code);
    const total = (totals.get(k) ?? 0n) + stake;
    if (total > limits.max) {
      throw new DomainError('BET.ABOVE_MAXIMUM', `account ${bet.accountId} would have ${total} on ${code} in this round, above the maximum ${limits.max}`, {
        ...at,
        accountId: bet.accountId,
        stake: stake.toString(),
        accountTotal: total.toString(),
        max: limits.max.toString(),
      });
    }
    // §3.1: a pair wager needs a main wager by the same account accepted before it (this batch counts).
    if (pairsNeedMain && PAIR_BETS.includes(code) && !withMainBet.has(bet.accountId)) {
      throw new DomainError('BET.PAIR_NEEDS_MAIN_BET', `${code} needs a PLAYER, BANKER or TIE wager by ${bet.accountId} in this round first`, {
        ...at,
        accountId: bet.accountId,
        betCode: code,
      });
    }
    totals.set(k, total);
    if (MAIN_BETS.includes(code)) withMainBet.add(bet.accountId);
    events.push({
      eventId: ctx.newId(),
      type: 'BetPlaced',
      data: { betId: bet.betId, roundId: round.roundId, accountId: bet.accountId, betCode: code, stake: stake.toString(), currency: bet.currency },
    });
  });
  return events;
}

function totalKey(accountId: string, code: string): string {
  return `${code}\u0000${accountId}`;
}

function closeBetting(s: ShoeState, cmd: ShoeCommandOf<'CloseBetting'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  if (round.phase !== 'BETTING') {
    throw new DomainError('ROUND.BETTING_CLOSED', `betting on round ${round.roundId} is already closed (${round.phase})`, { roundId: round.roundId, phase: round.phase });
  }
  return [
    {
      eventId: ctx.newId(),
      type: 'BettingClosed',
      data: { roundId: round.roundId, betCount: round.bets.size, totalStake: round.totalStake.toString() },
    },
  ];
}

// =============================================================================================
// Dealing and result (§1, §2, §3, §4)
// =============================================================================================

function dealCard(s: ShoeState, cmd: ShoeCommandOf<'DealCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  if (round.phase === 'BETTING') throw new DomainError('ROUND.BETTING_OPEN', `betting on round ${round.roundId} is still open`, { roundId: round.roundId });
  // A card for a resulted round is a draw the tableau forbids: say which rule (BANKER_MUST_STAND,
  // NATURAL_NO_DRAW, …) rather than only "resulted".
  if (round.phase === 'RESULTED') assertNextPosition(round.cards, cmd.position);
  if (round.phase !== 'DEALING') throw notDealing(round);
  if (!commencementComplete(shoe)) throw commencementIncomplete(shoe);
  const card = parseCard(cmd.card);
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
      data: { roundId: round.roundId, handNumber: round.handNumber, outcome: outcomeData(outcome), paytableRef: paytable.ref },
    },
  ];
  for (const bet of logValues(round.bets)) {
    events.push({ eventId: ctx.newId(), type: 'BetSettled', data: settlement(bet, outcome, paytable, 1) });
  }
  return events;
}

/** Settlement of one bet (§3, §4): exact, winnings rounded down, the fraction dropped recorded. */
function settlement(bet: BetRecord, outcome: RoundOutcome, paytable: Paytable, revision: number): BetSettlementData {
  const st = settle(bet.stake, payoffFor(paytable, bet.betCode, outcome));
  return {
    betId: bet.betId,
    roundId: bet.roundId,
    accountId: bet.accountId,
    betCode: bet.betCode,
    currency: bet.currency,
    result: st.result,
    stake: st.stake.toString(),
    winnings: st.winnings.toString(),
    payout: st.payout.toString(),
    net: st.net.toString(),
    dropped: st.dropped.num === 0n ? '0' : `${st.dropped.num}/${st.dropped.den}`,
    paytableRef: paytable.ref,
    revision,
  };
}

function outcomeData(o: RoundOutcome): RoundOutcomeData {
  return {
    player: o.player.map((c) => c.code),
    banker: o.banker.map((c) => c.code),
    playerTotal: o.playerTotal,
    bankerTotal: o.bankerTotal,
    winner: o.winner,
    natural: o.natural,
    playerPair: o.playerPair,
    bankerPair: o.bankerPair,
  };
}

function drawUnneededCard(s: ShoeState, cmd: ShoeCommandOf<'DrawUnneededCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  // §5.3: while dealing, or right after the result (no round opened since).
  if (round.phase !== 'DEALING' && round.phase !== 'RESULTED') throw notDealing(round);
  const card = parseCard(cmd.card);
  takeOut(shoe.cards, card, 'unneeded'); // it left the shoe and counts against its cards
  return [{ eventId: ctx.newId(), type: 'UnneededCardDrawn', data: { roundId: round.roundId, card: card.code } }];
}

// =============================================================================================
// Exposed, dropped and cut cards (§5.2, §5.3, §5.5)
// =============================================================================================

/**
 * §5.3. The phase is the shoe's unless the command says SHUFFLE:
 * - bets open → the hand is void: CardExposed + RoundVoided (EXPOSED_CARD) + refunds; the card is out;
 * - dealing → recorded; the card is out of the shoe (not in the hand: a card that goes into the
 *   hand is reported as DealCard, one drawn beyond the tableau as DrawUnneededCard);
 * - between rounds → recorded; the card is out;
 * - commencement (before the burns are done) or shuffle → recorded only, nothing changes.
 */
function exposeCard(s: ShoeState, cmd: ShoeCommandOf<'ExposeCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const card = parseCard(cmd.card);
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
 * §5.5. Dropped out of camera view during shuffle, commencement, burning or scooping: picked up
 * and reused (recorded only). During dealing: reused if it was exposed before leaving view
 * (recorded only: it is dealt as usual); otherwise the card is out of the shoe and the hand is
 * void: CardDropped + RoundVoided (DROPPED_CARD) + refunds.
 * Phase when the command gives none: the round's DEALING, else COMMENCEMENT before the
 * commencement card, BURNING until the burns are done, SCOOPING between rounds. While bets are
 * open no card is in play: the command must say SCOOPING.
 */
function dropCard(s: ShoeState, cmd: ShoeCommandOf<'DropCard'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const card = cmd.card === null ? null : parseCard(cmd.card);
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

/**
 * §5.2. During a round's dealing: that round is the last. Before the first card of a round whose
 * bets are open: the round does not commence (void, stakes refunded). Between rounds: no further
 * round. In every case no further round starts.
 */
function drawCutCard(s: ShoeState, ctx: DecideContext): NewEvent[] {
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

/** A void caused by a table fact (exposed, dropped, cut card): RoundVoided naming it + refunds. */
function autoVoid(round: RoundState, cause: Exclude<VoidCause, 'MANAGEMENT'>, causedBy: string, ctx: DecideContext): NewEvent[] {
  const voided: NewEvent = { eventId: ctx.newId(), type: 'RoundVoided', data: { roundId: round.roundId, cause, decision: null, causedBy } };
  return [voided, ...refunds(round, voided.eventId, ctx)];
}

/** §5: a void returns every stake of the hand. One BetRefunded per bet, naming the RoundVoided. */
function refunds(round: RoundState, roundVoidedId: string, ctx: DecideContext): NewEvent[] {
  const out: NewEvent[] = [];
  for (const bet of logValues(round.bets)) {
    out.push({
      eventId: ctx.newId(),
      type: 'BetRefunded',
      data: {
        betId: bet.betId,
        roundId: bet.roundId,
        accountId: bet.accountId,
        betCode: bet.betCode,
        currency: bet.currency,
        stake: bet.stake.toString(),
        compensates: roundVoidedId,
        revision: betSettlement(round, bet.betId)?.revision ?? 0,
      },
    });
  }
  return out;
}

// =============================================================================================
// Management decisions (§5, §5.4): possible after the shoe closed
// =============================================================================================

function voidRound(s: ShoeState, cmd: ShoeCommandOf<'VoidRound'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  const round = requireRound(shoe, cmd.roundId);
  if (round.phase === 'VOIDED') throw alreadyVoided(round);
  const decision = checkDecision(cmd.decision, round.dealerId, round.resultEventId ?? round.openedEventId, { roundId: round.roundId });
  const voided: NewEvent = { eventId: ctx.newId(), type: 'RoundVoided', data: { roundId: round.roundId, cause: 'MANAGEMENT', decision, causedBy: null } };
  return [voided, ...refunds(round, voided.eventId, ctx)];
}

function correctResult(s: ShoeState, cmd: ShoeCommandOf<'CorrectResult'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  const round = requireRound(shoe, cmd.roundId);
  if (round.phase === 'VOIDED') throw alreadyVoided(round);
  if (round.phase !== 'RESULTED' || !round.outcome || !round.resultEventId) {
    throw new DomainError('ROUND.NOT_RESULTED', `round ${round.roundId} has no result to correct (${round.phase})`, { roundId: round.roundId, phase: round.phase });
  }
  const decision = checkDecision(cmd.decision, round.dealerId, round.resultEventId, { roundId: round.roundId });
  if (!Array.isArray(cmd.cards)) throw new DomainError('COMMAND.INVALID', 'cards must be a list of cards in dealing order', { field: 'cards' });
  const cards = cmd.cards.map((c) => parseCard(c));
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
      outcome: outcomeData(outcome),
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

function voidShoe(s: ShoeState, cmd: ShoeCommandOf<'VoidShoe'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireShoe(s);
  if (shoe.status === 'VOIDED') throw new DomainError('SHOE.ALREADY_VOIDED', `shoe ${shoe.shoeId} is already voided`, { shoeId: shoe.shoeId });
  const decision = checkDecision(cmd.decision, shoe.dealerId, shoe.openedEventId, { shoeId: shoe.shoeId });
  const toVoid = shoe.rounds.filter((r) => r.phase !== 'VOIDED');
  const shoeVoided: NewEvent = { eventId: ctx.newId(), type: 'ShoeVoided', data: { decision, roundIds: toVoid.map((r) => r.roundId) } };
  const events: NewEvent[] = [shoeVoided];
  for (const round of toVoid) events.push(...autoVoid(round, 'SHOE_VOIDED', shoeVoided.eventId, ctx));
  return events;
}

function closeShoe(s: ShoeState, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const cur = currentRound(shoe);
  if (cur) throw new DomainError('ROUND.IN_PROGRESS', `round ${cur.roundId} is still ${cur.phase}`, { roundId: cur.roundId, phase: cur.phase });
  const roundsPlayed = shoe.rounds.filter((r) => r.phase === 'RESULTED').length;
  return [{ eventId: ctx.newId(), type: 'ShoeClosed', data: { roundsPlayed, cardsRemaining: cardsRemaining(shoe.cards) } }];
}

function changeDealer(s: ShoeState, cmd: ShoeCommandOf<'ChangeDealer'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  requireId(cmd.dealerId, 'dealerId');
  const cur = currentRound(shoe);
  if (cur?.phase === 'DEALING') {
    throw new DomainError('DEALER.CHANGE_MID_DEALING', `round ${cur.roundId} is being dealt; change the dealer between rounds or while bets are open`, {
      roundId: cur.roundId,
    });
  }
  if (cmd.dealerId === shoe.dealerId) throw new DomainError('DEALER.UNCHANGED', `${cmd.dealerId} is already the dealer`, { dealerId: cmd.dealerId });
  return [{ eventId: ctx.newId(), type: 'DealerChanged', data: { previousDealerId: shoe.dealerId, dealerId: cmd.dealerId } }];
}

/**
 * §5: a reason (3..500 characters), an acting and a second, approving manager who differ and
 * neither of whom is the dealer concerned.
 */
function checkDecision(input: DecisionInput, dealerId: string, compensates: string, details: Record<string, unknown>): ManagementDecision {
  if (!input || typeof input !== 'object') throw new DomainError('MANAGEMENT.REASON_REQUIRED', 'a management decision needs a reason and two managers', details);
  const reason = checkReason(input.reason, 'MANAGEMENT.REASON_REQUIRED');
  const acting = input.actingManagerId;
  const approver = input.approverId;
  if (typeof acting !== 'string' || acting.trim() === '' || typeof approver !== 'string' || approver.trim() === '') {
    throw new DomainError('MANAGEMENT.MANAGER_REQUIRED', 'a management decision needs an acting and an approving manager', details);
  }
  if (acting === approver) {
    throw new DomainError('MANAGEMENT.SAME_APPROVER', 'the approving manager must differ from the acting one', { ...details, managerId: acting });
  }
  if (acting === dealerId || approver === dealerId) {
    throw new DomainError('MANAGEMENT.DEALER_CANNOT_DECIDE', `${dealerId} dealt it and may not decide on it`, { ...details, dealerId });
  }
  return { reason, actingManagerId: acting, approverId: approver, compensates };
}

function checkReason(reason: unknown, code: 'MANAGEMENT.REASON_REQUIRED' | 'COMMENCEMENT.REASON_REQUIRED'): string {
  const r = typeof reason === 'string' ? reason.trim() : '';
  if (r.length < 3 || r.length > 500) throw new DomainError(code, 'a reason of 3 to 500 characters is required', { length: r.length });
  return r;
}

// =============================================================================================
// Guards
// =============================================================================================

/** A state whose shoe has been opened: the fields ShoeOpened sets are present. */
type OpenedShoe = ShoeState & {
  readonly shoeId: string;
  readonly tableId: string;
  readonly openedEventId: string;
  readonly settings: TableSettings;
  readonly dealerId: string;
  readonly cards: CardAccounting;
};

/** The shoe, whatever its status once opened (management decisions). @throws `SHOE.NOT_FOUND` */
function requireShoe(s: ShoeState): OpenedShoe {
  if (s.status === 'NONE' || !s.settings || !s.cards) throw new DomainError('SHOE.NOT_FOUND', 'no shoe has been opened on this stream');
  return s as OpenedShoe;
}

/** The shoe, open to table facts and bets. @throws `SHOE.NOT_FOUND`, `SHOE.CLOSED`, `SHOE.VOIDED` */
function requireTable(s: ShoeState): OpenedShoe {
  const shoe = requireShoe(s);
  if (shoe.status === 'CLOSED') throw new DomainError('SHOE.CLOSED', `shoe ${shoe.shoeId} is closed`, { shoeId: shoe.shoeId });
  if (shoe.status === 'VOIDED') throw new DomainError('SHOE.VOIDED', `shoe ${shoe.shoeId} is voided`, { shoeId: shoe.shoeId });
  return shoe;
}

/** Any round of the shoe. @throws `ROUND.NOT_FOUND` */
function requireRound(s: ShoeState, roundId: string): RoundState {
  const r = typeof roundId === 'string' ? findRound(s, roundId) : undefined;
  if (!r) throw new DomainError('ROUND.NOT_FOUND', `no round ${String(roundId)} in this shoe`, { roundId });
  return r;
}

/** The shoe's latest round, named by the command. @throws `ROUND.NOT_FOUND`, `ROUND.NOT_CURRENT` */
function requireLatestRound(s: ShoeState, roundId: string): RoundState {
  const r = requireRound(s, roundId);
  const latest = latestRound(s)!;
  if (r !== latest) {
    throw new DomainError('ROUND.NOT_CURRENT', `round ${roundId} is not the current round (${latest.roundId} is)`, { roundId, currentRoundId: latest.roundId });
  }
  return r;
}

function requireId(v: unknown, field: string): asserts v is string {
  if (typeof v !== 'string' || v.trim() === '') throw new DomainError('COMMAND.INVALID', `${field} is required`, { field });
}

function commencementIncomplete(s: ShoeState): DomainError {
  const c = s.commencement;
  return new DomainError(
    'COMMENCEMENT.INCOMPLETE',
    c ? `commencement burns not done: ${c.burnsDone} of ${c.burnCount}` : 'the commencement card has not been drawn',
    c ? { commencementCard: c.card, burnCount: c.burnCount, burnsDone: c.burnsDone } : {},
  );
}

function notDealing(r: RoundState): DomainError {
  return new DomainError('ROUND.NOT_DEALING', `round ${r.roundId} is not being dealt (${r.phase})`, { roundId: r.roundId, phase: r.phase });
}

function alreadyVoided(r: RoundState): DomainError {
  return new DomainError('ROUND.ALREADY_VOIDED', `round ${r.roundId} is already voided (${r.voided?.cause})`, { roundId: r.roundId, cause: r.voided?.cause });
}

function wrongPhase(phase: string | null, why: string): DomainError {
  return new DomainError('CARD.WRONG_PHASE', why, { phase });
}

