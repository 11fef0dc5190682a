import type { BetCode, Card } from '@ledger/rules';
import type { CutCardDrawnData, DecisionProposal, Evidence, RoundOutcomeData, TableSettings, VoidCause } from '@ledger/events';
import { cardsRemaining, type CardAccounting } from './accounting';
import { emptyLog, logGet, logToArray, logValues, type KeyedLog } from './keyed-log';

/**
 * The state of one shoe stream (`shoe-<shoeId>`): what `decide` needs to judge the next command,
 * folded from the stream's events by `evolve`. Plain immutable data; never stored, always rebuilt.
 *
 * Status life cycle:
 * ```
 * NONE ─ShoeOpened→ OPEN ─CommencementCardDrawn→ COMMENCING ─last burn→ READY ⇄ IN_ROUND
 *                   (CommencementCorrected before the first card dealt: back to COMMENCING)
 * any opened status ─ShoeClosed→ CLOSED        any opened status ─ShoeVoided→ VOIDED
 * ```
 * READY means "between rounds": a round may open unless the cut card said none will
 * ({@link ShoeState.noMoreRounds}).
 */
export type ShoeStatus = 'NONE' | 'OPEN' | 'COMMENCING' | 'READY' | 'IN_ROUND' | 'CLOSED' | 'VOIDED';

/** Phase of a round: bets open → dealing (betting closed) → resulted; voided from any phase. */
export type RoundPhase = 'BETTING' | 'DEALING' | 'RESULTED' | 'VOIDED';

/** The commencement in force (§5.1). */
export interface Commencement {
  /** eventId of the CommencementCardDrawn or of the latest CommencementCorrected. */
  readonly eventId: string;
  /** The commencement card, canonical code. */
  readonly card: string;
  /** Burns the card calls for (A = 1, 2–9 face, T/J/Q/K = 10). */
  readonly burnCount: number;
  /** Burns done since the commencement in force (a correction restarts the count at 0). */
  readonly burnsDone: number;
  /** CommencementCorrected events so far. */
  readonly corrections: number;
}

/** A bet as placed. Immutable: what changes (its settlement) lives in {@link RoundState.settlements}. */
export interface BetRecord {
  readonly betId: string;
  readonly roundId: string;
  readonly accountId: string;
  readonly betCode: BetCode;
  /** Minor units. */
  readonly stake: bigint;
  readonly currency: string;
  /** eventId of the BetPlaced. */
  readonly placedEventId: string;
}

/** The settlement of a bet in force: the BetSettled, BetResettled or BetRefunded event that last touched it. */
export interface BetSettlementRecord {
  readonly kind: 'SETTLED' | 'RESETTLED' | 'REFUNDED';
  readonly eventId: string;
  /** Settlement revision: 1 for BetSettled, +1 per BetResettled; a refund keeps the revision it ends. */
  readonly revision: number;
}

/** One round of the shoe. */
export interface RoundState {
  readonly roundId: string;
  /** 1-based number of the round in its shoe, voided rounds counted (§3.2 windows). */
  readonly handNumber: number;
  readonly phase: RoundPhase;
  /** eventId of the RoundOpened. */
  readonly openedEventId: string;
  /** The dealer of the round: the shoe's dealer when it opened, or the one who took over during its betting. */
  readonly dealerId: string;
  /** Bets in placement order, by betId. */
  readonly bets: KeyedLog<BetRecord>;
  /** Sum of the stakes of {@link bets}, minor units. */
  readonly totalStake: bigint;
  /**
   * Each bet's settlement in force, by betId. A new, empty log starts with every RoundResulted,
   * ResultCorrected and RoundVoided (a new settlement "generation"); the BetSettled / BetResettled
   * / BetRefunded events that follow fill it. A bet absent from it has not been settled (revision 0).
   */
  readonly settlements: KeyedLog<BetSettlementRecord>;
  /** Cards in the hands, in dealing order P1 B1 P2 B2 [P3] [B3] (the corrected ones after a ResultCorrected). */
  readonly cards: readonly Card[];
  /** Codes of the unneeded cards drawn during or right after the round (§5.3). */
  readonly unneeded: readonly string[];
  /** The outcome in force (from RoundResulted, or the latest ResultCorrected), else null. */
  readonly outcome: RoundOutcomeData | null;
  /** eventId of the RoundResulted or ResultCorrected in force, else null. */
  readonly resultEventId: string | null;
  /** The void, when the round is VOIDED. */
  readonly voided: { readonly eventId: string; readonly cause: VoidCause } | null;
  /** The cut card came out during this round's dealing: it is the shoe's last hand (§5.2). */
  readonly lastHand: boolean;
}

/** The cut card, once drawn (§5.2). */
export interface CutCardState {
  readonly eventId: string;
  readonly timing: CutCardDrawnData['timing'];
  /** The round it came out in (DURING_DEALING, BEFORE_DEALING), else null. */
  readonly roundId: string | null;
}

/** Limits of one bet code in minor units (§4): `min` per stake, `max` per account per code per round. */
export interface BetLimits {
  readonly min: bigint;
  readonly max: bigint;
}

/** A four-eyes decision as the shoe state keeps it (docs/domain-rules.md §6). */
export interface DecisionRecord {
  readonly decisionId: string;
  /** eventId of the DecisionRequested. */
  readonly requestedEventId: string;
  readonly proposal: DecisionProposal;
  readonly reason: string;
  readonly requestedBy: string;
  readonly expiresAt: string;
  readonly roundIds: readonly string[];
  readonly dealerIds: readonly string[];
  readonly status: 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'EXPIRED';
  /** eventId of the DecisionApproved / DecisionRejected / DecisionExpired, else null. */
  readonly closedEventId: string | null;
  /** The requester's evidence (docs/reports.md §7), carried onto the compensating events; absent when none. */
  readonly evidence?: Evidence;
}

