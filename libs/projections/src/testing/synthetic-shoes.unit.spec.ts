import { cardsRemaining, fold } from '@ledger/shoe';
import { syntheticLedger } from './synthetic-shoes';

describe('synthetic shoes', () => {
  const ledger = syntheticLedger({ shoes: 12, seed: 7, voidRate: 0.08, correctionRate: 0.08, exposedCardRate: 0.03, shoeVoidRate: 0.25 });

  it('every generated stream is one the write side folds without error', () => {
    for (const stream of ledger.streams) {
      const state = fold(stream);
      expect(['CLOSED', 'VOIDED']).toContain(state.status);
      const closed = stream.find((e) => e.type === 'ShoeClosed');
      if (closed && closed.type === 'ShoeClosed') expect(closed.data.cardsRemaining).toBe(cardsRemaining(state.cards!));
    }
  });

  it('covers voids, corrections, exposed cards, shoe voids, dealer changes and the cut card', () => {
    const types = new Set(ledger.events.map((e) => (e.type === 'RoundVoided' ? `RoundVoided:${e.data.cause}` : e.type)));
    for (const t of ['RoundVoided:MANAGEMENT', 'RoundVoided:EXPOSED_CARD', 'RoundVoided:SHOE_VOIDED', 'ResultCorrected', 'BetResettled', 'ShoeVoided', 'DealerChanged', 'CutCardDrawn']) {
      expect(types).toContain(t);
    }
  });

  it('is interleaved across streams with gap-free global positions', () => {
    ledger.events.forEach((e, i) => expect(e.globalPosition).toBe(String(i + 1)));
    expect(new Set(ledger.events.slice(0, 200).map((e) => e.streamId)).size).toBeGreaterThan(1);
  });

  it('is deterministic for a seed', () => {
    const again = syntheticLedger({ shoes: 2, seed: 7 });
    const once = syntheticLedger({ shoes: 2, seed: 7 });
    expect(again.events.map((e) => e.hash)).toEqual(once.events.map((e) => e.hash));
  });
});
