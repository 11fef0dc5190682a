import type { LedgerEvent } from '@ledger/events';
import { addOverLcm, type Fraction, negate, parseFraction, parseMinor, ProjectionError, ZERO_FRACTION } from '@ledger/projections';
import type { RoundContext } from '../outcomes/round-context';

/**
 * THE reconciliation rule (docs/domain-rules.md §4), written once: what one ledger event does to
 * the money and counts of the reconciliation, as a list of position-stamped entries. Pure: no SQL,
 * no I/O, no clock. Its callers:
 *
 * - the `reconciliation` projection (`reconciliation/projection.ts`), which reads the
 *   state before the event in `prepare` and writes every entry to the append-only `ledger_entries`
 *   table and its deltas to the `reconciliation` sums;
 * - {@link foldEntries} (`entry-folder.ts`), which keeps the same state in memory over a sequence of
 *   events (recomputing figures from the event store).
 *
 * The reports are sums of these entries (docs/reports.md §2, §3): live = all of them, as of a global
 * position P = those at or below P, a close's adjustments = those in (close position, P].
 */

/**
 * The round an entry belongs to, fixed when it opened (docs/domain-rules.md §4, §7): its shoe,
 * table, dealer at RoundOpened, gaming day (of the RoundOpened's `recordedAt`, the ledger's clock)
 * and the shoe's currency. A {@link RoundContext} is one.
 */
export type EntryRound = Pick<RoundContext, 'roundId' | 'shoeId' | 'tableId' | 'dealerId' | 'gamingDay' | 'currency'>;

/** Status of a bet (`bet_settlements.status`). */
export type EntryBetStatus = 'OPEN' | 'SETTLED' | 'RESETTLED' | 'REFUNDED';

/**
 * A bet as it is in force before a resettlement or refund (the `bet_settlements` row): amounts in
 * minor units; `payout` and `dropped` null while OPEN or once REFUNDED; `correctionPayoutDelta` =
 * payout in force − first payout (0 unless resettled).
 */
export interface EntryBet {
  readonly status: EntryBetStatus;
  readonly stake: bigint;
  readonly payout: bigint | null;
  readonly dropped: Fraction | null;
  readonly correctionPayoutDelta: bigint;
}

/** Status of a round (`hand_outcomes.status`). */
export type EntryRoundStatus = 'OPEN' | 'RESULTED' | 'CORRECTED' | 'VOIDED';

/**
 * What the rule needs of the state before an event (see {@link entryNeeds}): the round's context;
 * for BetResettled / BetRefunded the bet in force; for RoundVoided the round's status.
 */
export interface EntryBefore {
  readonly round: EntryRound;
  readonly bet?: EntryBet;
  readonly roundStatus?: EntryRoundStatus;
}

/**
 * What an event needs read before it (see {@link EntryBefore}): `null` = the event makes no entry;
 * `round` = the round's context; `bet` = also the bet in force; `roundStatus` = also the round's status.
 */
export type EntryNeeds = null | { readonly roundId: string; readonly betId?: string; readonly roundStatus?: true };

/**
 * The changes an entry makes to the reconciliation of its key, all in minor units (amounts) or
 * units (counts), signed; `dropped` the signed fraction of a minor unit (not reduced: the lcm rule of
 * `rational.ts`). A field missing from the entry's effect is 0.
 */
export interface EntryDeltas {
  readonly turnover: bigint;
  readonly payouts: bigint;
  readonly correctionPayoutDelta: bigint;
  readonly voidedStakes: bigint;
  readonly betsSettled: bigint;
  readonly betsRefunded: bigint;
  readonly betsResettled: bigint;
  readonly roundsResulted: bigint;
  readonly roundsVoided: bigint;
  readonly corrections: bigint;
  readonly dropped: Fraction;
}

/** The delta fields of {@link EntryDeltas} that are integers, in the column order of `ledger_entries` / `reconciliation`. */
export const ENTRY_SUMS = ['turnover', 'payouts', 'correctionPayoutDelta', 'voidedStakes', 'betsSettled', 'betsRefunded', 'betsResettled', 'roundsResulted', 'roundsVoided', 'corrections'] as const;

/**
 * One money effect of one event: a row of `ledger_entries`. Stamped with the event (global position,
 * `entryNo` = ordinal within the event from 0, id, type, `recordedAt` ISO-8601 of the ledger's clock)
 * and the reconciliation key (the round's table, shoe, dealer, gaming day `YYYY-MM-DD`; the currency
 * of the bet, or of the shoe for a round count); `betId` null for a round count.
 */
export interface LedgerEntry extends EntryDeltas {
  readonly globalPosition: bigint;
  readonly entryNo: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly recordedAt: string;
  readonly gamingDay: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly roundId: string;
  readonly betId: string | null;
  readonly dealerId: string;
  readonly currency: string;
}

/** The state an event needs read before {@link reconciliationEntries} can be applied. */
export function entryNeeds(e: LedgerEvent): EntryNeeds {
  switch (e.type) {
    case 'RoundResulted':
    case 'ResultCorrected':
    case 'BetSettled':
      return { roundId: e.data.roundId };
    case 'RoundVoided':
      return { roundId: e.data.roundId, roundStatus: true };
    case 'BetResettled':
    case 'BetRefunded':
      return { roundId: e.data.roundId, betId: e.data.betId };
    default:
      return null;
  }
}

