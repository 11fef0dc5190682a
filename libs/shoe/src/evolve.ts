import { parseCard, RulesError, type Card } from '@ledger/rules';
import type { LedgerEventMap, LedgerEventType, NewEvent, ShoeEventType } from '@ledger/events';
import { newAccounting, putBack, takeOut, type CardAccounting } from './accounting';
import { DomainError } from './errors';
import { emptyLog, logAppend, logGet, logHas, type KeyedLog } from './keyed-log';
import { decisionClosed, decisionRequested } from './decisions/evolve-decisions';
import { commencementComplete, initialState, type BetLimits, type BetSettlementRecord, type RoundState, type ShoeState, type ShoeStatus } from './state';

/**
 * `evolve(state, event)`: folds one recorded event into the shoe's state. Events are facts:
 * `evolve` never refuses a valid stream; it throws only on a stream that cannot be (a bet in an
 * unknown round, a ninth KH in an 8-deck shoe…): `EVENT.INCONSISTENT`, `EVENT.UNKNOWN_TYPE`,
 * `SHOE.CARD_EXCEEDS_DECKS`, `CARD.MALFORMED`.
 *
 * ## Cost (measured in `bench/fold.bench.ts`)
 * A stream holds ~80 rounds with up to 10,000 bets each; a fold of 100,000 events must stay well
 * under a second. The state is immutable to callers, and copies are kept small:
 * - the top-level state object is shallow-copied per event (20 fields) into a *draft* that only
 *   the running handler holds; the handler sets the fields that change and the draft becomes the
 *   new state. The copies are written field by field ({@link draftState}, {@link draftRound}):
 *   V8's object spread of a 20-field object measured ~30× slower (≈500 ns against 16 ns), which
 *   made the 100k-event fold ~240 ms instead of ~70–120 ms;
 * - a round is copy-on-write: only the touched round object is replaced, and the `rounds` array
 *   (≤ ~80 pointers) is sliced;
 * - bets, settlements and the id indexes are {@link KeyedLog}s: persistent append-only views,
 *   O(1) per append with no copy, and older states still see exactly what they saw;
 * - card accounting copies its ≤52-entry per-code record per card (≈ 500 cards per shoe).
 * So a fold is O(events × rounds-per-shoe) in pointer copies, effectively linear.
 *
 * Because no state is ever mutated once returned, callers may keep states (a cache of folded
 * shoes, a test's "given") and evolve any of them again: evolving an older state forks its
 * KeyedLogs (one O(size) copy) instead of corrupting the newer one.
 */

/** What `evolve` reads of an event: a stored envelope or a {@link NewEvent} from `decide` both fit. */
export type EvolvableEvent = NewEvent;

/**
 * Folds one event into the state and returns the new state; `state` is left unchanged.
 * @throws DomainError `EVENT.INCONSISTENT` / `EVENT.UNKNOWN_TYPE` / `SHOE.CARD_EXCEEDS_DECKS` on a
 *   stream no `decide` could have produced
 */
export function evolve(state: ShoeState, event: EvolvableEvent): ShoeState {
  const handler = (HANDLERS as Partial<Record<LedgerEventType, Handler<LedgerEventType>>>)[event.type];
  if (!handler) {
    throw new DomainError('EVENT.UNKNOWN_TYPE', `evolve: unknown event type ${JSON.stringify(event.type)}`, { type: event.type });
  }
  const next = draftState(state);
  handler(next, event.data as never, event.eventId);
  return next;
}

/** Folds events in order from `state` (default: the empty stream). */
export function fold(events: Iterable<EvolvableEvent>, state: ShoeState = initialState()): ShoeState {
  let s = state;
  for (const e of events) s = evolve(s, e);
  return s;
}

type Draft<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A handler edits `n`, a fresh shallow copy of the previous state with `version` already bumped.
 * Reading `n` before writing a field gives the previous state's value.
 */
type Handler<K extends LedgerEventType> = (n: Draft<ShoeState>, data: LedgerEventMap[K], eventId: string) => void;

