import fc from 'fast-check';
import { BET_CODES, nextPosition, type Card, type Variant } from '@ledger/rules';
import type { NewEvent } from '@ledger/events';
import type { BetInput } from '../commands';
import { remainingCards } from '../state';
import { counterIds, expectRefused, mulberry32, ofType, shuffledShoe, Table } from '../shoe-fixtures.spec';

/**
 * Whole shoes dealt through decide/evolve from seeded shuffles: the card accounting balances to
 * the card, the cut card ends the shoe, and settlements agree with an independent oracle.
 */

const VALUE: Record<string, number> = { A: 1, T: 0, J: 0, Q: 0, K: 0 };
const value = (c: Card) => VALUE[c.rank] ?? Number(c.rank);
const total = (cs: Card[]) => cs.reduce((s, c) => s + value(c), 0) % 10;

/** An independent dealer (§2), written from the rule table, not from the rules library. */
function oracle(shoe: readonly Card[]): { used: number; player: Card[]; banker: Card[] } {
  const player = [shoe[0], shoe[2]];
  const banker = [shoe[1], shoe[3]];
  let i = 4;
  if (total(player) < 8 && total(banker) < 8) {
    let third: number | null = null;
    if (total(player) <= 5) {
      player.push(shoe[i++]);
      third = value(player[2]);
    }
    const b = total(banker);
    const bankerDraws = third === null ? b <= 5 : b <= 2 || (b === 3 && third !== 8) || (b === 4 && third >= 2 && third <= 7) || (b === 5 && third >= 4 && third <= 7) || (b === 6 && (third === 6 || third === 7));
    if (bankerDraws) banker.push(shoe[i++]);
  }
  return { used: i, player, banker };
}

/** Expected net of a classic-standard bet (§3.1), from first principles. */
function classicNet(code: string, stake: bigint, player: Card[], banker: Card[]): bigint {
  const p = total(player);
  const b = total(banker);
  const pPair = player[0].rank === player[1].rank;
  const bPair = banker[0].rank === banker[1].rank;
  switch (code) {
    case 'PLAYER':
      return p > b ? stake : p === b ? 0n : -stake;
    case 'BANKER':
      return b > p ? (stake * 19n) / 20n : p === b ? 0n : -stake;
    case 'TIE':
      return p === b ? 8n * stake : -stake;
    case 'PLAYER_PAIR':
      return pPair ? 11n * stake : -stake;
    case 'BANKER_PAIR':
      return bPair ? 11n * stake : -stake;
    case 'EITHER_PAIR':
      return pPair || bPair ? 5n * stake : -stake;
  }
  throw new Error(code);
}

interface ShoeRun {
  table: Table;
  deck: Card[];
  drawn: number;
  cutTiming: string | null;
  rounds: number;
  expectedNet: bigint;
  unneeded: number;
}

/**
 * Deals a whole shoe: commencement (burns alternately face up and face down), then rounds with
 * random bets until the cut card (placed before card `cutAt`) ends the shoe, or the cards run low.
 * Every 9th round an unneeded card is drawn after the result. Checks each round against the oracle.
 */
function dealShoe(variant: Variant, decks: number, seed: number, cutAt: number | null): ShoeRun {
  const deck = shuffledShoe(decks, seed);
  const rnd = mulberry32(seed ^ 0x5bd1e995);
  const t = new Table(counterIds(`s${seed}-`)).open({ variant, decks, pairBetsRequireMainBet: false });
  let p = 0;
  let cutTiming: string | null = null;
  const draw = (): Card => {
    if (cutAt !== null && p === cutAt && !t.state.cutCard) {
      const [cut] = t.run({ type: 'DrawCutCard' });
      cutTiming = (cut as NewEvent<'CutCardDrawn'>).data.timing;
    }
    return deck[p++];
  };
  t.run({ type: 'DrawCommencementCard', card: draw().code });
  for (let i = 0; i < t.state.commencement!.burnCount; i++) {
    const c = draw();
    t.run({ type: 'BurnCard', card: i % 2 ? null : c.code });
  }
  let expectedNet = 0n;
  let rounds = 0;
  let unneeded = 0;
  for (;;) {
    if (t.state.noMoreRounds) break;
    if (deck.length - p < 7) break; // not enough cards left for a round plus an unneeded card
    const roundId = `R${++rounds}`;
    t.run({ type: 'OpenRound', roundId });
    const codes = BET_CODES[variant] as readonly string[];
    const bets: BetInput[] = [];
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) {
      bets.push({
        betId: `${roundId}-${i}`,
        accountId: `A${i}`,
        betCode: codes[Math.floor(rnd() * codes.length)],
        stake: 100n + BigInt(Math.floor(rnd() * 99_901)),
        currency: 'EUR',
      });
    }
    // side bets outside their window (hand > 60) are refused: leave them out there
    const offered = bets.filter((b) => rounds <= 60 || ['PLAYER', 'BANKER', 'TIE', 'TIGER_TIE', 'PLAYER_FABULOUS_4', 'BANKER_FABULOUS_4', 'PLAYER_PAIR', 'BANKER_PAIR', 'EITHER_PAIR'].includes(b.betCode));
    if (offered.length) t.run({ type: 'PlaceBets', roundId, bets: offered });
    t.run({ type: 'CloseBetting', roundId });
    const start = p;
    const produced: NewEvent[] = [];
    for (;;) {
      const r = t.state.rounds[rounds - 1];
      const position = nextPosition(r.cards);
      if (position === null) break;
      produced.push(...t.run({ type: 'DealCard', roundId, position, card: draw().code }));
    }
    const round = t.state.rounds[rounds - 1];
    expect(round.phase).toBe('RESULTED');
    const o = oracle(deck.slice(start, start + 6));
    expect(round.cards.length).toBe(o.used);
    expect(round.outcome).toMatchObject({ player: o.player.map((c) => c.code), banker: o.banker.map((c) => c.code), playerTotal: total(o.player), bankerTotal: total(o.banker) });
    const settled = ofType(produced, 'BetSettled');
    expect(settled).toHaveLength(offered.length);
    for (const s of settled) {
      const d = s.data;
      const stake = BigInt(d.stake);
      expect(BigInt(d.net)).toBe(BigInt(d.payout) - stake);
      if (d.result === 'WIN') expect(BigInt(d.payout)).toBe(stake + BigInt(d.winnings));
      if (d.result === 'PUSH') expect(d.payout).toBe(d.stake);
      if (d.result === 'LOSE') expect(d.payout).toBe('0');
      if (variant === 'classic') {
        const want = classicNet(d.betCode, stake, o.player, o.banker);
        expect(BigInt(d.net)).toBe(want);
        expectedNet += want;
      } else {
        expectedNet += BigInt(d.net);
      }
    }
    if (rounds % 9 === 0 && !t.state.noMoreRounds) {
      t.run({ type: 'DrawUnneededCard', roundId, card: draw().code });
      unneeded++;
    }
  }
  return { table: t, deck, drawn: p, cutTiming, rounds, expectedNet, unneeded };
}