/** The state of a shoe stream. See {@link ShoeStatus} for the life cycle. */
export interface ShoeState {
  readonly status: ShoeStatus;
  /** Number of events folded into this state (the stream version it reflects). */
  readonly version: number;
  readonly shoeId: string | null;
  readonly tableId: string | null;
  /** eventId of the ShoeOpened (what a ShoeVoided compensates). */
  readonly openedEventId: string | null;
  /** Snapshot of the table's settings when the shoe opened; replay never reads current config. */
  readonly settings: TableSettings | null;
  /** {@link TableSettings.limits} parsed to bigint, by bet code. */
  readonly limits: Readonly<Record<string, BetLimits>>;
  /** The dealer now at the table. */
  readonly dealerId: string | null;
  /** Card accounting (null before the shoe opens). */
  readonly cards: CardAccounting | null;
  /** The commencement in force (null until the commencement card is drawn). */
  readonly commencement: Commencement | null;
  /** A CardDealt has been recorded in this shoe (after that, no commencement correction, §5.1). */
  readonly firstCardDealt: boolean;
  /** Rounds opened so far, voided ones included (the hand number of the latest round). */
  readonly handNumber: number;
  /** Every round, in hand order. Copy-on-write: only the touched round is replaced. */
  readonly rounds: readonly RoundState[];
  /** roundId → index in {@link rounds}. */
  readonly roundIndex: KeyedLog<number>;
  /** betId → roundId for every bet of the shoe (bet ids are unique per shoe). */
  readonly betIndex: KeyedLog<string>;
  /** The cut card, once drawn. */
  readonly cutCard: CutCardState | null;
  /** No further round may open: the cut card came out (§5.2). */
  readonly noMoreRounds: boolean;
  /** The round the cut card made the last hand (drawn during its dealing), else null. */
  readonly lastHandRoundId: string | null;
  /** eventId of the ShoeClosed / ShoeVoided, else null. */
  readonly closedEventId: string | null;
  readonly voidedEventId: string | null;
  /** Four-eyes decisions on this shoe, in request order (docs/domain-rules.md §6). */
  readonly decisions: readonly DecisionRecord[];
}

/** The state of a stream with no event: status NONE. */
export function initialState(): ShoeState {
  return {
    status: 'NONE',
    version: 0,
    shoeId: null,
    tableId: null,
    openedEventId: null,
    settings: null,
    limits: {},
    dealerId: null,
    cards: null,
    commencement: null,
    firstCardDealt: false,
    handNumber: 0,
    rounds: [],
    roundIndex: emptyLog(),
    betIndex: emptyLog(),
    cutCard: null,
    noMoreRounds: false,
    lastHandRoundId: null,
    closedEventId: null,
    voidedEventId: null,
    decisions: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Read helpers (pure, O(1) unless stated)
// ---------------------------------------------------------------------------------------------

/** A round by id, or undefined. */
export function findRound(state: ShoeState, roundId: string): RoundState | undefined {
  const i = logGet(state.roundIndex, roundId);
  return i === undefined ? undefined : state.rounds[i];
}

/** The latest round opened, whatever its phase, or undefined. */
export function latestRound(state: ShoeState): RoundState | undefined {
  return state.rounds[state.rounds.length - 1];
}

/** The round in progress (BETTING or DEALING), or undefined. Only the latest round can be. */
export function currentRound(state: ShoeState): RoundState | undefined {
  const r = latestRound(state);
  return r && (r.phase === 'BETTING' || r.phase === 'DEALING') ? r : undefined;
}

/** Whether the commencement card is drawn and all its burns are done (§5.1). */
export function commencementComplete(state: ShoeState): boolean {
  const c = state.commencement;
  return c !== null && c.burnsDone >= c.burnCount;
}

/** Cards still in the shoe (0 before it opens). */
export function remainingCards(state: ShoeState): number {
  return state.cards ? cardsRemaining(state.cards) : 0;
}

/** The bets of a round in placement order. O(bets). */
export function roundBets(round: RoundState): BetRecord[] {
  return logToArray(round.bets);
}

/** Iterates the bets of a round in placement order without copying. */
export function eachBet(round: RoundState): IterableIterator<BetRecord> {
  return logValues(round.bets);
}

/** A bet of a round by id. */
export function findBetInRound(round: RoundState, betId: string): BetRecord | undefined {
  return logGet(round.bets, betId);
}

/** A bet of the shoe by id, with its round. */
export function findBet(state: ShoeState, betId: string): { round: RoundState; bet: BetRecord } | undefined {
  const roundId = logGet(state.betIndex, betId);
  if (roundId === undefined) return undefined;
  const round = findRound(state, roundId)!;
  return { round, bet: logGet(round.bets, betId)! };
}

/** The settlement in force of a bet of the round, or undefined if the bet has not been settled. */
export function betSettlement(round: RoundState, betId: string): BetSettlementRecord | undefined {
  return logGet(round.settlements, betId);
}

/** A bet's settlement revision in force: 0 when never settled. */
export function betRevision(round: RoundState, betId: string): number {
  return logGet(round.settlements, betId)?.revision ?? 0;
}
