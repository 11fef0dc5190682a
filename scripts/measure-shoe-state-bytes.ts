/**
 * Measures the V8 heap a folded shoe state holds per bet, the figures behind `STATE_BYTES` of
 * `libs/shoe/src/state-size.ts` (docs/architecture.md §3, "The shoe cache"): heap used after a
 * forced GC, before and after folding `rounds` rounds of `bets` bets each (dealt and settled unless
 * `--no-deal`), with ids as fresh flat strings, as the store's JSON parsing returns them.
 *
 *   node --expose-gc -r tsx/cjs scripts/measure-shoe-state-bytes.ts [rounds=4 (1..8)] [bets=10000] [--no-deal]
 *
 * Measured 2026-12-02: 4 × 10,000 settled bets 555 B per bet (estimate 1.10 × the heap);
 * 10,000 bets placed, not dealt, 424 B per bet (estimate 1.04 ×).
 *
 * Prints one JSON line: rounds, bets, bytes, bytes per bet, the estimate and its ratio to the heap.
 */
import { randomUUID } from 'node:crypto';
import { BET_CODES, nextPosition } from '@ledger/rules';
import { decide, estimateStateBytes, evolve, initialState, type ShoeCommand, type ShoeState } from '@ledger/shoe';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const ROUNDS = Number(args[0] ?? 4);
const BETS = Number(args[1] ?? 10_000);
const deal = !process.argv.includes('--no-deal');
// each round deals the same five cards: an 8-deck shoe holds 8 of each
if (!(ROUNDS >= 1 && ROUNDS <= 8)) throw new Error('rounds: 1..8');
/** A UUID as a flat string of its own (randomUUID's strings share a larger buffer). */
const uid = () => JSON.parse(JSON.stringify(randomUUID())) as string;
const ctx = { newId: uid };
const run = (s: ShoeState, c: ShoeCommand): ShoeState => decide(s, c, ctx).reduce(evolve, s);
const limits: Record<string, { min: string; max: string }> = {};
for (const code of BET_CODES.classic) limits[code] = { min: '100', max: '100000000' };

gc();
const before = process.memoryUsage().heapUsed;
let s = run(initialState(), {
  type: 'OpenShoe',
  shoeId: 'S1',
  tableId: 'T1',
  dealerId: 'D1',
  settings: { variant: 'classic', decks: 8, virtualTable: false, paytableRef: 'classic-standard@1', pairBetsRequireMainBet: false, currency: 'EUR', limits },
});
s = run(s, { type: 'DrawCommencementCard', card: 'AS' });
s = run(s, { type: 'BurnCard', card: null });
const cards = ['2S', '3S', '4S', '2H', '7H', '8H'];
for (let r = 0; r < ROUNDS; r++) {
  const roundId = uid();
  s = run(s, { type: 'OpenRound', roundId });
  for (let i = 0; i < BETS; i += 500) {
    const bets = [];
    for (let j = i; j < Math.min(BETS, i + 500); j++) bets.push({ betId: uid(), accountId: `acct-${100000 + j}`, betCode: 'PLAYER', stake: 1000n + BigInt(j), currency: 'EUR' });
    s = run(s, { type: 'PlaceBets', roundId, bets });
  }
  s = run(s, { type: 'CloseBetting', roundId });
  for (let k = 0; deal && s.rounds[s.rounds.length - 1].phase === 'DEALING'; k++) {
    s = run(s, { type: 'DealCard', roundId, position: nextPosition(s.rounds[s.rounds.length - 1].cards) ?? 'B3', card: cards[k % cards.length] });
  }
}
gc();
const bytes = process.memoryUsage().heapUsed - before;
const estimate = estimateStateBytes(s);
console.log(JSON.stringify({ rounds: ROUNDS, bets: ROUNDS * BETS, dealt: deal, bytes, perBet: Math.round(bytes / (ROUNDS * BETS)), estimate, ratio: +(estimate / bytes).toFixed(2) }));
(globalThis as { keep?: unknown }).keep = s;
