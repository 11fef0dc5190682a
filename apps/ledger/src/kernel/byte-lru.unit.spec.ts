import { ByteLru } from './byte-lru';

describe('ByteLru: bounded by the estimated bytes of its values and by a count', () => {
  it('evicts the least recently used entries until the bytes fit the budget', () => {
    const lru = new ByteLru<string>(100, 10);
    lru.set('a', 'A', 40);
    lru.set('b', 'B', 40);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 40); // 120 > 100: b (least recent) goes
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual(['A', undefined, 'C']);
    expect({ bytes: lru.bytes, size: lru.size }).toEqual({ bytes: 80, size: 2 });
  });

  it('evicts beyond the count bound too', () => {
    const lru = new ByteLru<number>(1_000, 2);
    lru.set('a', 1, 1);
    lru.set('b', 2, 1);
    lru.set('c', 3, 1);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('re-setting a key replaces its size; a value larger than the budget is not kept and drops the older one', () => {
    const lru = new ByteLru<string>(100, 10);
    lru.set('a', 'small', 10);
    lru.set('a', 'bigger', 60);
    expect(lru.bytes).toBe(60);
    expect(lru.set('a', 'huge', 101)).toBe(false);
    expect({ value: lru.get('a'), bytes: lru.bytes, size: lru.size }).toEqual({ value: undefined, bytes: 0, size: 0 });
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => new ByteLru(0, 1)).toThrow(RangeError);
    expect(() => new ByteLru(10, 1.5)).toThrow(RangeError);
  });
});
