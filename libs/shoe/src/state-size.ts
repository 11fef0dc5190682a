import type { ShoeState } from './state';

/**
 * Bytes of V8 heap a folded shoe state holds, by part (docs/architecture.md §3, "The shoe cache").
 * Measured with `scripts/measure-shoe-state-bytes.ts` (heap used after a forced GC, before and
 * after folding 4 rounds of 10,000 bets each, ids as strings parsed from JSON as the store returns
 * them): ~405 B per bet placed (its record, the id strings, its entries in the round's log and the
 * shoe's bet index), ~150 B more per settlement in force, so ~550 B per settled bet. Rounded up
 * here, so the estimate errs on the large side.
 */
export const STATE_BYTES = {
  /** The state object, its settings and limits, the card accounting (≤ 52 codes). */
  base: 16_384,
  /** A round without its bets: its object, cards, ids, outcome. */
  perRound: 2_048,
  /** A bet placed: {@link BetRecord}, its ids, its place in the round's log and the shoe's bet index. */
  perBet: 440,
  /** A settlement in force: its record, its event id, its entry in the round's settlements log. */
  perSettlement: 170,
  /** A four-eyes decision with its proposal. */
  perDecision: 2_048,
} as const;

/**
 * Estimated heap bytes of `state` (see {@link STATE_BYTES} for how the figures were measured).
 * O(rounds): it reads the sizes of the rounds' logs, never walks the bets.
 */
export function estimateStateBytes(state: ShoeState): number {
  let settlements = 0;
  for (const r of state.rounds) settlements += r.settlements.size;
  return STATE_BYTES.base + state.rounds.length * STATE_BYTES.perRound + state.betIndex.size * STATE_BYTES.perBet + settlements * STATE_BYTES.perSettlement + state.decisions.length * STATE_BYTES.perDecision;
}
