import {
  BET_CODES,
  commencementBurnCount,
  dealRound,
  defaultPaytable,
  isBetOffered,
  payoffFor,
  RANKS,
  settle,
  SUITS,
  type BetCode,
  type Card,
  type Paytable,
  type RoundOutcome,
  type Variant,
  card as makeCard,
} from '@ledger/rules';
import { roundOutcomeData, type Actor, type BetSettlementData, type LedgerEvent, type ManagementDecision, type RoundOutcomeData } from '@ledger/events';
import { formatFraction } from '../rational';
import { assignPositions, idFactory, StreamBuilder } from './envelopes';

/**
 * A generator of realistic, valid shoe streams for volume tests and benchmarks (the hand-written
 * fixture is `small-shoe.fixture.ts`). Outcomes and settlements come from `@ledger/rules`; the
 * event sequences follow the write side's `decide` (libs/shoe): commencement and burns, bets,
 * dealing by the tableau, results and settlements, dealer changes, exposed-card voids while bets
 * are open, management voids after the result, result corrections with resettlements, the cut
 * card during dealing, closing or voiding the shoe. Deterministic for a given seed.
 */
export interface SyntheticOptions {
  /** Number of shoes (each on its own table). */
  readonly shoes: number;
  readonly seed?: number;
  /** Mean bets per round (uniform 1 .. 2×mean−1). @default 6 */
  readonly betsPerRound?: number;
  /** Stop a shoe after this many rounds (else at the cut card). */
  readonly maxRounds?: number;
  /** @default 0.03 */
  readonly voidRate?: number;
  /** @default 0.03 */
  readonly correctionRate?: number;
  /** @default 0.01 */
  readonly exposedCardRate?: number;
  /** Share of shoes voided by management at the end instead of closed. @default 0.1 */
  readonly shoeVoidRate?: number;
  /** First shoe's opening time. @default 2025-03-01T04:40:00Z (so rounds straddle the 06:00 cut-off) */
  readonly startAt?: string;
  /** Prefix of shoe and table ids (make it unique per test run). @default 'syn' */
  readonly prefix?: string;
  /**
   * Add a significant event's stream (docs/significant-events.md) after every round voided and
   * result corrected: its raise, and for every other one its acknowledgement. @default false
   */
  readonly significantEvents?: boolean;
}

/** Generated streams, interleaved by time with global positions assigned. */
export interface SyntheticLedger {
  readonly events: LedgerEvent[];
  readonly streams: LedgerEvent[][];
}

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STAKES = ['5', '10', '15', '25', '55', '100', '250', '1000', '5000'];
const VARIANTS: Variant[] = ['classic', 'tiger', 'fabulous4'];

interface Bet {
  betId: string;
  accountId: string;
  betCode: BetCode;
  stake: bigint;
  settlementEventId: string | null;
  revision: number;
}

/** Generates `options.shoes` shoes. */
export function syntheticLedger(options: SyntheticOptions): SyntheticLedger {
  const rnd = prng(options.seed ?? 42);
  const streams: LedgerEvent[][] = [];
  const start = Date.parse(options.startAt ?? '2025-03-01T04:40:00.000Z');
  for (let i = 0; i < options.shoes; i++) streams.push(generateShoe(i, start + i * 180_000, rnd, options));
  if (options.significantEvents) streams.push(...significantStreams(streams, idFactory(`${options.prefix ?? 'syn'}-significant`)));
  return { streams, events: assignPositions(streams) };
}

/** A significant event's stream per round voided or result corrected of `shoes`: raised 1 ms after its cause, every other one acknowledged 1 s later. */
function significantStreams(shoes: readonly LedgerEvent[][], newId: () => string): LedgerEvent[][] {
  const out: LedgerEvent[][] = [];
  for (const cause of shoes.flat()) {
    if (cause.type !== 'RoundVoided' && cause.type !== 'ResultCorrected') continue;
    const id = newId();
    const code = cause.type === 'RoundVoided' ? 'ROUND.VOIDED' : 'RESULT.CORRECTED';
    const b = new StreamBuilder(id, cause.tableId, null, newId, `significant-${id}`);
    const t = Date.parse(cause.occurredAt);
    const named = { eventId: cause.eventId, globalPosition: '0', streamId: cause.streamId, eventType: cause.type };
    const raised = { significantEventId: id, code, severity: code === 'ROUND.VOIDED' ? 'medium' : 'high', cause: named, tableId: cause.tableId, roundId: cause.data.roundId, actor: cause.actor.id, details: {} };
    b.add('SignificantEventRaised', raised, { actor: { id: 'significant-event-monitor', role: 'system' }, occurredAt: new Date(t + 1).toISOString(), eventId: id });
    if (out.length % 2 === 0) {
      b.add(
        'SignificantEventAcknowledged',
        { significantEventId: id, code, reason: 'reviewed', acknowledgedBy: 'pm-ack', role: 'pit-manager' },
        { actor: { id: 'pm-ack', role: 'pit-manager' }, occurredAt: new Date(t + 1000).toISOString() },
      );
    }
    out.push(b.events);
  }
  return out;
}