function netOf(events: readonly NewEvent[]): bigint {
  return ofType(events, 'BetSettled').reduce((s, e) => s + BigInt(e.data.net), 0n);
}

describe('a whole 8-deck shoe from a seeded shuffle', () => {
  let run: ShoeRun;
  let t: Table;
  beforeAll(() => {
    run = dealShoe('classic', 8, 20_241_129, 416 - 70);
    t = run.table;
  });

  it('deals until the cut card and no further round opens', () => {
    expect(run.cutTiming).toBe('DURING_DEALING');
    expect(t.state.noMoreRounds).toBe(true);
    const last = t.state.rounds[t.state.rounds.length - 1];
    expect(t.state.lastHandRoundId).toBe(last.roundId);
    expect(last).toMatchObject({ lastHand: true, phase: 'RESULTED' });
    expect(t.state.rounds.filter((r) => r.lastHand)).toHaveLength(1);
    expect(run.rounds).toBeGreaterThan(60);
    expectRefused(t.events, { type: 'OpenRound', roundId: 'R-next' }, 'SHOE.NO_MORE_ROUNDS');
  });

  it('balances the card accounting: 416 = dealt + burned + unneeded + remaining', () => {
    const c = t.state.cards!;
    const remaining = remainingCards(t.state);
    expect(c.dealt + c.burned + c.unneeded + remaining).toBe(416);
    expect(remaining).toBe(416 - run.drawn);
    expect(c.burned).toBe(1 + t.state.commencement!.burnCount);
    expect(c.unneeded).toBe(run.unneeded);
    expect(c.dealt).toBe(t.state.rounds.reduce((s, r) => s + r.cards.length, 0));
    expect(c.exposed + c.dropped).toBe(0);
    // every face seen is counted once per copy: recount from the deck, minus the face-down burns
    const seen: Record<string, number> = {};
    const faceDown = new Set<number>();
    for (let i = 0; i < t.state.commencement!.burnCount; i++) if (i % 2) faceDown.add(1 + i);
    for (let i = 0; i < run.drawn; i++) if (!faceDown.has(i)) seen[run.deck[i].code] = (seen[run.deck[i].code] ?? 0) + 1;
    expect(c.known.used).toEqual(seen);
    expect(c.unseen).toBe(faceDown.size);
  });

  it('settles every bet once; the nets agree with the oracle; the shoe closes with the cards remaining', () => {
    const settled = ofType(t.events, 'BetSettled');
    expect(settled).toHaveLength(ofType(t.events, 'BetPlaced').length);
    expect(new Set(settled.map((e) => e.data.betId)).size).toBe(settled.length);
    expect(netOf(t.events)).toBe(run.expectedNet);
    const [closed] = t.run({ type: 'CloseShoe' });
    expect(closed.data).toEqual({ roundsPlayed: run.rounds, cardsRemaining: 416 - run.drawn });
  });
});

describe('property: dealing whole shoes from random shuffles', () => {
  it('never throws, results every round as the oracle does, and the settlement nets sum correctly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom<Variant>('classic', 'tiger', 'fabulous4'),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.double({ min: 0.05, max: 0.95, noNaN: true }), { nil: null }),
        (seed, variant, decks, cutFraction) => {
          const cutAt = cutFraction === null ? null : Math.max(12, Math.floor(decks * 52 * cutFraction));
          const run = dealShoe(variant, decks, seed, cutAt);
          const c = run.table.state.cards!;
          expect(c.dealt + c.burned + c.unneeded + remainingCards(run.table.state)).toBe(decks * 52);
          expect(remainingCards(run.table.state)).toBe(decks * 52 - run.drawn);
          expect(netOf(run.table.events)).toBe(run.expectedNet);
          if (cutAt !== null && run.drawn > cutAt) expect(run.table.state.noMoreRounds).toBe(true);
        },
      ),
      { numRuns: 40, seed: 424242 },
    );
  });
});
