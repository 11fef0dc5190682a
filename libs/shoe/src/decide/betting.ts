import { assertValidStake, builtInPaytable, isBetCodeOf, isBetOffered, MAIN_BETS, PAIR_BETS, type BetCode, type Paytable } from '@ledger/rules';
import type { NewEvent } from '@ledger/events';
import type { BetInput, DecideContext, ShoeCommandOf } from '../commands';
import { DomainError, passRulesErrors } from '../errors';
import { LogFold, logHas } from '../keyed-log';
import { commencementComplete, currentRound, type BetRecord, type RoundState, type ShoeState } from '../state';
import { commencementIncomplete, requireId, requireLatestRound, requireTable, roundInProgress, type OpenedShoe } from './guards';

/**
 * A round's betting: the round opens (bets open), bets are placed within the table's limits and
 * the variant's side-bet windows, betting closes. Section signs (§) are those of
 * docs/domain-rules.md: §3 variants and paytables, §4 money and limits, §5.2 the cut card.
 */

/**
 * `OpenRound` → RoundOpened with the round's hand number (rounds opened in the shoe, voided ones
 * included: §3.2 windows count them).
 * @throws `COMMAND.INVALID`, `ROUND.IN_PROGRESS`, `COMMENCEMENT.INCOMPLETE`, `SHOE.NO_MORE_ROUNDS`
 *   (§5.2: the cut card came out), `ROUND.DUPLICATE_ID`
 */
export function openRound(s: ShoeState, cmd: ShoeCommandOf<'OpenRound'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  requireId(cmd.roundId, 'roundId');
  const cur = currentRound(shoe);
  if (cur) throw roundInProgress(cur);
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

/**
 * `PlaceBets` → one BetPlaced per bet, in order. All or nothing: one refused bet refuses the
 * batch (the refusal's details name its `index` and `betId`).
 * @throws `ROUND.BETTING_CLOSED`, `COMMAND.INVALID` (no bet, an id missing), `BET.DUPLICATE_ID`,
 *   `BET.UNKNOWN_CODE`, `BET.OUTSIDE_WINDOW` (§3.2, §3.3), `BET.CURRENCY_MISMATCH`,
 *   `MONEY.INVALID_STAKE`, `BET.NOT_OFFERED`, `BET.BELOW_MINIMUM`, `BET.ABOVE_MAXIMUM` (§4),
 *   `BET.PAIR_NEEDS_MAIN_BET` (§3.1)
 */
export function placeBets(s: ShoeState, cmd: ShoeCommandOf<'PlaceBets'>, ctx: DecideContext): NewEvent[] {
  const shoe = requireTable(s);
  const round = requireLatestRound(shoe, cmd.roundId);
  if (round.phase !== 'BETTING') {
    throw new DomainError('ROUND.BETTING_CLOSED', `betting on round ${round.roundId} is closed (${round.phase})`, { roundId: round.roundId, phase: round.phase });
  }
  if (!Array.isArray(cmd.bets) || cmd.bets.length === 0) throw new DomainError('COMMAND.INVALID', 'PlaceBets needs at least one bet', { field: 'bets' });
  const { settings } = shoe;
  const paytable = builtInPaytable(settings.paytableRef);
  const pairsNeedMain = settings.variant === 'classic' && settings.pairBetsRequireMainBet;

  // What the account already has in this round (§4 max, §3.1), then what this batch adds (kept
  // apart: the round's fold is shared with the next request and a refused batch adds nothing)
  const before = ROUND_STAKES.of(round.bets);
  const totals = new Map<string, bigint>();
  const withMainBet = new Set<string>();

  const batchIds = new Set<string>();
  const events: NewEvent[] = [];
  cmd.bets.forEach((bet: BetInput, index: number) => {
    const at = { index, betId: bet?.betId };
    const code = checkBetKind(shoe, round, paytable, batchIds, bet, at);
    const k = totalKey(bet.accountId, code);
    const total = checkStake(shoe, code, bet, totals.get(k) ?? before.totals.get(k) ?? 0n, at);
    // §3.1: a pair wager needs a main wager by the same account accepted before it (this batch counts).
    if (pairsNeedMain && PAIR_BETS.includes(code) && !withMainBet.has(bet.accountId) && !before.withMainBet.has(bet.accountId)) {
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
      data: { betId: bet.betId, roundId: round.roundId, accountId: bet.accountId, betCode: code, stake: bet.stake.toString(), currency: bet.currency },
    });
  });
  return events;
}

/** Where a refusal of one bet of a batch points: its index and bet id. */
type BetAt = { readonly index: number; readonly betId: unknown };

/**
 * The checks of one bet of a batch that come before its stake: its ids, not used in the shoe or
 * the batch (the id is then taken), a bet code of the variant, offered on this hand (§3.2, §3.3),
 * in the table's currency.
 * @returns the bet's code
 */
function checkBetKind(shoe: OpenedShoe, round: RoundState, paytable: Paytable, batchIds: Set<string>, bet: BetInput, at: BetAt): BetCode {
  const { settings } = shoe;
  requireId(bet?.betId, `bets[${at.index}].betId`);
  requireId(bet.accountId, `bets[${at.index}].accountId`);
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
  return code;
}

/**
 * The checks of one bet's stake (§4): a valid amount, a bet the table has limits for, at least its
 * minimum, and the account's total on the code in the round with it at most its maximum.
 * @param before the account's total on the code in the round before this bet
 * @returns the account's total on the code with this bet
 */
function checkStake(shoe: OpenedShoe, code: BetCode, bet: BetInput, before: bigint, at: BetAt): bigint {
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
  const total = before + stake;
  if (total > limits.max) {
    throw new DomainError('BET.ABOVE_MAXIMUM', `account ${bet.accountId} would have ${total} on ${code} in this round, above the maximum ${limits.max}`, {
      ...at,
      accountId: bet.accountId,
      stake: stake.toString(),
      accountTotal: total.toString(),
      max: limits.max.toString(),
    });
  }
  return total;
}

/** Key of an account's total on a bet code in the round (NUL cannot occur in either id). */
/** Stakes of a round's bets so far: totals per account and bet code (§4), accounts with a main wager (§3.1). */
interface RoundStakes {
  readonly totals: Map<string, bigint>;
  readonly withMainBet: Set<string>;
}

/**
 * {@link RoundStakes} of a round's bets log, folded incrementally: a bet on a round of 20,000 bets
 * costs the new bets, not a pass over the 20,000 (which made one bet there ~3× the cost of one on a
 * fresh round).
 */
const ROUND_STAKES = new LogFold<BetRecord, RoundStakes>(
  () => ({ totals: new Map(), withMainBet: new Set() }),
  (acc, b) => {
    const k = totalKey(b.accountId, b.betCode);
    acc.totals.set(k, (acc.totals.get(k) ?? 0n) + b.stake);
    if (MAIN_BETS.includes(b.betCode)) acc.withMainBet.add(b.accountId);
  },
);

function totalKey(accountId: string, code: string): string {
  return `${code}\u0000${accountId}`;
}

/**
 * `CloseBetting` → BettingClosed with the round's bet count and total stake (minor units); the
 * round is being dealt.
 * @throws `ROUND.BETTING_CLOSED`
 */
export function closeBetting(s: ShoeState, cmd: ShoeCommandOf<'CloseBetting'>, ctx: DecideContext): NewEvent[] {
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
