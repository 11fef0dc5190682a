import { Variant } from '@ledger/rules';
import { dealShoe, ShoeBias } from '@ledger/simulator';
import { addCounts, countRound, emptyCounts, ScopeCounts } from './counts';
import { fairnessVerdict, falseAlarmRatePerTableDay } from './monitor';

/**
 * The fairness monitor against the simulator (docs/fairness.md §5): a million honest rounds raise
 * alerts on no more table-days than the stated false-alarm rate allows, and biased shoes are
 * flagged within the stated number of rounds. Deterministic: every shoe is dealt from a fixed seed,
 * so the figures printed are the same on every run (no timing is asserted).
 *
 * A simulated gaming day: 8-deck shoes dealt as `generateShoeScript` deals them (cut card about a
 * deck from the back: about 80 rounds a shoe), {@link SHOES_PER_DAY} of them (about 1,270 rounds,
 * a table dealing around the clock), dealers rotating at each shoe among three. The monitor looks
 * at each shoe's close: the shoe, the dealer's day so far, the table's day so far.
 */
const SHOES_PER_DAY = 18;
const DEALERS = 3;
const confidence = { numerator: 95n, denominator: 100n };
const VARIANTS: readonly Variant[] = ['classic', 'tiger', 'fabulous4'];

/** Stated detection figures (docs/fairness.md §5). */
const FLAGGED_WITHIN = { missingNines: 200, bankerNaturalsOneInTen: 1_000 } as const;

type PerGame = Record<Variant, ScopeCounts>;
const perGame = (variants: readonly Variant[]) => Object.fromEntries(variants.map((v) => [v, emptyCounts(v)])) as PerGame;

/** Deals one gaming day and returns, per game, the rounds dealt when the monitor first alerted (undefined: no alert). */
function simulateDay(seed: string, bias: ShoeBias, variants: readonly Variant[]): { rounds: number; firstAlert: Partial<Record<Variant, number>> } {
  let table = perGame(variants);
  const dealers: Record<string, PerGame> = {};
  const firstAlert: Partial<Record<Variant, number>> = {};
  let rounds = 0;
  for (let s = 0; s < SHOES_PER_DAY; s++) {
    const dealerId = `dealer-${s % DEALERS}`;
    const dealer = (dealers[dealerId] ??= perGame(variants));
    const shoe = dealShoe(8, `${seed}/shoe-${s}`, bias);
    rounds += shoe.rounds.length;
    const next = { ...table };
    for (const v of variants) {
      const counts = emptyCounts(v);
      for (const o of shoe.rounds) countRound(counts, v, o);
      next[v] = addCounts(table[v], counts);
      dealer[v] = addCounts(dealer[v], counts);
      if (firstAlert[v] !== undefined) continue;
      const scopes = [
        { scope: { kind: 'shoe', shoeId: `shoe-${s}` } as const, counts },
        { scope: { kind: 'dealer', dealerId } as const, counts: dealer[v] },
        { scope: { kind: 'table' } as const, counts: next[v] },
      ];
      if (fairnessVerdict({ variant: v, decks: 8, confidence, scopes }).alert) firstAlert[v] = rounds;
    }
    table = next;
  }
  return { rounds, firstAlert };
}

/** The smallest k with P(Binomial(n, p) > k) ≤ tail: the most alerting days an honest table may show at that tail. */
function binomialUpper(n: number, p: number, tail: number): number {
  let pmf = (1 - p) ** n;
  let cdf = pmf;
  let k = 0;
  while (1 - cdf > tail) {
    pmf *= ((n - k) / (k + 1)) * (p / (1 - p));
    cdf += pmf;
    k++;
  }
  return k;
}

describe('the fairness monitor on simulated shoes', () => {
  it('Given 1,000,000 honest rounds (about 790 table-days), When the monitor looks at every shoe close, Then for each game the alerting days stay within the stated 5 % rate (binomial bound at 1e-6)', () => {
    const alerts: Record<Variant, number> = { classic: 0, tiger: 0, fabulous4: 0 };
    let rounds = 0;
    let days = 0;
    while (rounds < 1_000_000) {
      const day = simulateDay(`honest-day-${days}`, {}, VARIANTS);
      for (const v of VARIANTS) if (day.firstAlert[v] !== undefined) alerts[v]++;
      rounds += day.rounds;
      days++;
    }
    const stated = falseAlarmRatePerTableDay(confidence);
    const bound = binomialUpper(days, stated, 1e-6);
    console.log(
      `fairness honest run: ${rounds} rounds, ${days} table-days; alerting days ${JSON.stringify(alerts)}; rates ${VARIANTS.map((v) => `${v} ${((100 * alerts[v]) / days).toFixed(2)} %`).join(', ')}; stated ≤ ${100 * stated} %, tolerance ≤ ${bound} days`,
    );
    for (const v of VARIANTS) expect(alerts[v]).toBeLessThanOrEqual(bound);
  }, 300_000);

  it('Given shoes missing all their 9s (20 days, Classic), When dealt, Then the monitor flags each within the stated 200 rounds', () => {
    const flagged = Array.from({ length: 20 }, (_, i) => simulateDay(`no-nines-${i}`, { missingRanks: ['9'] }, ['classic']).firstAlert.classic ?? Infinity);
    console.log(`fairness: shoes missing the 9s flagged after ${flagged.join(', ')} rounds (stated ≤ ${FLAGGED_WITHIN.missingNines})`);
    for (const r of flagged) expect(r).toBeLessThanOrEqual(FLAGGED_WITHIN.missingNines);
  }, 120_000);

  it('Given a dealer who finds a Banker natural in 1 round of 10 (20 days, Classic), When dealt, Then the monitor flags each within the stated 1,000 rounds', () => {
    const flagged = Array.from({ length: 20 }, (_, i) => simulateDay(`banker-naturals-${i}`, { bankerNaturalChance: 0.1 }, ['classic']).firstAlert.classic ?? Infinity);
    console.log(`fairness: Banker naturals found 1 round in 10 flagged after ${flagged.join(', ')} rounds (stated ≤ ${FLAGGED_WITHIN.bankerNaturalsOneInTen})`);
    for (const r of flagged) expect(r).toBeLessThanOrEqual(FLAGGED_WITHIN.bankerNaturalsOneInTen);
  }, 120_000);
});
