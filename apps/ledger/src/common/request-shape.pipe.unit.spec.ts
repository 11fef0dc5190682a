import { RequestShapePipe } from './request-shape.pipe';

const pipe = new RequestShapePipe();
const refused = (value: unknown, type: 'query' | 'body') => {
  try {
    pipe.transform(value, { type, data: undefined });
    return 'accepted';
  } catch (e) {
    return (e as { code?: string }).code;
  }
};
const q = (o: Record<string, unknown>) => Object.assign(Object.create(null), o);

describe('RequestShapePipe (docs/guarantees.md §11)', () => {
  it('a query string: each parameter once, as text, no prototype name', () => {
    expect(refused(q({ limit: '10', cursor: 'abc' }), 'query')).toBe('accepted');
    expect(refused(q({ groupBy: ['table', 'shoe'] }), 'query')).toBe('VALIDATION.FAILED');
    expect(refused(q({ a: { b: 'x' } }), 'query')).toBe('VALIDATION.FAILED');
    for (const k of ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf']) {
      expect([k, refused(q({ [k]: 'x' }), 'query')]).toEqual([k, 'VALIDATION.FAILED']);
    }
  });

  it('a body: no Object.prototype key at any depth (class-transformer would drop it silently)', () => {
    expect(refused({ card: '5C' }, 'body')).toBe('accepted');
    expect(refused({ card: '5C', valueOf: 'x' }, 'body')).toBe('VALIDATION.FAILED');
    expect(refused({ bets: [{ betId: 'b', toString: 'x' }] }, 'body')).toBe('VALIDATION.FAILED');
  });
});