function generateShoe(index: number, startMs: number, rnd: () => number, o: SyntheticOptions): LedgerEvent[] {
  const prefix = o.prefix ?? 'syn';
  const shoeId = `${prefix}-${index}`;
  const tableId = `T-${prefix}-${index}`;
  const variant = VARIANTS[index % VARIANTS.length];
  const paytable: Paytable = defaultPaytable(variant);
  const s = new StreamBuilder(shoeId, tableId, null, idFactory(`synthetic:${shoeId}`));
  const device: Actor = { id: `device-${tableId}`, role: 'table-device' };
  const platform: Actor = { id: 'betting-platform-1', role: 'betting-platform' };
  const manager: Actor = { id: 'PM-1', role: 'pit-manager' };
  const decisionBy = (reason: string, compensates: string): ManagementDecision => ({ reason, actingManagerId: 'PM-1', approverId: 'PM-2', compensates });
  let clock = startMs;
  const at = (stepMs = 2000) => new Date((clock += stepMs)).toISOString();
  const ev = (actor: Actor, stepMs?: number) => ({ actor, occurredAt: at(stepMs) });
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

  // the shoe: 8 decks, shuffled
  const deck: Card[] = [];
  for (let d = 0; d < 8; d++) for (const r of RANKS) for (const su of SUITS) deck.push(makeCard(r, su));
  for (let k = deck.length - 1; k > 0; k--) {
    const j = Math.floor(rnd() * (k + 1));
    [deck[k], deck[j]] = [deck[j], deck[k]];
  }
  let remaining = deck.length;
  const draw = (): Card => {
    remaining--;
    return deck.shift()!;
  };

  const limits = Object.fromEntries((BET_CODES[variant] as readonly string[]).map((c) => [c, { min: '5', max: '100000000' }]));
  let dealerNo = 1;
  s.add(
    'ShoeOpened',
    { shoeId, tableId, dealerId: `D-${index}-${dealerNo}`, variant, decks: 8, virtualTable: false, paytableRef: paytable.ref, pairBetsRequireMainBet: false, currency: index % 5 === 4 ? 'USD' : 'EUR', limits },
    ev(device, 0),
  );
  const currency = index % 5 === 4 ? 'USD' : 'EUR';
  const first = draw();
  const burns = commencementBurnCount(first.rank);
  s.add('CommencementCardDrawn', { card: first.code, burnCount: burns }, ev(device));
  for (let b = 1; b <= burns; b++) {
    draw();
    s.add('CardBurned', { card: null, phase: 'COMMENCEMENT', burnIndex: b }, ev(device, 500));
  }

  const liveRounds: { roundId: string; bets: Bet[]; voided: boolean }[] = [];
  let hand = 0;
  let cutCardOut = false;
  const betsMean = o.betsPerRound ?? 6;
  while (!cutCardOut && (o.maxRounds === undefined || hand < o.maxRounds) && remaining > 20) {
    if (hand > 0 && rnd() < 0.05) {
      const prev = `D-${index}-${dealerNo}`;
      dealerNo++;
      s.add('DealerChanged', { previousDealerId: prev, dealerId: `D-${index}-${dealerNo}` }, ev(device));
    }
    hand++;
    const roundId = `${shoeId}-R${hand}`;
    s.add('RoundOpened', { roundId, handNumber: hand }, ev(device, 15_000));
    const round = { roundId, bets: [] as Bet[], voided: false };
    liveRounds.push(round);
    const offered = (BET_CODES[variant] as readonly BetCode[]).filter((c) => isBetOffered(paytable, c, hand, false));
    const nBets = 1 + Math.floor(rnd() * (2 * betsMean - 1));
    for (let k = 1; k <= nBets; k++) {
      const betCode = rnd() < 0.7 ? pick(['PLAYER', 'BANKER', 'TIE'] as BetCode[]) : pick(offered);
      const bet: Bet = { betId: `${roundId}-B${k}`, accountId: `ACC-${Math.floor(rnd() * 300)}`, betCode, stake: BigInt(pick(STAKES)), settlementEventId: null, revision: 0 };
      round.bets.push(bet);
      s.add('BetPlaced', { betId: bet.betId, roundId, accountId: bet.accountId, betCode, stake: bet.stake.toString(), currency }, ev(platform, 100));
    }
    const refundAll = (compensates: string, actor: Actor) => {
      for (const b of round.bets) {
        s.add('BetRefunded', { betId: b.betId, roundId, accountId: b.accountId, betCode: b.betCode, currency, stake: b.stake.toString(), compensates, revision: b.revision }, ev(actor, 50));
      }
      round.voided = true;
    };

    if (rnd() < (o.exposedCardRate ?? 0.01)) {
      // docs/domain-rules.md §5.3: a card exposed while bets are open voids the hand; the card is out of the shoe
      const exposed = s.add('CardExposed', { roundId, card: draw().code, phase: 'BETTING_OPEN' }, ev(device));
      const voided = s.add('RoundVoided', { roundId, cause: 'EXPOSED_CARD', decision: null, causedBy: exposed.eventId }, ev(device, 100));
      refundAll(voided.eventId, device);
      continue;
    }

    s.add('BettingClosed', { roundId, betCount: round.bets.length, totalStake: round.bets.reduce((n, b) => n + b.stake, 0n).toString() }, ev(device));
    const outcome = dealRound(deck);
    const cards = deck.slice(0, outcome.cardsConsumed);
    const positions = ['P1', 'B1', 'P2', 'B2', outcome.player.length === 3 ? 'P3' : 'B3', 'B3'] as const;
    cards.forEach((c, k) => {
      draw();
      s.add('CardDealt', { roundId, position: positions[k], card: c.code }, ev(device, 1500));
      if (k === 0 && remaining <= 30 && !cutCardOut) {
        // docs/domain-rules.md §5.2: the cut card comes out during this round's dealing: it is the last
        s.add('CutCardDrawn', { roundId, timing: 'DURING_DEALING' }, ev(device, 500));
        cutCardOut = true;
      }
    });
    const resulted = s.add('RoundResulted', { roundId, handNumber: hand, outcome: roundOutcomeData(outcome), paytableRef: paytable.ref }, ev(device, 500));
    const settlementOf = (b: Bet, out: RoundOutcome, revision: number): BetSettlementData => {
      const st = settle(b.stake, payoffFor(paytable, b.betCode, out));
      return {
        betId: b.betId,
        roundId,
        accountId: b.accountId,
        betCode: b.betCode,
        currency,
        result: st.result,
        stake: st.stake.toString(),
        winnings: st.winnings.toString(),
        payout: st.payout.toString(),
        net: st.net.toString(),
        dropped: formatFraction(st.dropped),
        paytableRef: paytable.ref,
        revision,
      };
    };
    for (const b of round.bets) {
      b.settlementEventId = s.add('BetSettled', settlementOf(b, outcome, 1), ev(device, 20)).eventId;
      b.revision = 1;
    }

    const r = rnd();
    if (r < (o.voidRate ?? 0.03)) {
      const voided = s.add('RoundVoided', { roundId, cause: 'MANAGEMENT', decision: decisionBy('wrong dealing reviewed on camera', resulted.eventId), causedBy: null }, ev(manager, 30_000));
      refundAll(voided.eventId, manager);
    } else if (r < (o.voidRate ?? 0.03) + (o.correctionRate ?? 0.03) && remaining > 40) {
      // docs/domain-rules.md §5.4: the true cards were others: the recorded ones go back into the shoe, the true ones leave it
      const trueOutcome = dealRound(deck);
      const trueCards = deck.slice(0, trueOutcome.cardsConsumed);
      trueCards.forEach(() => draw());
      for (const c of cards) {
        deck.push(c);
        remaining++;
      }
      if (trueCards.map((c) => c.code).join() === cards.map((c) => c.code).join()) continue; // (never in practice)
      s.add(
        'ResultCorrected',
        {
          roundId,
          cards: trueCards.map((c) => c.code),
          previousOutcome: roundOutcomeData(outcome),
          outcome: roundOutcomeData(trueOutcome),
          decision: decisionBy('result edited after camera review', resulted.eventId),
          paytableRef: paytable.ref,
        },
        ev(manager, 30_000),
      );
      for (const b of round.bets) {
        const previous = b.settlementEventId!;
        b.revision++;
        b.settlementEventId = s.add('BetResettled', { ...settlementOf(b, trueOutcome, b.revision), compensates: previous }, ev(manager, 20)).eventId;
      }
    }
  }

  if (rnd() < (o.shoeVoidRate ?? 0.1)) {
    const toVoid = liveRounds.filter((r) => !r.voided);
    const shoeVoided = s.add('ShoeVoided', { decision: decisionBy('shoe integrity in doubt', s.events[0].eventId), roundIds: toVoid.map((r) => r.roundId) }, ev(manager, 60_000));
    for (const round of toVoid) {
      const voided = s.add('RoundVoided', { roundId: round.roundId, cause: 'SHOE_VOIDED', decision: null, causedBy: shoeVoided.eventId }, ev(manager, 50));
      for (const b of round.bets) {
        s.add('BetRefunded', { betId: b.betId, roundId: round.roundId, accountId: b.accountId, betCode: b.betCode, currency, stake: b.stake.toString(), compensates: voided.eventId, revision: b.revision }, ev(manager, 20));
      }
      round.voided = true;
    }
  } else {
    const played = liveRounds.filter((r) => !r.voided).length;
    s.add('ShoeClosed', { roundsPlayed: played, cardsRemaining: remaining }, ev(device, 30_000));
  }
  return s.events;
}
