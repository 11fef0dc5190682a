import type { Actor, LedgerEvent, RoundOutcomeData, TableSettings } from '@ledger/events';
import { GlobalPositions, idFactory, StreamBuilder } from './envelopes';

/**
 * A small, HAND-WRITTEN classic shoe (every card, total and amount below is written out, checked
 * against the rules library and the write side's `evolve` in `small-shoe.fixture.unit.spec.ts`):
 *
 * | hand | round | opened (UTC) | dealer  | cards (P1 B1 P2 B2) | outcome                     | what happens                       |
 * |------|-------|--------------|---------|---------------------|-----------------------------|------------------------------------|
 * | 1    | R1    | 05:50        | D-ANNA  | 9S 7H KD QC         | Player 9–7, natural         | 3 bets settled                     |
 * | –    | –     | 06:05        | → D-BORIS (DealerChanged)                                                                     |
 * | 2    | R2    | 06:10        | D-BORIS | 3C 4D 2H 4S         | Banker 8–5, natural, B pair | 15 on Banker: 14.25 → 14, drops 1/4|
 * | 3    | R3    | 06:20        | D-BORIS | TS JH 7C 7D         | Tie 7–7                     | Player pushes, Tie pays 8:1        |
 * | 4    | R4    | 06:30        | D-BORIS | 4H 2C 4C 5S         | Player 8–7, natural, P pair | settled, then VOIDED by management |
 * | 5    | R5    | 06:40        | D-BORIS | 8C 6D KH QS         | Player 8–6 → CORRECTED to   | 3 bets resettled                   |
 * |      |       |              |         | 6C 8D KH QS         | Banker 8–6                  |                                    |
 * | 6    | R6    | 06:50        | D-BORIS | –                   | cut card before dealing     | VOIDED (CUT_CARD), stake refunded  |
 *
 * Gaming days with the default rule (UTC, cut-off 06:00): R1 → 2025-02-28, R2..R6 → 2025-03-01.
 *
 * Expected reconciliation (EUR, minor units):
 * - (D-ANNA, 2025-02-28): turnover 1600, payouts 2000, GGR −400; 3 bets, 1 round.
 * - (D-BORIS, 2025-03-01): turnover 1315 + 350 + 2040 = 3705; payouts 1979 + 1100 + 1950 = 5029;
 *   GGR −1324; correction payout delta 1950 − 2000 = −50; voided stakes 600 + 100 = 700;
 *   bets settled 9, refunded 3, resettled 3; rounds resulted 3 (R2 R3 R5), voided 2 (R4 R6);
 *   corrections 1; dropped 1/4 of a cent.
 */
export interface SmallShoe {
  readonly events: LedgerEvent[];
  readonly shoeId: string;
  readonly tableId: string;
  /** eventIds worth asserting on. */
  readonly ids: {
    r4Resulted: string;
    r4Voided: string;
    r5Resulted: string;
    r5Corrected: string;
    r6CutCard: string;
    r6Voided: string;
  };
}

/** Table settings of the fixture's table (classic, 8 decks, EUR). */
export const SMALL_SHOE_SETTINGS: TableSettings = {
  variant: 'classic',
  decks: 8,
  virtualTable: false,
  paytableRef: 'classic-standard@1',
  pairBetsRequireMainBet: true,
  currency: 'EUR',
  limits: {
    PLAYER: { min: '10', max: '100000' },
    BANKER: { min: '10', max: '100000' },
    TIE: { min: '10', max: '20000' },
    PLAYER_PAIR: { min: '10', max: '10000' },
    BANKER_PAIR: { min: '10', max: '10000' },
    EITHER_PAIR: { min: '10', max: '10000' },
  },
};

const DEVICE: Actor = { id: 'device-T-FX', role: 'table-device' };
const PLATFORM: Actor = { id: 'betting-platform-1', role: 'betting-platform' };
const CARLA: Actor = { id: 'PM-CARLA', role: 'pit-manager' };

/**
 * Builds the fixture. Ids are deterministic per `shoeId`.
 * @param options.shoeId default `fx-1`; `options.tableId` default `T-FX-1`
 * @param options.positions global position counter (share one to interleave several shoes)
 */