/** One handler per type of a shoe's stream (a gaming day's events never reach a shoe's fold). */
const HANDLERS: { [K in ShoeEventType]: Handler<K> } = {
  DecisionRequested(n, d, eventId) {
    n.decisions = decisionRequested(n.decisions, d, eventId);
  },
  DecisionApproved(n, d, eventId) {
    n.decisions = decisionClosed(n.decisions, d, 'APPROVED', eventId);
  },
  DecisionRejected(n, d, eventId) {
    n.decisions = decisionClosed(n.decisions, d, 'REJECTED', eventId);
  },
  DecisionExpired(n, d, eventId) {
    n.decisions = decisionClosed(n.decisions, d, 'EXPIRED', eventId);
  },
  ShoeOpened(n, d, eventId) {
    const limits: Record<string, BetLimits> = {};
    for (const [code, l] of Object.entries(d.limits)) limits[code] = { min: BigInt(l.min), max: BigInt(l.max) };
    n.status = 'OPEN';
    n.shoeId = d.shoeId;
    n.tableId = d.tableId;
    n.dealerId = d.dealerId;
    n.openedEventId = eventId;
    n.settings = {
      variant: d.variant,
      decks: d.decks,
      virtualTable: d.virtualTable,
      paytableRef: d.paytableRef,
      pairBetsRequireMainBet: d.pairBetsRequireMainBet,
      currency: d.currency,
      limits: d.limits,
    };
    n.limits = limits;
    n.cards = newAccounting(d.decks);
  },

  CommencementCardDrawn(n, d, eventId) {
    n.cards = takeOut(acc(n), card(d.card), 'burned');
    n.commencement = { eventId, card: d.card, burnCount: d.burnCount, burnsDone: 0, corrections: 0 };
    n.status = 'COMMENCING';
  },

  CommencementCorrected(n, d, eventId) {
    const prev = n.commencement;
    if (!prev) throw inconsistent('CommencementCorrected before any commencement card', { eventId });
    // The corrected card replaces the one recorded (the record was wrong: that card never left);
    // burns made so far stay out of the shoe, and the burn count restarts at 0 (§5.1).
    n.cards = takeOut(putBack(acc(n), card(prev.card), 'burned'), card(d.card), 'burned');
    n.commencement = { eventId, card: d.card, burnCount: d.burnCount, burnsDone: 0, corrections: prev.corrections + 1 };
    if (n.status === 'OPEN' || n.status === 'READY') n.status = 'COMMENCING';
  },

  CardBurned(n, d) {
    n.cards = takeOut(acc(n), d.card === null ? null : card(d.card), 'burned');
    if (d.phase !== 'COMMENCEMENT') return;
    const c = n.commencement;
    if (!c) throw inconsistent('commencement burn before the commencement card', {});
    n.commencement = { ...c, burnsDone: c.burnsDone + 1 };
    if (n.commencement.burnsDone >= c.burnCount && n.status === 'COMMENCING') n.status = 'READY';
  },

  RoundOpened(n, d, eventId) {
    n.roundIndex = appendUnique(n.roundIndex, d.roundId, n.rounds.length, 'round opened twice');
    n.rounds = [
      ...n.rounds,
      {
        roundId: d.roundId,
        handNumber: d.handNumber,
        phase: 'BETTING',
        openedEventId: eventId,
        dealerId: n.dealerId ?? '',
        bets: emptyLog(),
        totalStake: 0n,
        settlements: emptyLog(),
        cards: [],
        unneeded: [],
        outcome: null,
        resultEventId: null,
        voided: null,
        lastHand: false,
      },
    ];
    n.handNumber = d.handNumber;
    n.status = 'IN_ROUND';
  },

  BetPlaced(n, d, eventId) {
    const stake = BigInt(d.stake);
    const r = editRound(n, d.roundId);
    r.bets = appendUnique(r.bets, d.betId, { betId: d.betId, roundId: d.roundId, accountId: d.accountId, betCode: d.betCode, stake, currency: d.currency, placedEventId: eventId }, 'bet placed twice in its round');
    r.totalStake += stake;
    n.betIndex = appendUnique(n.betIndex, d.betId, d.roundId, 'bet placed twice in the shoe');
  },

  BettingClosed(n, d) {
    editRound(n, d.roundId).phase = 'DEALING';
  },

  CardDealt(n, d) {
    const c = card(d.card);
    n.cards = takeOut(acc(n), c, 'dealt');
    const r = editRound(n, d.roundId);
    r.cards = [...r.cards, c];
    n.firstCardDealt = true;
  },

  CardExposed(n, d) {
    // §5.3: an exposed card that came out of the shoe (bets open, dealing, between rounds) counts
    // against it; an exposure during shuffling or commencement is recorded only.
    if (d.phase === 'COMMENCEMENT' || d.phase === 'SHUFFLE') return;
    n.cards = takeOut(acc(n), card(d.card), 'exposed');
  },

  CardDropped(n, d) {
    // §5.5: a dropped card is picked up and reused, except one dropped during dealing without
    // having been exposed: that one is out of the shoe (and its round is voided).
    if (d.phase !== 'DEALING' || d.exposedBeforeLeavingView) return;
    n.cards = takeOut(acc(n), d.card === null ? null : card(d.card), 'dropped');
  },

  UnneededCardDrawn(n, d) {
    n.cards = takeOut(acc(n), card(d.card), 'unneeded');
    const r = editRound(n, d.roundId);
    r.unneeded = [...r.unneeded, d.card];
  },

  CutCardDrawn(n, d, eventId) {
    n.cutCard = { eventId, timing: d.timing, roundId: d.roundId };
    n.noMoreRounds = true;
    if (d.timing === 'DURING_DEALING' && d.roundId !== null) {
      editRound(n, d.roundId).lastHand = true;
      n.lastHandRoundId = d.roundId;
    }
  },

  RoundResulted(n, d, eventId) {
    const r = editRound(n, d.roundId);
    r.phase = 'RESULTED';
    r.outcome = d.outcome;
    r.resultEventId = eventId;
    r.settlements = emptyLog();
    n.status = idleStatus(n);
  },

  BetSettled(n, d, eventId) {
    recordSettlement(n, d.roundId, d.betId, { kind: 'SETTLED', eventId, revision: d.revision });
  },

  RoundVoided(n, d, eventId) {
    const r = editRound(n, d.roundId);
    const wasInProgress = r.phase === 'BETTING' || r.phase === 'DEALING';
    r.phase = 'VOIDED';
    r.voided = { eventId, cause: d.cause };
    r.settlements = emptyLog();
    if (wasInProgress && n.status === 'IN_ROUND') n.status = idleStatus(n);
  },

  BetRefunded(n, d, eventId) {
    recordSettlement(n, d.roundId, d.betId, { kind: 'REFUNDED', eventId, revision: d.revision });
  },

  ResultCorrected(n, d, eventId) {
    const r = editRound(n, d.roundId);
    const corrected = d.cards.map(card);
    // The corrected cards replace the recorded ones in the accounting: the record was wrong.
    let accounting = acc(n);
    for (const c of r.cards) accounting = putBack(accounting, c, 'dealt');
    for (const c of corrected) accounting = takeOut(accounting, c, 'dealt');
    n.cards = accounting;
    r.cards = corrected;
    r.outcome = d.outcome;
    r.resultEventId = eventId;
    r.settlements = emptyLog();
  },

  BetResettled(n, d, eventId) {
    recordSettlement(n, d.roundId, d.betId, { kind: 'RESETTLED', eventId, revision: d.revision });
  },

  ShoeVoided(n, _d, eventId) {
    n.status = 'VOIDED';
    n.voidedEventId = eventId;
  },

  ShoeClosed(n, _d, eventId) {
    n.status = 'CLOSED';
    n.closedEventId = eventId;
  },

  DealerChanged(n, d) {
    n.dealerId = d.dealerId;
    // A dealer who takes over while bets are open deals the round: they are its dealer (§6 decisions).
    const last = n.rounds[n.rounds.length - 1];
    if (last && last.phase === 'BETTING') editRound(n, last.roundId).dealerId = d.dealerId;
  },
};

