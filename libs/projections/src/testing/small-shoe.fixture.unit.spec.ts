import { builtInPaytable, parseCard, payoffFor, resultRound, settle, type BetCode } from '@ledger/rules';
import { cardsRemaining, fold } from '@ledger/shoe';
import type { LedgerEvent } from '@ledger/events';
import { computeEventHash } from '@ledger/event-store';
import { smallShoe } from './small-shoe.fixture';

/** The hand-written fixture must be a stream the write side could have produced. */
describe('small shoe fixture', () => {
  const fx = smallShoe();

  it('is a valid stream: the write side folds it without error', () => {
    const state = fold(fx.events);
    expect(state.status).toBe('CLOSED');
    expect(cardsRemaining(state.cards!)).toBe(392);
  });

  it('has gap-free stream versions, increasing global positions and a hash chain', () => {
    fx.events.forEach((e, i) => {
      expect(e.streamVersion).toBe(i + 1);
      if (i > 0) {
        expect(BigInt(e.globalPosition)).toBeGreaterThan(BigInt(fx.events[i - 1].globalPosition));
        expect(e.prevHash).toBe(fx.events[i - 1].hash);
      }
      expect(e.hash).toBe(computeEventHash(e)); // the event store's own hash contract
    });
  });

  it('writes the outcomes the rules compute from the cards', () => {
    const dealt = new Map<string, string[]>();
    for (const e of fx.events) {
      if (e.type === 'CardDealt') dealt.set(e.data.roundId, [...(dealt.get(e.data.roundId) ?? []), e.data.card]);
      if (e.type === 'RoundResulted') {
        const o = resultRound(dealt.get(e.data.roundId)!.map(parseCard));
        // the mapping spelled out on purpose: an independent check of the event data
        expect(e.data.outcome).toEqual({
          player: o.player.map((c) => c.code),
          banker: o.banker.map((c) => c.code),
          playerTotal: o.playerTotal,
          bankerTotal: o.bankerTotal,
          winner: o.winner,
          natural: o.natural,
          playerPair: o.playerPair,
          bankerPair: o.bankerPair,
        });
      }
      if (e.type === 'ResultCorrected') {
        const o = resultRound(e.data.cards.map(parseCard));
        expect(e.data.outcome.winner).toBe(o.winner);
        expect([e.data.outcome.playerTotal, e.data.outcome.bankerTotal]).toEqual([o.playerTotal, o.bankerTotal]);
      }
    }
  });

  it('writes the settlements the rules compute (exact, rounded down, dropped fraction)', () => {
    const paytable = builtInPaytable('classic-standard@1');
    const outcomes = new Map<string, ReturnType<typeof resultRound>>();
    for (const e of fx.events as LedgerEvent[]) {
      // every round of the fixture is a two-card round: dealing order P1 B1 P2 B2
      if (e.type === 'RoundResulted') outcomes.set(e.data.roundId, resultRound(reorder(e.data.outcome.player, e.data.outcome.banker)));
      if (e.type === 'ResultCorrected') outcomes.set(e.data.roundId, resultRound(e.data.cards.map(parseCard)));
      if (e.type === 'BetSettled' || e.type === 'BetResettled') {
        const st = settle(BigInt(e.data.stake), payoffFor(paytable, e.data.betCode as BetCode, outcomes.get(e.data.roundId)!));
        expect({ result: e.data.result, winnings: e.data.winnings, payout: e.data.payout, net: e.data.net, dropped: e.data.dropped }).toEqual({
          result: st.result,
          winnings: st.winnings.toString(),
          payout: st.payout.toString(),
          net: st.net.toString(),
          dropped: st.dropped.num === 0n ? '0' : `${st.dropped.num}/${st.dropped.den}`,
        });
      }
    }
  });
});

/** Dealing order of a two-card-each round: P1 B1 P2 B2. */
function reorder(player: readonly string[], banker: readonly string[]) {
  return [player[0], banker[0], player[1], banker[1]].map(parseCard);
}