export function smallShoe(options: { shoeId?: string; tableId?: string; positions?: GlobalPositions } = {}): SmallShoe {
  const shoeId = options.shoeId ?? 'fx-1';
  const tableId = options.tableId ?? 'T-FX-1';
  const s = new StreamBuilder(shoeId, tableId, options.positions ?? new GlobalPositions(), idFactory(`small-shoe:${shoeId}`));
  let clock = Date.parse('2025-03-01T05:30:00.000Z');
  const at = (iso?: string) => {
    clock = iso ? Date.parse(iso) : clock + 5_000;
    return new Date(clock).toISOString();
  };
  const dev = (iso?: string) => ({ actor: DEVICE, occurredAt: at(iso) });
  const bp = () => ({ actor: PLATFORM, occurredAt: at() });
  const rid = (n: number) => `${shoeId}-R${n}`;
  const bid = (n: number, k: number) => `${shoeId}-B${n}-${k}`;
  const settle = (
    round: number,
    k: number,
    accountId: string,
    betCode: 'PLAYER' | 'BANKER' | 'TIE' | 'PLAYER_PAIR' | 'BANKER_PAIR',
    result: 'WIN' | 'LOSE' | 'PUSH',
    stake: string,
    winnings: string,
    payout: string,
    net: string,
    dropped = '0',
  ) => s.add('BetSettled', { betId: bid(round, k), roundId: rid(round), accountId, betCode, currency: 'EUR', result, stake, winnings, payout, net, dropped, paytableRef: 'classic-standard@1', revision: 1 }, dev());
  const bet = (round: number, k: number, accountId: string, betCode: 'PLAYER' | 'BANKER' | 'TIE' | 'PLAYER_PAIR' | 'BANKER_PAIR', stake: string) =>
    s.add('BetPlaced', { betId: bid(round, k), roundId: rid(round), accountId, betCode, stake, currency: 'EUR' }, bp());
  const deal = (round: number, cards: [string, string, string, string]) => (['P1', 'B1', 'P2', 'B2'] as const).forEach((position, i) => s.add('CardDealt', { roundId: rid(round), position, card: cards[i] }, dev()));
  const outcome = (o: RoundOutcomeData) => o;

  // ---- shoe, commencement: 3H calls for 3 burns
  s.add('ShoeOpened', { shoeId, tableId, dealerId: 'D-ANNA', ...SMALL_SHOE_SETTINGS }, dev('2025-03-01T05:30:00.000Z'));
  s.add('CommencementCardDrawn', { card: '3H', burnCount: 3 }, dev());
  s.add('CardBurned', { card: null, phase: 'COMMENCEMENT', burnIndex: 1 }, dev());
  s.add('CardBurned', { card: null, phase: 'COMMENCEMENT', burnIndex: 2 }, dev());
  s.add('CardBurned', { card: 'KS', phase: 'COMMENCEMENT', burnIndex: 3 }, dev());

  // ---- R1 (05:50, gaming day 2025-02-28, D-ANNA): P 9S KD = 9, B 7H QC = 7 → Player, natural
  s.add('RoundOpened', { roundId: rid(1), handNumber: 1 }, dev('2025-03-01T05:50:00.000Z'));
  bet(1, 1, 'ACC-1', 'PLAYER', '1000');
  bet(1, 2, 'ACC-2', 'BANKER', '500');
  bet(1, 3, 'ACC-3', 'TIE', '100');
  s.add('BettingClosed', { roundId: rid(1), betCount: 3, totalStake: '1600' }, dev());
  deal(1, ['9S', '7H', 'KD', 'QC']);
  s.add(
    'RoundResulted',
    {
      roundId: rid(1),
      handNumber: 1,
      outcome: outcome({ player: ['9S', 'KD'], banker: ['7H', 'QC'], playerTotal: 9, bankerTotal: 7, winner: 'PLAYER', natural: true, playerPair: false, bankerPair: false }),
      paytableRef: 'classic-standard@1',
    },
    dev(),
  );
  settle(1, 1, 'ACC-1', 'PLAYER', 'WIN', '1000', '1000', '2000', '1000'); // 1:1
  settle(1, 2, 'ACC-2', 'BANKER', 'LOSE', '500', '0', '0', '-500');
  settle(1, 3, 'ACC-3', 'TIE', 'LOSE', '100', '0', '0', '-100');

  // ---- dealer change between rounds
  s.add('DealerChanged', { previousDealerId: 'D-ANNA', dealerId: 'D-BORIS' }, dev('2025-03-01T06:05:00.000Z'));

  // ---- R2 (06:10, 2025-03-01, D-BORIS): P 3C 2H = 5, B 4D 4S = 8 → Banker, natural, banker pair
  s.add('RoundOpened', { roundId: rid(2), handNumber: 2 }, dev('2025-03-01T06:10:00.000Z'));
  bet(2, 1, 'ACC-1', 'BANKER', '1000');
  bet(2, 2, 'ACC-2', 'PLAYER', '300');
  bet(2, 3, 'ACC-4', 'BANKER', '15');
  s.add('BettingClosed', { roundId: rid(2), betCount: 3, totalStake: '1315' }, dev());
  deal(2, ['3C', '4D', '2H', '4S']);
  s.add(
    'RoundResulted',
    {
      roundId: rid(2),
      handNumber: 2,
      outcome: outcome({ player: ['3C', '2H'], banker: ['4D', '4S'], playerTotal: 5, bankerTotal: 8, winner: 'BANKER', natural: true, playerPair: false, bankerPair: true }),
      paytableRef: 'classic-standard@1',
    },
    dev(),
  );
  settle(2, 1, 'ACC-1', 'BANKER', 'WIN', '1000', '950', '1950', '950'); // 0.95:1
  settle(2, 2, 'ACC-2', 'PLAYER', 'LOSE', '300', '0', '0', '-300');
  settle(2, 3, 'ACC-4', 'BANKER', 'WIN', '15', '14', '29', '14', '1/4'); // 15 × 19/20 = 14.25 → 14, 1/4 dropped

  // ---- R3 (06:20): P TS 7C = 7 stands, B JH 7D = 7 stands → Tie
  s.add('RoundOpened', { roundId: rid(3), handNumber: 3 }, dev('2025-03-01T06:20:00.000Z'));
  bet(3, 1, 'ACC-1', 'PLAYER', '200');
  bet(3, 2, 'ACC-2', 'TIE', '100');
  bet(3, 3, 'ACC-2', 'BANKER_PAIR', '50');
  s.add('BettingClosed', { roundId: rid(3), betCount: 3, totalStake: '350' }, dev());
  deal(3, ['TS', 'JH', '7C', '7D']);
  s.add(
    'RoundResulted',
    {
      roundId: rid(3),
      handNumber: 3,
      outcome: outcome({ player: ['TS', '7C'], banker: ['JH', '7D'], playerTotal: 7, bankerTotal: 7, winner: 'TIE', natural: false, playerPair: false, bankerPair: false }),
      paytableRef: 'classic-standard@1',
    },
    dev(),
  );
  settle(3, 1, 'ACC-1', 'PLAYER', 'PUSH', '200', '0', '200', '0'); // push on a tie
  settle(3, 2, 'ACC-2', 'TIE', 'WIN', '100', '800', '900', '800'); // 8:1
  settle(3, 3, 'ACC-2', 'BANKER_PAIR', 'LOSE', '50', '0', '0', '-50');

  // ---- R4 (06:30): P 4H 4C = 8 (pair), B 2C 5S = 7 → Player natural; then voided by management
  s.add('RoundOpened', { roundId: rid(4), handNumber: 4 }, dev('2025-03-01T06:30:00.000Z'));
  bet(4, 1, 'ACC-1', 'PLAYER', '500');
  bet(4, 2, 'ACC-1', 'PLAYER_PAIR', '100');
  s.add('BettingClosed', { roundId: rid(4), betCount: 2, totalStake: '600' }, dev());
  deal(4, ['4H', '2C', '4C', '5S']);
  const r4Resulted = s.add(
    'RoundResulted',
    {
      roundId: rid(4),
      handNumber: 4,
      outcome: outcome({ player: ['4H', '4C'], banker: ['2C', '5S'], playerTotal: 8, bankerTotal: 7, winner: 'PLAYER', natural: true, playerPair: true, bankerPair: false }),
      paytableRef: 'classic-standard@1',
    },
    dev(),
  );
  settle(4, 1, 'ACC-1', 'PLAYER', 'WIN', '500', '500', '1000', '500');
  settle(4, 2, 'ACC-1', 'PLAYER_PAIR', 'WIN', '100', '1100', '1200', '1100'); // 11:1
  const r4Voided = s.add(
    'RoundVoided',
    {
      roundId: rid(4),
      cause: 'MANAGEMENT',
      decision: { reason: 'cards dealt from the discard tray (§5.4 wrong dealing)', actingManagerId: 'PM-CARLA', approverId: 'PM-DAVID', compensates: r4Resulted.eventId },
      causedBy: null,
    },
    { actor: CARLA, occurredAt: at() },
  );
  for (const [k, betCode, stake] of [
    [1, 'PLAYER', '500'],
    [2, 'PLAYER_PAIR', '100'],
  ] as const) {
    s.add('BetRefunded', { betId: bid(4, k), roundId: rid(4), accountId: 'ACC-1', betCode, currency: 'EUR', stake, compensates: r4Voided.eventId, revision: 1 }, { actor: CARLA, occurredAt: at() });
  }

  // ---- R5 (06:40): recorded P 8C KH = 8, B 6D QS = 6 → Player; corrected: P1/B1 were swapped:
  //      P 6C KH = 6, B 8D QS = 8 → Banker natural
  s.add('RoundOpened', { roundId: rid(5), handNumber: 5 }, dev('2025-03-01T06:40:00.000Z'));
  bet(5, 1, 'ACC-1', 'PLAYER', '1000');
  bet(5, 2, 'ACC-2', 'BANKER', '1000');
  bet(5, 3, 'ACC-3', 'TIE', '40');
  s.add('BettingClosed', { roundId: rid(5), betCount: 3, totalStake: '2040' }, dev());
  deal(5, ['8C', '6D', 'KH', 'QS']);
  const r5Outcome = outcome({ player: ['8C', 'KH'], banker: ['6D', 'QS'], playerTotal: 8, bankerTotal: 6, winner: 'PLAYER', natural: true, playerPair: false, bankerPair: false });
  const r5Resulted = s.add('RoundResulted', { roundId: rid(5), handNumber: 5, outcome: r5Outcome, paytableRef: 'classic-standard@1' }, dev());
  const s51 = settle(5, 1, 'ACC-1', 'PLAYER', 'WIN', '1000', '1000', '2000', '1000');
  const s52 = settle(5, 2, 'ACC-2', 'BANKER', 'LOSE', '1000', '0', '0', '-1000');
  const s53 = settle(5, 3, 'ACC-3', 'TIE', 'LOSE', '40', '0', '0', '-40');
  const r5Corrected = s.add(
    'ResultCorrected',
    {
      roundId: rid(5),
      cards: ['6C', '8D', 'KH', 'QS'],
      previousOutcome: r5Outcome,
      outcome: outcome({ player: ['6C', 'KH'], banker: ['8D', 'QS'], playerTotal: 6, bankerTotal: 8, winner: 'BANKER', natural: true, playerPair: false, bankerPair: false }),
      decision: { reason: 'P1 and B1 recorded swapped (camera review)', actingManagerId: 'PM-CARLA', approverId: 'PM-DAVID', compensates: r5Resulted.eventId },
      paytableRef: 'classic-standard@1',
    },
    { actor: CARLA, occurredAt: at() },
  );
  const resettle = (k: number, accountId: string, betCode: 'PLAYER' | 'BANKER' | 'TIE', result: 'WIN' | 'LOSE', stake: string, winnings: string, payout: string, net: string, compensates: string) =>
    s.add(
      'BetResettled',
      { betId: bid(5, k), roundId: rid(5), accountId, betCode, currency: 'EUR', result, stake, winnings, payout, net, dropped: '0', paytableRef: 'classic-standard@1', revision: 2, compensates },
      { actor: CARLA, occurredAt: at() },
    );
  resettle(1, 'ACC-1', 'PLAYER', 'LOSE', '1000', '0', '0', '-1000', s51.eventId);
  resettle(2, 'ACC-2', 'BANKER', 'WIN', '1000', '950', '1950', '950', s52.eventId);
  resettle(3, 'ACC-3', 'TIE', 'LOSE', '40', '0', '0', '-40', s53.eventId);

  // ---- R6 (06:50): bets open, the cut card comes out before the first card → void, refund
  s.add('RoundOpened', { roundId: rid(6), handNumber: 6 }, dev('2025-03-01T06:50:00.000Z'));
  bet(6, 1, 'ACC-1', 'PLAYER', '100');
  const r6CutCard = s.add('CutCardDrawn', { roundId: rid(6), timing: 'BEFORE_DEALING' }, dev());
  const r6Voided = s.add('RoundVoided', { roundId: rid(6), cause: 'CUT_CARD', decision: null, causedBy: r6CutCard.eventId }, dev());
  s.add('BetRefunded', { betId: bid(6, 1), roundId: rid(6), accountId: 'ACC-1', betCode: 'PLAYER', currency: 'EUR', stake: '100', compensates: r6Voided.eventId, revision: 0 }, dev());
  // 416 cards − (commencement 1 + burns 3 + 5 rounds × 4 dealt) = 392
  s.add('ShoeClosed', { roundsPlayed: 4, cardsRemaining: 392 }, dev());

  return {
    events: s.events,
    shoeId,
    tableId,
    ids: {
      r4Resulted: r4Resulted.eventId,
      r4Voided: r4Voided.eventId,
      r5Resulted: r5Resulted.eventId,
      r5Corrected: r5Corrected.eventId,
      r6CutCard: r6CutCard.eventId,
      r6Voided: r6Voided.eventId,
    },
  };
}