// ---------------------------------------------------------------------------------------------

/** A field-by-field copy of the state with the version bumped (see "Cost" above for why not a spread). */
function draftState(s: ShoeState): Draft<ShoeState> {
  return {
    status: s.status,
    version: s.version + 1,
    shoeId: s.shoeId,
    tableId: s.tableId,
    openedEventId: s.openedEventId,
    settings: s.settings,
    limits: s.limits,
    dealerId: s.dealerId,
    cards: s.cards,
    commencement: s.commencement,
    firstCardDealt: s.firstCardDealt,
    handNumber: s.handNumber,
    rounds: s.rounds,
    roundIndex: s.roundIndex,
    betIndex: s.betIndex,
    cutCard: s.cutCard,
    noMoreRounds: s.noMoreRounds,
    lastHandRoundId: s.lastHandRoundId,
    closedEventId: s.closedEventId,
    voidedEventId: s.voidedEventId,
    decisions: s.decisions,
  };
}

/** A field-by-field copy of a round. */
function draftRound(r: RoundState): Draft<RoundState> {
  return {
    roundId: r.roundId,
    handNumber: r.handNumber,
    phase: r.phase,
    openedEventId: r.openedEventId,
    dealerId: r.dealerId,
    bets: r.bets,
    totalStake: r.totalStake,
    settlements: r.settlements,
    cards: r.cards,
    unneeded: r.unneeded,
    outcome: r.outcome,
    resultEventId: r.resultEventId,
    voided: r.voided,
    lastHand: r.lastHand,
  };
}

