import { snapshotGap } from './shoe-state.cache';

/** Versions at which snapshots are written while a stream grows to `total` events one at a time (every event ends a round). */
function snapshotsUpTo(total: number, every: number): number[] {
  const at: number[] = [];
  let last = 0;
  for (let v = 1; v <= total; v++) {
    if (v - last >= snapshotGap(every, last)) {
      at.push(v);
      last = v;
    }
  }
  return at;
}

describe('snapshotGap: how far apart shoe snapshots are', () => {
  it('is SHOE_SNAPSHOT_EVERY on a young stream, then half the version of the last snapshot', () => {
    expect(snapshotsUpTo(20_000, 2000)).toEqual([2000, 4000, 6000, 9000, 13_500]);
  });

  it('keeps the encoding linear: the versions encoded by every snapshot of a 1,000,000-event stream sum to under 3 × its size (a fixed gap: ~250 ×)', () => {
    const total = 1_000_000;
    const encoded = snapshotsUpTo(total, 2000).reduce((a, v) => a + v, 0);
    expect(encoded).toBeLessThan(3 * total);
    let fixed = 0;
    for (let v = 2000; v <= total; v += 2000) fixed += v;
    expect(fixed).toBeGreaterThan(200 * total);
  });

  it('leaves a miss at most a third of the stream to fold past its latest snapshot', () => {
    const at = snapshotsUpTo(500_000, 2000);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeLessThanOrEqual(Math.max(2000, Math.ceil(at[i] / 3)));
  });
});
