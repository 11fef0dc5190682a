import { addOverLcm, formatFraction, type Fraction, ZERO_FRACTION } from '@ledger/projections';

/**
 * The dropped-fraction total of a reconciliation grouping (docs/reports.md §3; docs/domain-rules.md §4):
 * the exact sum of fractions of a minor unit dropped by rounding, over the lcm of every denominator
 * summed, reduced, in the projection's text form (`"0"`, `"3/4"`, `"7/20"`, `"2"`). Never a float.
 * @param parts `"num/den"` or `"num"` texts (a sign allowed on `num`); `null` or empty: `"0"`
 * @throws Error on a part that is not such a text (the read model holds only checked fractions)
 */
export function droppedTotal(parts: readonly string[] | null | undefined): string {
  let sum: Fraction = ZERO_FRACTION;
  for (const p of parts ?? []) sum = addOverLcm(sum, fractionOf(p));
  return formatFraction(sum);
}

/** `a − b` of two dropped texts, reduced (an adjustment's change of the dropped total). */
export function droppedDifference(a: string, b: string): string {
  const fb = fractionOf(b);
  return formatFraction(addOverLcm(fractionOf(a), { num: -fb.num, den: fb.den }));
}

function fractionOf(text: string): Fraction {
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(text);
  if (!m || m[2] === '0' || /^0+$/.test(m[2] ?? '1')) throw new Error(`not a fraction: ${JSON.stringify(text)}`);
  return { num: BigInt(m[1]), den: BigInt(m[2] ?? '1') };
}
