import type { LedgerEvent } from '@ledger/events';
import { DEFAULT_GAMING_DAY, gamingDay, GamingDayConfig, shoeIdOf } from '@ledger/projections';
import type { RoundContext } from '../outcomes/round-context';
import type { RoadRound } from '../roads/roads';
import { AnalyticsRecord, analyticsRecordsFor, AnalyticsStateReader, RoundSnapshot } from './analytics-records';

/**
 * An in-memory {@link AnalyticsStateReader}: folds ledger events into exactly the round facts the
 * projector reads from `hand_outcomes` / `shoe_state` (dealer at RoundOpened, dealing dealer,
 * gaming day, cards, outcome, status, revision). No database: for unit specs, for generating
 * sample records to validate against the JSON Schemas, and as a reference the integration spec
 * compares the projector's outbox with, byte for byte.
 *
 * Assumes well-formed streams (the projector's checks are not repeated here).
 */
export class MemoryAnalyticsState implements AnalyticsStateReader {
  private readonly shoes = new Map<string, { tableId: string; variant: string; currency: string; paytableRef: string; dealerId: string }>();
  private readonly rounds = new Map<string, RoundSnapshot & { currency: string; bettingClosed: boolean }>();

  /** @param gamingDayConfig must equal the projector's (GAMING_DAY_TZ / GAMING_DAY_CUTOFF_HOUR) */
  constructor(private readonly gamingDayConfig: GamingDayConfig = DEFAULT_GAMING_DAY) {}

  /** Folds one event (call it before asking for the records of that event). */
  apply(e: LedgerEvent): void {
    const shoeId = shoeIdOf(e);
    const set = (roundId: string, patch: Partial<RoundSnapshot & { bettingClosed: boolean }>) => {
      const r = this.rounds.get(roundId);
      if (!r) throw new Error(`${e.type} for round ${roundId}, which was never opened`);
      this.rounds.set(roundId, { ...r, ...patch });
    };
    switch (e.type) {
      case 'ShoeOpened':
        this.shoes.set(shoeId, { tableId: e.data.tableId, variant: e.data.variant, currency: e.data.currency, paytableRef: e.data.paytableRef, dealerId: e.data.dealerId });
        return;
      case 'DealerChanged': {
        const shoe = this.shoes.get(shoeId)!;
        shoe.dealerId = e.data.dealerId;
        for (const [id, r] of this.rounds) if (r.shoeId === shoeId && r.status === 'OPEN' && !r.bettingClosed) this.rounds.set(id, { ...r, dealingDealerId: e.data.dealerId });
        return;
      }
      case 'RoundOpened': {
        const shoe = this.shoes.get(shoeId);
        if (!shoe) throw new Error(`RoundOpened in shoe ${shoeId}, which was never opened`);
        this.rounds.set(e.data.roundId, {
          roundId: e.data.roundId,
          shoeId,
          tableId: shoe.tableId,
          variant: shoe.variant,
          handNumber: e.data.handNumber,
          dealerId: shoe.dealerId,
          dealingDealerId: shoe.dealerId,
          gamingDay: gamingDay(e.recordedAt, this.gamingDayConfig), // the ledger's time, docs/domain-rules.md §7
          paytableRef: shoe.paytableRef,
          currency: shoe.currency,
          status: 'OPEN',
          revision: 0,
          cards: [],
          playerCards: null,
          bankerCards: null,
          playerTotal: null,
          bankerTotal: null,
          winner: null,
          natural: null,
          playerPair: null,
          bankerPair: null,
          voidCause: null,
          bettingClosed: false,
        });
        return;
      }
      case 'BettingClosed':
        return set(e.data.roundId, { bettingClosed: true });
      case 'CardDealt':
        return set(e.data.roundId, { cards: [...this.rounds.get(e.data.roundId)!.cards, e.data.card] });
      case 'RoundResulted':
      case 'ResultCorrected': {
        const r = this.rounds.get(e.data.roundId)!;
        const o = e.data.outcome;
        return set(e.data.roundId, {
          status: e.type === 'RoundResulted' ? 'RESULTED' : 'CORRECTED',
          revision: r.revision + 1,
          cards: e.type === 'ResultCorrected' ? [...e.data.cards] : r.cards,
          playerCards: [...o.player],
          bankerCards: [...o.banker],
          playerTotal: o.playerTotal,
          bankerTotal: o.bankerTotal,
          winner: o.winner,
          natural: o.natural,
          playerPair: o.playerPair,
          bankerPair: o.bankerPair,
          paytableRef: e.data.paytableRef,
        });
      }
      case 'RoundVoided':
        return set(e.data.roundId, { status: 'VOIDED', revision: this.rounds.get(e.data.roundId)!.revision + 1, voidCause: e.data.cause });
      default:
        return;
    }
  }

  /** @inheritdoc */
  async roundAfter(roundId: string): Promise<RoundSnapshot> {
    const r = this.rounds.get(roundId);
    if (!r) throw new Error(`round ${roundId} was never opened`);
    const { bettingClosed: _closed, currency: _currency, ...snapshot } = r;
    return snapshot;
  }

  /** @inheritdoc */
  async countedRounds(shoeId: string): Promise<RoadRound[]> {
    return [...this.rounds.values()]
      .filter((r) => r.shoeId === shoeId && (r.status === 'RESULTED' || r.status === 'CORRECTED'))
      .sort((a, b) => a.handNumber - b.handNumber)
      .map((r) => ({ roundId: r.roundId, handNumber: r.handNumber, winner: r.winner!, playerPair: r.playerPair!, bankerPair: r.bankerPair!, natural: r.natural! }));
  }

  /** @inheritdoc */
  async roundContext(roundId: string): Promise<RoundContext> {
    const r = this.rounds.get(roundId);
    if (!r) throw new Error(`round ${roundId} was never opened`);
    return { roundId, shoeId: r.shoeId, tableId: r.tableId, dealerId: r.dealerId, gamingDay: r.gamingDay, currency: r.currency, paytableRef: r.paytableRef };
  }
}

/**
 * Every analytics record a sequence of ledger events produces, computed in memory (see
 * {@link MemoryAnalyticsState}), in the order the projector's outbox holds them for these events.
 * Duplicate eventIds are skipped, as the projector does.
 */
export async function analyticsRecordsOfEvents(events: readonly LedgerEvent[], gamingDayConfig: GamingDayConfig = DEFAULT_GAMING_DAY): Promise<AnalyticsRecord[]> {
  const state = new MemoryAnalyticsState(gamingDayConfig);
  const seen = new Set<string>();
  const out: AnalyticsRecord[] = [];
  for (const e of events) {
    if (seen.has(e.eventId)) continue;
    seen.add(e.eventId);
    state.apply(e);
    out.push(...(await analyticsRecordsFor(e, state)));
  }
  return out;
}
