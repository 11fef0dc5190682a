/**
 * Fold benchmark of the shoe state machine: `npx tsx libs/shoe/bench/fold.bench.ts`.
 * Builds busy shoes through decide/evolve, then times folding their events from scratch
 * (best and median of several runs, after a warm-up). Prints one line per shape.
 */
import { fold } from '../src/evolve';
import { busyShoeEvents } from './busy-shoe';

function time(fn: () => void, runs: number): { best: number; median: number } {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { best: ms[0], median: ms[Math.floor(ms.length / 2)] };
}

for (const [rounds, bets] of [
  [10, 5000],
  [80, 625],
  [20, 10000],
] as const) {
  const events = busyShoeEvents(rounds, bets);
  fold(events); // warm-up
  const { best, median } = time(() => fold(events), 7);
  process.stdout.write(`${rounds} rounds × ${bets} bets: ${events.length} events folded in best ${best.toFixed(1)} ms, median ${median.toFixed(1)} ms ` + `(${((events.length / median) * 1000).toFixed(0)} events/s)\n`);
}
