import { emptyLog, logAppend, LogFold, type KeyedLog } from './keyed-log';

/** A log of `n` numbers 1..n, appended one at a time, and every view along the way. */
function grow(n: number, log: KeyedLog<number> = emptyLog<number>()): KeyedLog<number>[] {
  const views = [log];
  for (let i = 1; i <= n; i++) views.push((log = logAppend(log, `k${log.size}`, i)));
  return views;
}

/** A fold that sums the entries and counts the entries it was handed (to see what was folded again). */
function summing(keep?: number) {
  const steps = { n: 0 };
  const fold = new LogFold<number, { sum: number }>(
    () => ({ sum: 0 }),
    (acc, v) => {
      acc.sum += v;
      steps.n++;
    },
    keep,
  );
  return { fold, steps };
}

describe('LogFold', () => {
  it('folds a growing log incrementally: each longer view folds only its new entries', () => {
    const { fold, steps } = summing();
    const views = grow(1000);
    for (const v of views) expect(fold.of(v).sum).toBe((v.size * (v.size + 1)) / 2);
    expect(steps.n).toBe(1000);
  });

  it('answers an older, shorter view with its own entries only (folded afresh, the kept fold untouched)', () => {
    const { fold } = summing();
    const views = grow(10);
    expect(fold.of(views[10]).sum).toBe(55);
    expect(fold.of(views[4]).sum).toBe(10);
    expect(fold.of(views[10]).sum).toBe(55);
  });

  it('keeps forks apart: two states evolved from one view see their own entries', () => {
    const { fold } = summing();
    const [, , two] = grow(2);
    const a = logAppend(two, 'a', 100);
    const b = logAppend(two, 'b', 1000); // a fork: copies the prefix into a new store
    expect(fold.of(a).sum).toBe(103);
    expect(fold.of(b).sum).toBe(1003);
    expect(fold.of(logAppend(a, 'a2', 1)).sum).toBe(104);
  });

  it('keeps at most `keep` folds: a log whose fold was dropped is folded again from its start', () => {
    const { fold, steps } = summing(2);
    const logs = [grow(5)[5], grow(5)[5], grow(5)[5]];
    for (const l of logs) fold.of(l);
    expect(steps.n).toBe(15);
    fold.of(logs[2]); // kept: nothing new to fold
    expect(steps.n).toBe(15);
    fold.of(logs[0]); // its fold was the oldest, dropped when the third came
    expect(steps.n).toBe(20);
  });
});
