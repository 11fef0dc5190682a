import type { LedgerEvent } from '@ledger/events';
import { DEFAULT_GAMING_DAY, gamingDay, type GamingDayConfig, parseFraction, parseMinor, ProjectionError, shoeIdOf } from '@ledger/projections';
import { entryNeeds, type EntryBet, type EntryRound, type EntryRoundStatus, type LedgerEntry, reconciliationEntries } from './ledger-entries';

/**
 * The reconciliation's entries of a sequence of events, folded in memory: the same rule
 * ({@link reconciliationEntries}) with the "before" state kept in Maps instead of read from the read
 * model, so the entries are field for field the `ledger_entries` rows the projector writes for the
 * same events (docs/reports.md §2, §3; docs/domain-rules.md §4). For recomputing figures straight
 * from the (verified) event store, e.g. a gaming-day close.
 *
 * State, as the projections derive it:
 * - per shoe (ShoeOpened; DealerChanged): table, current dealer, currency (`shoe_state`);
 * - per round (RoundOpened): its context — the shoe's table, dealer and currency at that moment and
 *   the gaming day of the RoundOpened's `recordedAt` under `gamingDayRule` (`hand_outcomes`,
 *   outcomes/round-context.ts) — and its status (RoundResulted → RESULTED, ResultCorrected → CORRECTED,
 *   RoundVoided → VOIDED);
 * - per bet (BetPlaced; BetSettled, BetResettled, BetRefunded): status, stake, payout in force, dropped
 *   fraction, correction payout delta (`bet_settlements`).
 *
 * Feed every event of each shoe concerned, from its ShoeOpened on, in stream order (events of several
 * shoes may be interleaved, e.g. in global order). Not thread-safe; one instance per sequence.
 */
export class EntryFolder {
  private readonly shoes = new Map<string, { tableId: string; dealerId: string; currency: string }>();
  private readonly rounds = new Map<string, { round: EntryRound; status: EntryRoundStatus }>();
  private readonly bets = new Map<string, EntryBet & { firstPayout: bigint | null }>();

  /** @param gamingDayRule the gaming-day rule the projector runs with (GAMING_DAY_TZ, GAMING_DAY_CUTOFF_HOUR); default UTC, 06:00 */
  constructor(private readonly gamingDayRule: GamingDayConfig = DEFAULT_GAMING_DAY) {}

  /**
   * The entries of one event (empty for most types), then the state updated past it.
   * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when the event needs a shoe, round or bet
   *   not seen before (or contradicts it, as the projection would refuse); `PROJECTION.BAD_AMOUNT`
   */
  next(e: LedgerEvent): LedgerEntry[] {
    const needs = entryNeeds(e);
    let entries: LedgerEntry[] = [];
    if (needs) {
      const r = this.rounds.get(needs.roundId);
      if (!r) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `round ${needs.roundId} was never opened`, { roundId: needs.roundId, eventId: e.eventId });
      const bet = needs.betId === undefined ? undefined : this.bets.get(needs.betId);
      entries = reconciliationEntries(e, { round: r.round, bet, roundStatus: needs.roundStatus ? r.status : undefined });
    }
    this.evolve(e);
    return entries;
  }

  private evolve(e: LedgerEvent): void {
    switch (e.type) {
      case 'ShoeOpened':
        this.shoes.set(shoeIdOf(e), { tableId: e.data.tableId, dealerId: e.data.dealerId, currency: e.data.currency });
        return;
      case 'DealerChanged': {
        const s = this.shoes.get(shoeIdOf(e));
        if (s) this.shoes.set(shoeIdOf(e), { ...s, dealerId: e.data.dealerId });
        return;
      }
      case 'RoundOpened': {
        const shoeId = shoeIdOf(e);
        const s = this.shoes.get(shoeId);
        if (!s) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `RoundOpened in shoe ${shoeId}, which was never opened`, { eventId: e.eventId });
        const round: EntryRound = {
          roundId: e.data.roundId,
          shoeId,
          tableId: s.tableId,
          dealerId: s.dealerId,
          gamingDay: gamingDay(e.recordedAt, this.gamingDayRule),
          currency: s.currency,
        };
        this.rounds.set(e.data.roundId, { round, status: 'OPEN' });
        return;
      }
      case 'RoundResulted':
        return this.setStatus(e.data.roundId, 'RESULTED');
      case 'ResultCorrected':
        return this.setStatus(e.data.roundId, 'CORRECTED');
      case 'RoundVoided':
        return this.setStatus(e.data.roundId, 'VOIDED');
      case 'BetPlaced':
        this.bets.set(e.data.betId, { status: 'OPEN', stake: parseMinor(e.data.stake, 'stake'), payout: null, dropped: null, correctionPayoutDelta: 0n, firstPayout: null });
        return;
      case 'BetSettled': {
        const b = this.bets.get(e.data.betId);
        if (!b) return;
        const payout = parseMinor(e.data.payout, 'payout');
        this.bets.set(e.data.betId, { ...b, status: 'SETTLED', payout, dropped: parseFraction(e.data.dropped), correctionPayoutDelta: 0n, firstPayout: payout });
        return;
      }
      case 'BetResettled': {
        const b = this.bets.get(e.data.betId)!;
        const payout = parseMinor(e.data.payout, 'payout');
        this.bets.set(e.data.betId, { ...b, status: 'RESETTLED', payout, dropped: parseFraction(e.data.dropped), correctionPayoutDelta: payout - (b.firstPayout ?? 0n) });
        return;
      }
      case 'BetRefunded': {
        const b = this.bets.get(e.data.betId)!;
        this.bets.set(e.data.betId, { ...b, status: 'REFUNDED', payout: null, dropped: null, correctionPayoutDelta: 0n });
        return;
      }
      default:
        return;
    }
  }

  private setStatus(roundId: string, status: EntryRoundStatus): void {
    const r = this.rounds.get(roundId);
    if (r) this.rounds.set(roundId, { ...r, status });
  }
}

/**
 * The reconciliation entries of `events` (docs/reports.md §2, §3), in order: those the `reconciliation`
 * projection writes to `ledger_entries` for the same events, field for field. A generator over one
 * {@link EntryFolder}; sum them (grouped by the reconciliation key, or bounded by global position)
 * to get the live, as-of or adjustment figures without the read model.
 * @param events every event of the shoes concerned from their ShoeOpened, each shoe's in stream order
 * @param gamingDayRule the projector's gaming-day rule (default UTC, cut-off 06:00)
 * @throws ProjectionError as {@link EntryFolder.next}
 */
export function* foldEntries(events: Iterable<LedgerEvent>, gamingDayRule: GamingDayConfig = DEFAULT_GAMING_DAY): Generator<LedgerEntry, void, undefined> {
  const folder = new EntryFolder(gamingDayRule);
  for (const e of events) yield* folder.next(e);
}
