import fc from 'fast-check';
import { assertNextPosition, BUILT_IN_PAYTABLES, Card, card, dealRound, handTotal, MAX_STAKE_MINOR, nextPosition, parseOdds, Payoff, Position, RANKS, ratio, resultRound, settle, SUITS } from '@ledger/rules';

/** Any of the 52 cards. */
const anyCard: fc.Arbitrary<Card> = fc.tuple(fc.constantFrom(...RANKS), fc.constantFrom(...SUITS)).map(([r, s]) => card(r, s));
/** A shoe prefix: the next 6 to 12 cards off the shoe. */
const shoePrefix = fc.array(anyCard, { minLength: 6, maxLength: 12 });
/** A stake in minor units, 1..2^53 − 1. */
const stake = fc.bigInt({ min: 1n, max: MAX_STAKE_MINOR });
/** Every odds value of the built-in paytables (0.95:1, 1:2, 0.5:1, 8:1, 100:1, …). */
const BUILT_IN_ODDS = [...new Set(BUILT_IN_PAYTABLES.flatMap((d) => Object.values(d.rows).flatMap((r) => Object.values(r))).filter((v) => v !== 'push'))].map(parseOdds);
/** Paytable odds num/den (profit per unit): the built-in ones, or any rational up to 100,000:1 with denominators to 10,000. */
const odds = fc.oneof(
  fc.constantFrom(...BUILT_IN_ODDS),
  fc.tuple(fc.bigInt({ min: 0n, max: 100_000n }), fc.bigInt({ min: 1n, max: 10_000n })).map(([n, d]) => ratio(n, d)),
);

/** The positions the cards of a dealt round occupied, from the outcome. */
function positionsOf(playerCards: number, bankerCards: number): Position[] {
  const p: Position[] = ['P1', 'B1', 'P2', 'B2'];
  if (playerCards === 3) p.push('P3');
  if (bankerCards === 3) p.push('B3');
  return p;
}

describe('tableau properties (docs/domain-rules.md §2)', () => {
  it('Given any shoe prefix of ≥ 6 cards, When a round is dealt, Then it takes 4 to 6 cards and both totals are 0–9', () => {
    fc.assert(
      fc.property(shoePrefix, (shoe) => {
        const o = dealRound(shoe);
        expect(o.cardsConsumed).toBeGreaterThanOrEqual(4);
        expect(o.cardsConsumed).toBeLessThanOrEqual(6);
        expect(o.player.length + o.banker.length).toBe(o.cardsConsumed);
        for (const t of [o.playerTotal, o.bankerTotal]) {
          expect(Number.isInteger(t) && t >= 0 && t <= 9).toBe(true);
        }
        expect(o.playerTotal).toBe(handTotal(o.player));
        expect(o.bankerTotal).toBe(handTotal(o.banker));
      }),
      { numRuns: 2000 },
    );
  });

  it('Given any shoe prefix, When either two-card total is 8 or 9, Then the round is exactly 4 cards (and only then is it a natural)', () => {
    fc.assert(
      fc.property(shoePrefix, (shoe) => {
        const o = dealRound(shoe);
        const natural = handTotal([shoe[0], shoe[2]]) >= 8 || handTotal([shoe[1], shoe[3]]) >= 8;
        expect(o.natural).toBe(natural);
        if (natural) expect(o.cardsConsumed).toBe(4);
      }),
      { numRuns: 2000 },
    );
  });

  it('Given any shoe prefix, When a round is dealt, Then its cards replay without violation through assertNextPosition and it is then complete', () => {
    fc.assert(
      fc.property(shoePrefix, (shoe) => {
        const o = dealRound(shoe);
        const dealt = shoe.slice(0, o.cardsConsumed);
        const positions = positionsOf(o.player.length, o.banker.length);
        expect(positions).toHaveLength(o.cardsConsumed);
        positions.forEach((pos, i) => assertNextPosition(dealt.slice(0, i), pos));
        expect(nextPosition(dealt)).toBeNull();
        // the deal order puts the cards where the outcome says
        expect([dealt[0], dealt[2]]).toEqual(o.player.slice(0, 2));
        expect([dealt[1], dealt[3]]).toEqual(o.banker.slice(0, 2));
        expect(resultRound(dealt)).toEqual(o);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('settlement properties (docs/domain-rules.md §4)', () => {
  it('Given any stake and any odds, When a win is settled, Then winnings·den + dropped == stake·num exactly, rounding never pays more and drops less than one minor unit', () => {
    fc.assert(
      fc.property(stake, odds, (s, o) => {
        const r = settle(s, { kind: 'WIN', odds: o });
        expect(r.result).toBe('WIN');
        expect(r.payout).toBeGreaterThanOrEqual(0n);
        expect(r.payout).toBe(s + r.winnings);
        // dropped is a fraction of one minor unit: dropped.num / dropped.den, 0 ≤ dropped < 1
        expect(r.dropped.num).toBeGreaterThanOrEqual(0n);
        expect(r.dropped.num).toBeLessThan(r.dropped.den);
        expect(o.den % r.dropped.den).toBe(0n);
        const droppedScaled = (r.dropped.num * o.den) / r.dropped.den;
        expect(r.winnings * o.den + droppedScaled).toBe(s * o.num);
        expect(r.winnings * o.den).toBeLessThanOrEqual(s * o.num);
      }),
      { numRuns: 5000 },
    );
  });

  it('Given any stake and any payoff (win, push, lose), When settled, Then the payout is never negative and net = payout − stake', () => {
    const payoff: fc.Arbitrary<Payoff> = fc.oneof(
      odds.map((o): Payoff => ({ kind: 'WIN', odds: o })),
      fc.constant<Payoff>({ kind: 'PUSH' }),
      fc.constant<Payoff>({ kind: 'LOSE' }),
    );
    fc.assert(
      fc.property(stake, payoff, (s, p) => {
        const r = settle(s, p);
        expect(r.payout).toBeGreaterThanOrEqual(0n);
        expect(r.net).toBe(r.payout - s);
        expect(r.winnings).toBeGreaterThanOrEqual(0n);
      }),
      { numRuns: 3000 },
    );
  });
});