/**
 * Copy-on-write of one round: the draft state gets a copy of the rounds array (≤ ~80 pointers)
 * holding a draft of `roundId`'s round, which the caller edits.
 */
function editRound(n: Draft<ShoeState>, roundId: string): Draft<RoundState> {
  const i = logGet(n.roundIndex, roundId);
  if (i === undefined) throw inconsistent(`event for unknown round ${roundId}`, { roundId });
  const rounds = n.rounds.slice();
  const r = draftRound(rounds[i]);
  rounds[i] = r;
  n.rounds = rounds;
  return r;
}

function recordSettlement(n: Draft<ShoeState>, roundId: string, betId: string, rec: BetSettlementRecord): void {
  const r = editRound(n, roundId);
  if (!logHas(r.bets, betId)) throw inconsistent(`settlement of unknown bet ${betId} in round ${roundId}`, { roundId, betId });
  r.settlements = appendUnique(r.settlements, betId, rec, 'bet settled twice for the same result');
}

/** `logAppend`, reporting a duplicate key as a corrupt stream. */
function appendUnique<V>(log: KeyedLog<V>, key: string, value: V, what: string): KeyedLog<V> {
  try {
    return logAppend(log, key, value); // throws on a key the view already holds
  } catch {
    throw inconsistent(`${what}: ${key}`, { key });
  }
}

function acc(s: ShoeState): CardAccounting {
  if (!s.cards) throw inconsistent('card event before ShoeOpened', {});
  return s.cards;
}

function card(code: string): Card {
  try {
    return parseCard(code);
  } catch (e) {
    if (e instanceof RulesError) throw DomainError.fromRules(e);
    throw e;
  }
}

/** Status once no round is in progress: READY, or COMMENCING while a corrected commencement still burns. */
function idleStatus(s: ShoeState): ShoeStatus {
  if (s.status === 'CLOSED' || s.status === 'VOIDED') return s.status;
  return commencementComplete(s) ? 'READY' : 'COMMENCING';
}

function inconsistent(message: string, details: Record<string, unknown>): DomainError {
  return new DomainError('EVENT.INCONSISTENT', `evolve: ${message}`, details);
}
