import type { LedgerEvent } from '@ledger/events';
import { EntryFolder, foldEntries } from './entry-folder';
import { entryNeeds, ENTRY_SUMS, type LedgerEntry, reconciliationEntries } from './ledger-entries';
import { addOverLcm, formatFraction, type Fraction, ZERO_FRACTION } from '@ledger/projections';
import { smallShoe } from '@ledger/projections/testing/small-shoe.fixture';

/** Sums entries by the reconciliation key (table, shoe, dealer, gaming day, currency). */
function sumByKey(entries: readonly LedgerEntry[]): Map<string, Record<string, string>> {
  const acc = new Map<string, { sums: Record<string, bigint>; dropped: Fraction }>();
  for (const x of entries) {
    const k = [x.tableId, x.shoeId, x.dealerId, x.gamingDay, x.currency].join('|');
    const a = acc.get(k) ?? { sums: Object.fromEntries(ENTRY_SUMS.map((f) => [f, 0n])), dropped: ZERO_FRACTION };
    for (const f of ENTRY_SUMS) a.sums[f] += x[f];
    a.dropped = addOverLcm(a.dropped, x.dropped);
    acc.set(k, a);
  }
  return new Map([...acc].map(([k, a]) => [k, { ...Object.fromEntries(ENTRY_SUMS.map((f) => [f, a.sums[f].toString()])), dropped: formatFraction(a.dropped) }]));
}

describe('the reconciliation rule as entries (docs/domain-rules.md §4)', () => {
  const fx = smallShoe();

  it('folded over the small shoe, the entries sum to the hand-computed reconciliation', () => {
    const sums = sumByKey([...foldEntries(fx.events)]);
    expect(sums.get('T-FX-1|fx-1|D-ANNA|2025-02-28|EUR')).toMatchObject({ turnover: '1600', payouts: '2000', betsSettled: '3', roundsResulted: '1', dropped: '0' });
    expect(sums.get('T-FX-1|fx-1|D-BORIS|2025-03-01|EUR')).toEqual({
      turnover: '3705',
      payouts: '5029',
      correctionPayoutDelta: '-50',
      voidedStakes: '700',
      betsSettled: '9',
      betsRefunded: '3',
      betsResettled: '3',
      roundsResulted: '3',
      roundsVoided: '2',
      corrections: '1',
      dropped: '1/4',
    });
    expect(sums.size).toBe(2);
  });

  it('stamps every entry with its event, numbers them within the event, and puts round counts on no bet', () => {
    const entries = [...foldEntries(fx.events)];
    const byId = new Map(fx.events.map((e) => [e.eventId, e]));
    for (const x of entries) {
      const e = byId.get(x.eventId)!;
      expect([x.globalPosition, x.eventType, x.recordedAt]).toEqual([BigInt(e.globalPosition), e.type, e.recordedAt]);
      expect(x.betId === null).toBe(['RoundResulted', 'ResultCorrected', 'RoundVoided'].includes(e.type));
    }
    const perEvent = new Map<string, number[]>();
    for (const x of entries) perEvent.set(x.eventId, [...(perEvent.get(x.eventId) ?? []), x.entryNo]);
    for (const nos of perEvent.values()) expect(nos).toEqual(nos.map((_, i) => i));
    // only money events make entries
    expect(new Set(entries.map((x) => x.eventType))).toEqual(new Set(['RoundResulted', 'BetSettled', 'RoundVoided', 'BetRefunded', 'ResultCorrected', 'BetResettled']));
  });

  it('a refund of a settled bet takes its stake, payout, correction delta and dropped fraction back out', () => {
    const refund = fx.events.find((e) => e.eventId === fx.ids.r4Voided)!;
    const folder = new EntryFolder();
    const out: LedgerEntry[] = [];
    for (const e of fx.events) {
      const xs = folder.next(e);
      if (e.type === 'BetRefunded' && (e.data as { compensates: string }).compensates === refund.eventId) out.push(...xs);
    }
    expect(out.length).toBeGreaterThan(0);
    for (const x of out) {
      expect(x.betsSettled).toBe(-1n);
      expect(x.betsRefunded).toBe(1n);
      expect(x.turnover).toBe(-x.voidedStakes);
    }
  });

  it('refuses what the projection refuses: a resettlement of an open bet, a refund twice, a round never opened', () => {
    const resettle = fx.events.find((e) => e.type === 'BetResettled')! as LedgerEvent<'BetResettled'>;
    const round = { roundId: resettle.data.roundId, shoeId: 'fx-1', tableId: 'T-FX-1', dealerId: 'D', gamingDay: '2025-03-01', currency: 'EUR' };
    const open = { status: 'OPEN' as const, stake: 10n, payout: null, dropped: null, correctionPayoutDelta: 0n };
    expect(() => reconciliationEntries(resettle, { round, bet: open })).toThrow(/OPEN/);
    const refund = fx.events.find((e) => e.type === 'BetRefunded')!;
    expect(() => reconciliationEntries(refund, { round, bet: { ...open, status: 'REFUNDED' } })).toThrow(/refunded twice/);
    expect(() => reconciliationEntries(refund, { round })).toThrow(/never placed/);
    expect(entryNeeds(fx.events[0])).toBeNull();
    expect(() => [...foldEntries(fx.events.filter((e) => e.type !== 'RoundOpened'))]).toThrow(/never opened/);
  });

  it('a void of a voided round counts nothing', () => {
    const voided = fx.events.find((e) => e.eventId === fx.ids.r4Voided)!;
    const round = { roundId: 'fx-1-R4', shoeId: 'fx-1', tableId: 'T-FX-1', dealerId: 'D', gamingDay: '2025-03-01', currency: 'EUR' };
    expect(reconciliationEntries(voided, { round, roundStatus: 'VOIDED' })).toEqual([]);
    expect(reconciliationEntries(voided, { round, roundStatus: 'RESULTED' })).toMatchObject([{ roundsVoided: 1n, roundsResulted: -1n, betId: null }]);
    expect(reconciliationEntries(voided, { round, roundStatus: 'OPEN' })).toMatchObject([{ roundsVoided: 1n, roundsResulted: 0n }]);
  });
});