const ZERO: EntryDeltas = {
  turnover: 0n,
  payouts: 0n,
  correctionPayoutDelta: 0n,
  voidedStakes: 0n,
  betsSettled: 0n,
  betsRefunded: 0n,
  betsResettled: 0n,
  roundsResulted: 0n,
  roundsVoided: 0n,
  corrections: 0n,
  dropped: ZERO_FRACTION,
};

/**
 * The reconciliation rule (docs/domain-rules.md §4) for one event:
 *
 * - RoundResulted: one round resulted; ResultCorrected: one correction (round counts, in the shoe's
 *   currency, bet null);
 * - RoundVoided: one round voided, and one round resulted fewer when it had been resulted; nothing
 *   when the round was already voided (counted once);
 * - BetSettled: its stake in turnover, its payout in payouts, one bet settled, its dropped fraction;
 * - BetResettled: payouts and correction payout delta change by (new − old payout), one bet
 *   resettled, dropped by (new − old);
 * - BetRefunded: a settled bet's stake, payout, correction delta and dropped fraction taken back out
 *   and one bet settled fewer; in every case the stake in voided stakes and one bet refunded.
 *
 * Every other event: no entry.
 * @param e the event (its `globalPosition` and `eventId` stamp the entries)
 * @param before the state before it as {@link entryNeeds} asks (undefined only when it asks nothing)
 * @returns the entries, `entryNo` 0, 1, …; empty for an event with no money effect
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` (a resettlement of a bet not settled, a
 *   refund of a refunded bet, a needed state missing), `PROJECTION.BAD_AMOUNT` (a malformed amount)
 */
export function reconciliationEntries(e: LedgerEvent, before: EntryBefore | undefined): LedgerEntry[] {
  const needs = entryNeeds(e);
  if (!needs) return [];
  if (!before) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `${e.type} without its round's context`, { eventId: e.eventId, type: e.type });
  const round = before.round;
  const out: LedgerEntry[] = [];
  const add = (betId: string | null, currency: string, d: Partial<EntryDeltas>) =>
    out.push({
      globalPosition: BigInt(e.globalPosition),
      entryNo: out.length,
      eventId: e.eventId,
      eventType: e.type,
      recordedAt: e.recordedAt,
      gamingDay: round.gamingDay,
      tableId: round.tableId,
      shoeId: round.shoeId,
      roundId: round.roundId,
      betId,
      dealerId: round.dealerId,
      currency,
      ...ZERO,
      ...d,
    });
  switch (e.type) {
    case 'RoundResulted':
      add(null, round.currency, { roundsResulted: 1n });
      break;
    case 'ResultCorrected':
      add(null, round.currency, { corrections: 1n });
      break;
    case 'RoundVoided': {
      const status = before.roundStatus;
      if (status === 'VOIDED') break; // counted once
      const wasResulted = status === 'RESULTED' || status === 'CORRECTED';
      add(null, round.currency, { roundsVoided: 1n, roundsResulted: wasResulted ? -1n : 0n });
      break;
    }
    case 'BetSettled': {
      const d = e.data;
      add(d.betId, d.currency, { turnover: parseMinor(d.stake, 'stake'), payouts: parseMinor(d.payout, 'payout'), betsSettled: 1n, dropped: parseFraction(d.dropped) });
      break;
    }
    case 'BetResettled': {
      const d = e.data;
      const bet = betOf(e, d.betId, before);
      if (bet.status !== 'SETTLED' && bet.status !== 'RESETTLED') throw inconsistent(e, `BetResettled of bet ${d.betId}, which is ${bet.status}`, d.betId);
      const delta = parseMinor(d.payout, 'payout') - (bet.payout ?? 0n);
      add(d.betId, d.currency, {
        payouts: delta,
        correctionPayoutDelta: delta,
        betsResettled: 1n,
        dropped: addOverLcm(parseFraction(d.dropped), negate(bet.dropped ?? ZERO_FRACTION)),
      });
      break;
    }
    case 'BetRefunded': {
      const d = e.data;
      const bet = betOf(e, d.betId, before);
      const stake = parseMinor(d.stake, 'stake');
      if (bet.status === 'REFUNDED') throw inconsistent(e, `bet ${d.betId} refunded twice`, d.betId);
      if (bet.status === 'OPEN') {
        add(d.betId, d.currency, { voidedStakes: stake, betsRefunded: 1n });
        break;
      }
      add(d.betId, d.currency, {
        turnover: -bet.stake,
        payouts: -(bet.payout ?? 0n),
        correctionPayoutDelta: -bet.correctionPayoutDelta,
        betsSettled: -1n,
        dropped: bet.dropped ? negate(bet.dropped) : ZERO_FRACTION,
        voidedStakes: stake,
        betsRefunded: 1n,
      });
      break;
    }
    default:
      break;
  }
  return out;
}

function betOf(e: LedgerEvent, betId: string, before: EntryBefore): EntryBet {
  if (!before.bet) throw inconsistent(e, `${e.type} of bet ${betId}, which was never placed`, betId);
  return before.bet;
}

function inconsistent(e: LedgerEvent, message: string, betId: string): ProjectionError {
  return new ProjectionError('PROJECTION.INCONSISTENT_EVENT', message, { eventId: e.eventId, type: e.type, betId });
}
