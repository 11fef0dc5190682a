import { AppliedEventIndex } from './applied-index';

const h = (n: number) => n.toString(16).padStart(64, '0');

describe('AppliedEventIndex', () => {
  it('Given committed events, When looked up, Then the same position and hash is a duplicate, another hash or a known id at a new position must be checked, anything else is new', () => {
    const index = new AppliedEventIndex();
    for (let p = 1; p <= 200_000; p++) index.add(String(p), `id-${p}`, h(p));
    expect(index.size).toBe(200_000);
    expect(index.lookup('7', 'id-7', h(7))).toBe('duplicate');
    expect(index.lookup('7', 'id-7', h(8))).toBe('check'); // same id, another hash
    expect(index.lookup('7', 'id-x', h(9))).toBe('check'); // another event at a taken position
    expect(index.lookup('200001', 'id-7', h(10))).toBe('check'); // an applied id at a new position
    expect(index.lookup('200001', 'id-200001', h(200_001))).toBe('new');
    expect(index.bytes).toBeLessThan(200_000 * 70);
  });

  it('Given a position beyond the safe integers or a hash that is not hex, When added, Then it is still found exactly', () => {
    const index = new AppliedEventIndex();
    index.add('99999999999999999999', 'big', h(1));
    index.add('5', 'odd', 'not-a-sha256');
    expect(index.lookup('99999999999999999999', 'big', h(1))).toBe('duplicate');
    expect(index.lookup('5', 'odd', 'not-a-sha256')).toBe('duplicate');
    expect(index.lookup('5', 'odd', h(2))).toBe('check');
  });
});
